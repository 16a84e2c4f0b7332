"""Detectability tables: Monte Carlo estimates of E[T(y) ψ(x_U)] over subsets U, with their standard errors.

A set of coordinates U is *detectable* by a query class when some transform T of the label that the class can
use (:mod:`.queries`) correlates with some zero-mean function ψ of x_U (book's reading of the paper's Sec. 2,
Definition 2 and Eq. (14)). The tables use the orthonormal product bases of the input distribution:

- Gaussian inputs: ψ_k(x_i) = He_k(x_i)/sqrt(k!) for k = 1, 2 (He_1 = x, He_2 = x² − 1);
- standardised Boolean inputs: ψ_1(z_i) = z_i (a two-point distribution has no other zero-mean direction);

and ψ_k(x_U) = Π_{i∈U} ψ_k(x_i). Estimates are means over n samples, drawn in chunks; the standard error of
each entry is sqrt((mean of X²) − (mean of X)²) / sqrt(n) with X = T(y) ψ(x_U) per sample. The reduction of one
chunk (:func:`reduce_chunk`) is a few matrix products (torch, float64); on a GPU the tables use the same
reduction as the CUDA kernel of :mod:`.kernels`.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch
from scipy.stats import norm

from ..checks import check_count
from .junta import Junta


def feature_names(junta: Junta) -> list[str]:
    """Names of the per-coordinate basis functions ψ_k: ['He1', 'He2'] (Gaussian) or ['z'] (Boolean)."""
    return ["He1", "He2"] if junta.inputs == "gaussian" else ["z"]


def features(junta: Junta, x: np.ndarray) -> np.ndarray:
    """ψ_k(x_i) for every sample, basis function and coordinate: (n, Fk, d) float64, orthonormal under μ.

    Raises
    ------
    ValueError if ``x`` is not (n, d) or not finite.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != junta.d:
        raise ValueError(f"x must have shape (n, {junta.d}), got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("x must be finite (no NaN or inf)")
    if junta.inputs == "gaussian":
        return np.stack([x, (x * x - 1.0) / math.sqrt(2.0)], axis=1)
    return x[:, None, :].copy()


def support_subsets(support: Sequence[int]) -> list[tuple]:
    """Every non-empty subset of S*, by size then lexicographically: [(0,), (1,), ..., (0, 1), ..., S*]."""
    s = tuple(sorted(support))
    return [u for k in range(1, len(s) + 1) for u in itertools.combinations(s, k)]


def reduce_chunk(T: np.ndarray, F: np.ndarray, pair_columns: Sequence[int] = (), pair_feature: int = -1,
                 subsets: Sequence[tuple] = ()) -> dict:
    """Sums over one chunk of samples of X = T_a(y) ψ(x_U) and of X², for singles, pairs and given subsets.

    The Monte Carlo reduction behind every table (the part that grows with the 10⁷+ samples of the full
    scale): matrix products of the transforms against the basis functions, computed by torch in float64 on
    its CPU thread pool (one thread in the chapter). NumPy's multithreaded BLAS can run a hundred times slower
    on a busy 2-core machine; torch's pool is the one the chapter sets.

    Parameters
    ----------
    T : (n, K) float64, the label transforms.   F : (n, Fk, d) float64, the basis functions (:func:`features`).
    pair_columns : indices a of T whose pair sums Σ_s T_a ψ(x_i) ψ(x_j) are wanted (d × d matrices).
    pair_feature : the basis function k used in the pairs (default: the last one, He2 or z).
    subsets : tuples of coordinates U; their product sums Σ_s T_a Π_{i∈U} ψ_k(x_i), for every k.

    Returns
    -------
    dict of NumPy arrays: 'n' (int); 'single', 'single_sq' (K, Fk, d); 'pair', 'pair_sq'
    (len(pair_columns), d, d); 'subset', 'subset_sq' (K, Fk, len(subsets)).
    """
    n, Fk, d = F.shape
    Tt = torch.from_numpy(np.ascontiguousarray(T, dtype=np.float64))
    Ft = torch.from_numpy(np.ascontiguousarray(F, dtype=np.float64))
    T2, F2 = Tt * Tt, Ft * Ft
    out = {"n": n, "single": (Tt.T @ Ft.reshape(n, Fk * d)).reshape(-1, Fk, d),
           "single_sq": (T2.T @ F2.reshape(n, Fk * d)).reshape(-1, Fk, d)}
    Fp = Ft[:, pair_feature, :]
    Fp2 = Fp * Fp
    out["pair"] = torch.stack([(Fp * Tt[:, a, None]).T @ Fp for a in pair_columns]) if pair_columns else \
        torch.zeros(0, d, d, dtype=torch.float64)
    out["pair_sq"] = torch.stack([(Fp2 * T2[:, a, None]).T @ Fp2 for a in pair_columns]) if pair_columns else \
        torch.zeros(0, d, d, dtype=torch.float64)
    nU = len(subsets)
    prod = (torch.stack([Ft[:, :, list(u)].prod(dim=2) for u in subsets], dim=2) if nU
            else torch.zeros(n, Fk, 0, dtype=torch.float64))
    out["subset"] = (Tt.T @ prod.reshape(n, Fk * nU)).reshape(-1, Fk, nU)
    out["subset_sq"] = (T2.T @ (prod * prod).reshape(n, Fk * nU)).reshape(-1, Fk, nU)
    return {k: (v if k == "n" else v.numpy()) for k, v in out.items()}


def exact_correlation(junta: Junta, T: Callable, U: Sequence[int], feature: int = -1) -> float:
    """The population value E[T(y) Π_{i∈U} ψ_k(x_i)] of the book's target, by an exact sum over bit patterns.

    Every coordinate enters only through its bit β_i, and E[ψ_k(x_i) | β_i] is κ_k / p for β_i = 1 and
    −κ_k / (1 − p) for β_i = 0, with κ = √2 c_p φ(c_p) for He2/√2 (Gaussian; φ the normal density), 0 for He1
    (the bits are even functions of x_i) and sqrt(p (1 − p)) for z (Boolean). A coordinate outside S* is
    independent of y, so any U ⊄ S* gives 0. The sum runs over the 2^P patterns of the support's bits.

    Parameters
    ----------
    junta : the target.   T : callable, labels (n,) -> (n,) values of the transform.
    U : the coordinates (distinct, in [0, d)).   feature : index k of the basis function (default: the last).

    Raises
    ------
    ValueError for coordinates outside [0, d) or repeated, or a feature index out of range.
    """
    U = tuple(int(i) for i in U)
    if len(set(U)) != len(U) or any(not 0 <= i < junta.d for i in U):
        raise ValueError(f"U must be distinct coordinates in [0, {junta.d}), got {U}")
    names = feature_names(junta)
    if not -len(names) <= feature < len(names):
        raise ValueError(f"feature must index {names}, got {feature}")
    if not set(U) <= set(junta.support):
        return 0.0
    name = names[feature]
    p = junta.p
    if name == "He1":
        kappa = 0.0
    elif name == "He2":
        kappa = math.sqrt(2.0) * junta.threshold * norm.pdf(junta.threshold)
    else:
        kappa = math.sqrt(p * (1 - p))
    patterns = np.array(list(itertools.product((0, 1), repeat=junta.P)), dtype=np.float64)   # (2^P, P)
    prob = np.prod(np.where(patterns == 1, p, 1 - p), axis=1)
    y = np.prod((patterns - p) / math.sqrt(p * (1 - p)), axis=1)
    col = [junta.support.index(i) for i in U]
    psi = np.prod(np.where(patterns[:, col] == 1, kappa / p, -kappa / (1 - p)), axis=1) if col else 1.0
    return float(np.sum(prob * np.asarray(T(y), dtype=np.float64) * psi))


@dataclass
class CorrelationTable:
    """Monte Carlo estimates of E[T_a(y) ψ_k(x_U)] and their standard errors (module docstring).

    Attributes
    ----------
    junta : the target.   names : K transform names.   feature_names : Fk basis names.   n : samples.
    single, single_se : (K, Fk, d) single coordinates U = {i}.
    pair_columns : the transforms with pair tables.   pair_feature : the basis function of the pairs.
    pair, pair_se : (len(pair_columns), d, d) pairs U = {i, j} (diagonal NaN).
    subsets : the non-empty subsets of S*.   subset, subset_se : (K, Fk, len(subsets)).
    chunk_single : (K, Fk, d, C) the per-chunk means of the single entries (C chunks), for bootstrap intervals.
    """

    junta: Junta
    names: list
    feature_names: list
    n: int
    single: np.ndarray
    single_se: np.ndarray
    pair_columns: tuple
    pair_feature: int
    pair: np.ndarray
    pair_se: np.ndarray
    subsets: list
    subset: np.ndarray
    subset_se: np.ndarray
    chunk_single: np.ndarray = field(repr=False)

    def column(self, name: str) -> int:
        """Index of the transform called ``name``. ValueError if there is none."""
        if name not in self.names:
            raise ValueError(f"no transform named {name!r}; the table has {self.names}")
        return self.names.index(name)

    def t_single(self, name: str) -> np.ndarray:
        """(Fk, d) t-statistics estimate / standard error of the single-coordinate entries of ``name``."""
        a = self.column(name)
        return self.single[a] / self.single_se[a]

    def t_pair(self, name: str) -> np.ndarray:
        """(d, d) t-statistics of the pair entries of ``name`` (diagonal NaN). ValueError without pairs."""
        a = self.column(name)
        if a not in self.pair_columns:
            raise ValueError(f"{name!r} has no pair table; pairs were reduced for {self.pair_columns}")
        c = self.pair_columns.index(a)
        return self.pair[c] / self.pair_se[c]

    def t_subset(self, name: str) -> np.ndarray:
        """(Fk, len(subsets)) t-statistics of the subsets of S* for ``name``."""
        a = self.column(name)
        return self.subset[a] / self.subset_se[a]

    def detectable(self, names: Sequence[str], z: float) -> list[tuple]:
        """The subsets U ⊆ S* that some transform in ``names`` and some basis function detect, |t| > z.

        The set system C of the query class (book's reading of Definition 2), read from the table.
        """
        found = []
        for j, u in enumerate(self.subsets):
            if any(np.max(np.abs(self.t_subset(nm)[:, j])) > z for nm in names):
                found.append(u)
        return found


def bonferroni_z(n_tests: int, level: float = 0.01) -> float:
    """The two-sided normal threshold z with P(max of n_tests |N(0,1)| > z) <= level (Bonferroni): SciPy isf.

    Raises
    ------
    ValueError if n_tests < 1 or level outside (0, 1).
    """
    n_tests = check_count("n_tests", n_tests)
    if not (isinstance(level, (int, float)) and 0 < level < 1):
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    return float(norm.isf(level / (2 * n_tests)))


def correlation_table(junta: Junta, transform: Callable, names: Sequence[str], n_samples: int, *,
                      seed: int = 0, chunk: int = 2 ** 16, pair_columns: Sequence[int] = (),
                      pair_feature: int = -1) -> CorrelationTable:
    """Estimate E[T_a(y) ψ_k(x_U)] for every transform a, basis function k and set U (singles, pairs, S*'s subsets).

    Parameters
    ----------
    junta : the target (:func:`~neurips24.dlq.junta.make_junta`).
    transform : callable mapping labels y (n,) to T (n, K) float64 (e.g. built from
        :func:`~neurips24.dlq.queries.query_transforms`).
    names : K names of the columns of T.
    n_samples : total number of samples, >= 2 (drawn in chunks of ``chunk``; the last chunk may be smaller).
    seed : seeds ``numpy.random.default_rng``.
    chunk : samples per chunk, >= 1.
    pair_columns : indices of the transforms whose pair (d × d) tables are wanted.
    pair_feature : the basis function of the pairs (default: the last, He2 or z).

    Returns
    -------
    :class:`CorrelationTable`.

    Raises
    ------
    ValueError for n_samples < 2, chunk < 1, a transform that does not return (n, K) finite values with
    K = len(names), or a pair column out of range.
    """
    n_samples = check_count("n_samples", n_samples, minimum=2)
    chunk = check_count("chunk", chunk)
    names = list(names)
    K = len(names)
    pair_columns = tuple(int(a) for a in pair_columns)
    if any(not 0 <= a < K for a in pair_columns):
        raise ValueError(f"pair_columns must index the {K} transforms, got {pair_columns}")
    n_feat = len(feature_names(junta))
    if not -n_feat <= pair_feature < n_feat:
        raise ValueError(f"pair_feature must index the {n_feat} basis functions, got {pair_feature}")
    pair_feature = pair_feature % n_feat
    from .kernels import reduce_chunk_any  # the CUDA kernel on a GPU, reduce_chunk otherwise

    rng = np.random.default_rng(seed)
    subsets = support_subsets(junta.support)
    total, chunk_single = None, []
    done = 0
    while done < n_samples:
        n = min(chunk, n_samples - done)
        x, y = junta.sample(n, rng)
        T = np.asarray(transform(y), dtype=np.float64)
        if T.shape != (n, K) or not np.all(np.isfinite(T)):
            raise ValueError(f"transform must return finite values of shape (n, {K}), got {T.shape}")
        part = reduce_chunk_any(T, features(junta, x), pair_columns, pair_feature, subsets)
        chunk_single.append(part["single"] / n)
        total = part if total is None else {k: total[k] + part[k] for k in total}
        done += n
    mean = {k: total[k] / n_samples for k in total if k != "n"}

    def se(key):
        return np.sqrt(np.maximum(mean[key + "_sq"] - mean[key] ** 2, 0.0) / n_samples)

    pair, pair_se = mean["pair"], se("pair")
    idx = np.arange(junta.d)
    pair[:, idx, idx] = np.nan
    pair_se[:, idx, idx] = np.nan
    return CorrelationTable(junta=junta, names=names, feature_names=feature_names(junta), n=n_samples,
                            single=mean["single"], single_se=se("single"), pair_columns=pair_columns,
                            pair_feature=pair_feature, pair=pair, pair_se=pair_se, subsets=subsets,
                            subset=mean["subset"], subset_se=se("subset"),
                            chunk_single=np.stack(chunk_single, axis=-1))
