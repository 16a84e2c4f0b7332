"""Low-rank matrix completion written as masked language modelling (Gopalani et al. 2024, §2).

A matrix X = U Vᵀ (U ∈ R^{m×r}, V ∈ R^{n×r}, entries iid U[−1, 1]) is rounded to ``prec`` decimals and read
row by row as a sequence of m·n tokens. Each entry is hidden (replaced by the MASK token, id 0) independently
with probability ``p_mask``; an observed entry x becomes the token ``1 + round(x·10^prec) − min_vocab·10^prec``,
so the vocabulary holds MASK plus every value on the grid [min_vocab, max_vocab] in steps of 10^−prec.
This is the tokenisation of the official code (``src/data.py``, ``RealMatrix``), written anew.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

MASK = 0


def _check_problem(m, n, r, p_mask):
    for name, v in (("m", m), ("n", n), ("r", r)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{name} must be an int, got {type(v).__name__}")
        if v < 1:
            raise ValueError(f"{name} must be >= 1, got {v}")
    if r > min(m, n):
        raise ValueError(f"rank r={r} must be <= min(m, n)={min(m, n)}")
    p = float(p_mask)
    if not np.isfinite(p) or not 0.0 < p < 1.0:
        raise ValueError(f"p_mask must lie in the open interval (0, 1), got {p_mask}")


@dataclass(frozen=True)
class Tokenizer:
    """Value <-> token map of the official code: MASK = 0, value v -> 1 + round(v·10^prec) − min_vocab·10^prec.

    Parameters
    ----------
    prec : decimals kept (official: 2).
    min_vocab, max_vocab : the value range of the vocabulary (official: −10, 10).
    """

    prec: int = 2
    min_vocab: int = -10
    max_vocab: int = 10

    @property
    def vocab_size(self) -> int:
        """Number of tokens: MASK plus (max_vocab − min_vocab)·10^prec + 1 values (official: 2002)."""
        return 1 + (self.max_vocab - self.min_vocab) * 10 ** self.prec + 1

    def round(self, X: torch.Tensor) -> torch.Tensor:
        """X rounded to ``prec`` decimals (the regression target of the official code)."""
        return torch.round(X, decimals=self.prec)

    def encode(self, X: torch.Tensor, observed: torch.Tensor) -> torch.Tensor:
        """Token ids, shape (B, m·n) int64: value tokens where ``observed``, MASK elsewhere.

        Raises
        ------
        ValueError if X has non-finite entries or values outside [min_vocab, max_vocab].
        """
        if not torch.isfinite(X).all():
            raise ValueError("X must be finite (found NaN or inf)")
        if X.min() < self.min_vocab or X.max() > self.max_vocab:
            raise ValueError(f"X must lie in [{self.min_vocab}, {self.max_vocab}] to be tokenised")
        scale = 10 ** self.prec
        ids = 1 + torch.round(X * scale).to(torch.int64) - self.min_vocab * scale
        ids = ids * observed.to(torch.int64)
        return ids.reshape(X.shape[0], -1)

    def decode(self, ids: torch.Tensor) -> torch.Tensor:
        """Values of value tokens (float32); MASK tokens decode to NaN."""
        scale = 10 ** self.prec
        vals = (ids.to(torch.float64) - 1 + self.min_vocab * scale) / scale
        return torch.where(ids == MASK, torch.full_like(vals, float("nan")), vals).to(torch.float32)


@dataclass
class Batch:
    """One batch of the task. ``tokens`` (B, m·n) int64, ``X`` (B, m, n) float32 rounded matrices,
    ``observed`` (B, m, n) bool (True = shown to the model), ``U`` (B, m, r), ``V`` (B, n, r)."""

    tokens: torch.Tensor
    X: torch.Tensor
    observed: torch.Tensor
    U: torch.Tensor
    V: torch.Tensor


def sample_batch(B: int, m: int = 7, n: int = 7, r: int = 2, p_mask: float = 0.3,
                 generator: torch.Generator | None = None, tokenizer: Tokenizer = Tokenizer()) -> Batch:
    """Draw B rank-r matrices X = U Vᵀ with U, V iid U[−1, 1], hide each entry with probability p_mask.

    Parameters
    ----------
    B : batch size (official: 256 fresh matrices per step).
    m, n : matrix size (official: 7 × 7).
    r : rank, 1 <= r <= min(m, n) (official: 2).
    p_mask : probability that an entry is hidden, in (0, 1) (official: 0.3).
    generator : torch.Generator for reproducible draws.

    Returns
    -------
    Batch (see its docstring). The diagonal of the problem: Var(X_ij) = r/9.

    Raises
    ------
    ValueError if r > min(m, n), p_mask is outside (0, 1) or a size is < 1; TypeError for a non-integer size.
    """
    _check_problem(m, n, r, p_mask)
    if isinstance(B, bool) or not isinstance(B, (int, np.integer)) or B < 1:
        raise ValueError(f"B must be a positive int, got {B}")
    U = 2 * torch.rand(B, m, r, generator=generator) - 1
    V = 2 * torch.rand(B, n, r, generator=generator) - 1
    X = tokenizer.round(U @ V.transpose(1, 2))
    observed = torch.rand(B, m, n, generator=generator) > p_mask
    return Batch(tokenizer.encode(X, observed), X, observed, U, V)


def entry_variance(r: int) -> float:
    """Var(X_ij) = r · E[u²] E[v²] = r/9 for U, V iid U[−1, 1] (derived): the masked MSE of the copy solution."""
    return r / 9.0
