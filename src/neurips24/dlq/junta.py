"""Sparse functions (juntas) over product distributions: the learning problem of Joshi, Misiakiewicz & Srebro.

Inputs are x ~ μ^{⊗d}; the label depends only on the coordinates of a support S* ⊂ [d], |S*| = P ≪ d; the
learner's task is to find S* (paper, abstract and Sec. 2). Two input distributions μ:

- ``'gaussian'``: x_i ~ N(0, 1);
- ``'boolean'``: x_i ∈ {−1, +1} with P(x_i = +1) = p, fed to the network standardised,
  z_i = (x_i − m) / s with m = 2p − 1 and s = 2 sqrt(p (1 − p)), so every coordinate has mean 0 and variance 1.

The book's target (its own construction, not the paper's): every coordinate i carries a **biased bit**
β_i ∈ {0, 1} with P(β_i = 1) = p — β_i = 1[|x_i| > c_p], c_p = Φ⁻¹(1 − p/2), for Gaussian inputs and
β_i = 1[x_i = +1] for Boolean ones — and

    y = Π_{i ∈ S*} g(β_i),   g(β) = (β − p) / sqrt(p (1 − p)).                                       (dlq-target)

Each factor has mean 0 and variance 1, so E[y] = 0, E[y²] = 1, and y is orthogonal to every function of fewer
than P support coordinates: no correlational query on a strict subset of S* sees anything. For p ≠ 1/2 the
factors are asymmetric (they take the values sqrt((1−p)/p) and −sqrt(p/(1−p))), so y takes P + 1 distinct
values and a nonlinear transform of y, such as its sign, does correlate with single coordinates. For
p = 1/2 the labels are ±1: binary, and then every transform of y is affine in y.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from ..checks import check_count

INPUTS = ("gaussian", "boolean")


def _check_p(p) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float, np.floating, np.integer)):
        raise TypeError(f"p must be a number in (0, 1), got {type(p).__name__}")
    if not (math.isfinite(float(p)) and 0.0 < float(p) < 1.0):
        raise ValueError(f"p must be a number in (0, 1), got {p!r}")
    return float(p)


@dataclass(frozen=True)
class Junta:
    """A sparse target y = Π_{i∈S*} g(β_i) on d product-distributed inputs (module docstring, eq. dlq-target).

    Build it with :func:`make_junta`, which checks the arguments.

    Attributes
    ----------
    d : int, the input dimension.
    support : tuple of int, S* (sorted, distinct, each in [0, d)).
    inputs : 'gaussian' or 'boolean'.
    p : float in (0, 1), P(β_i = 1), the bias of the bits.
    threshold : c_p = Φ⁻¹(1 − p/2) (SciPy ``norm.isf``): a Gaussian coordinate's bit is 1[|x_i| > c_p]
        (``nan`` for Boolean inputs).
    """

    d: int
    support: tuple
    inputs: str
    p: float
    threshold: float = float("nan")

    @property
    def P(self) -> int:
        """|S*|, the number of relevant coordinates."""
        return len(self.support)

    def bits(self, x: np.ndarray) -> np.ndarray:
        """β = the biased bits of the inputs ``x`` (as :meth:`sample` returns them), same shape, float64 0/1."""
        x = np.asarray(x, dtype=np.float64)
        if self.inputs == "gaussian":
            return (np.abs(x) > self.threshold).astype(np.float64)
        return (x > 0).astype(np.float64)   # standardised Boolean: +1 maps to a positive value

    def label(self, x: np.ndarray) -> np.ndarray:
        """y for inputs ``x`` of shape (n, d) (eq. dlq-target): (n,) float64.

        Raises
        ------
        ValueError if ``x`` is not (n, d) or not finite.
        """
        x = np.asarray(x, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != self.d:
            raise ValueError(f"x must have shape (n, {self.d}), got {x.shape}")
        if not np.all(np.isfinite(x)):
            raise ValueError("x must be finite (no NaN or inf)")
        return self._label(x)

    def _label(self, x: np.ndarray) -> np.ndarray:
        g = (self.bits(x[:, list(self.support)]) - self.p) / math.sqrt(self.p * (1 - self.p))
        return np.prod(g, axis=1)

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """Draw n examples: x (n, d) float64 — N(0, 1) or standardised ±1 coordinates — and y (n,) float64.

        Raises
        ------
        ValueError if n is not an integer >= 1; TypeError if ``rng`` is not a NumPy Generator.
        """
        n = check_count("n", n)
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        if self.inputs == "gaussian":
            x = rng.standard_normal((n, self.d))
        else:
            m, s = 2 * self.p - 1, 2 * math.sqrt(self.p * (1 - self.p))
            x = (np.where(rng.random((n, self.d)) < self.p, 1.0, -1.0) - m) / s
        return x, self._label(x)

    def label_values(self) -> np.ndarray:
        """The P + 1 values y can take (k of the P bits equal to 1, k = 0..P), sorted: (P + 1,) float64."""
        hi, lo = math.sqrt((1 - self.p) / self.p), -math.sqrt(self.p / (1 - self.p))
        return np.unique(np.round([hi ** k * lo ** (self.P - k) for k in range(self.P + 1)], 12))


def make_junta(d: int, support=(0, 1, 2), inputs: str = "gaussian", p: float = 0.2) -> Junta:
    """A :class:`Junta` with checked arguments.

    Parameters
    ----------
    d : input dimension, an integer >= 1.
    support : S*, distinct integers in [0, d), at least one; |S*| > d is an error.
    inputs : 'gaussian' or 'boolean'.
    p : bias of the bits, in (0, 1); p = 0.2 by default (p = 1/2 makes the labels binary).

    Raises
    ------
    ValueError for d < 1, |S*| > d, an empty support, repeated or out-of-range coordinates, unknown inputs
    or p outside (0, 1); TypeError for a non-integer coordinate or a non-numeric p.
    """
    d = check_count("d", d)
    if inputs not in INPUTS:
        raise ValueError(f"inputs must be one of {INPUTS}, got {inputs!r}")
    support = tuple(support)
    if not support:
        raise ValueError("support must name at least one coordinate")
    if len(support) > d:
        raise ValueError(f"support has {len(support)} coordinates but d = {d}: need |S*| <= d")
    for i in support:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"support coordinates must be integers, got {i!r}")
        if not 0 <= i < d:
            raise ValueError(f"support coordinates must lie in [0, {d}), got {i}")
    if len(set(support)) != len(support):
        raise ValueError(f"support coordinates must be distinct, got {support}")
    p = _check_p(p)
    return Junta(d=d, support=tuple(sorted(int(i) for i in support)), inputs=inputs, p=p,
                 threshold=float(norm.isf(p / 2)) if inputs == "gaussian" else float("nan"))
