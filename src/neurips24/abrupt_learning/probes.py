"""Probes of what the model does before and after the drop (paper §4): where attention looks (row/column
structure), whether masked predictions copy a constant or compute the entry, and what the hidden states encode.
"""
from __future__ import annotations

import numpy as np
import torch


def row_column_mask(m: int, n: int) -> np.ndarray:
    """(m·n, m·n) bool: True where key k shares a row or a column with query q, k ≠ q (row-major positions)."""
    if m < 1 or n < 1:
        raise ValueError(f"m and n must be >= 1, got {m}, {n}")
    i, j = np.divmod(np.arange(m * n), n)
    same = (i[:, None] == i[None, :]) | (j[:, None] == j[None, :])
    return same & ~np.eye(m * n, dtype=bool)


def row_column_mass(att: torch.Tensor | np.ndarray, m: int, n: int) -> np.ndarray:
    """Attention mass of every head and query on the query's own row and column (query excluded), eq. (al-rowcol).

    att : (B, H, T, T) attention probabilities, T = m·n. Returns (B, H, T) float64 in [0, 1].
    """
    A = np.asarray(att.detach() if isinstance(att, torch.Tensor) else att, dtype=np.float64)
    T = m * n
    if A.ndim != 4 or A.shape[-2:] != (T, T):
        raise ValueError(f"att must have shape (B, H, {T}, {T}), got {A.shape}")
    if not np.isfinite(A).all() or not np.allclose(A.sum(-1), 1.0, atol=1e-4):
        raise ValueError("att must be finite attention probabilities whose rows sum to 1")
    return (A * row_column_mask(m, n)).sum(-1)


def row_column_score(att: torch.Tensor | np.ndarray, m: int, n: int, queries: np.ndarray | None = None) -> np.ndarray:
    """Attention mass each head puts on the query's own row and column (the query itself excluded).

    Parameters
    ----------
    att : (B, H, T, T) attention probabilities of one layer, T = m·n, rows summing to 1.
    m, n : matrix size.
    queries : optional (B, T) bool — average only over these query positions (e.g. the masked entries).

    Returns
    -------
    (H,) float64 in [0, 1]. Uniform attention gives the chance level (m + n − 2)/(m·n).

    Raises
    ------
    ValueError if att is not (B, H, m·n, m·n), not finite, or its rows do not sum to 1.
    """
    mass = row_column_mass(att, m, n)                                # (B, H, T)
    if queries is None:
        return mass.mean(axis=(0, 2))
    q = np.asarray(queries, dtype=bool)
    if q.shape != (mass.shape[0], m * n):
        raise ValueError(f"queries must have shape ({mass.shape[0]}, {m * n}), got {q.shape}")
    return (mass * q[:, None, :]).sum(axis=(0, 2)) / max(q.sum(), 1)


def rectangle_shown(observed) -> np.ndarray:
    """(B, m, n) bool: hidden entries (i, j) with a fully shown rectangle — some k ≠ i, l ≠ j with (i, l), (k, j)
    and (k, l) observed — the hidden entries a rank-1 matrix determines, X_ij = X_il X_kj / X_kl (eq. al-cubic).

    observed : (B, m, n) bool, True where shown.
    """
    O = np.asarray(observed, dtype=bool)
    if O.ndim != 3:
        raise ValueError(f"observed must have shape (B, m, n), got {O.shape}")
    Oi = O.astype(np.int64)
    # count of (k, l) with O[i, l] and O[k, j] and O[k, l]: sum_l O[i, l] (sum_k O[k, l] O[k, j])
    through = np.einsum("bil,bkl,bkj->bij", Oi, Oi, Oi)
    # for a hidden (i, j) the terms with k = i or l = j contain O[i, j] = 0, so they drop out by themselves
    return ~O & (through > 0)


def attention_entropy(att: torch.Tensor | np.ndarray) -> np.ndarray:
    """Mean Shannon entropy (nats) of each head's attention rows: (B, H, T, T) -> (H,). Uniform = ln T."""
    A = np.asarray(att.detach() if isinstance(att, torch.Tensor) else att, dtype=np.float64)
    if A.ndim != 4 or not np.isfinite(A).all():
        raise ValueError("att must be a finite (B, H, T, T) array")
    return -(A * np.log(np.clip(A, 1e-30, None))).sum(-1).mean(axis=(0, 2))


def copy_compute_score(pred, X, observed) -> dict:
    """How the masked predictions relate to the truth (the paper's copying check, §4.1).

    Returns a dict with
      ``r2``     : 1 − masked MSE / Var(X at masked entries) — 0 for a constant (copy) answer, 1 when exact;
      ``corr``   : Pearson correlation of prediction and truth at masked entries (0 for a copy answer);
      ``spread`` : standard deviation of the masked predictions (≈ 0 when the model writes one constant).

    pred : (B, m·n) or (B, m, n); X : (B, m, n); observed : (B, m, n) bool.
    """
    P = np.asarray(pred.detach() if isinstance(pred, torch.Tensor) else pred, dtype=np.float64).reshape(np.shape(X))
    X = np.asarray(X, dtype=np.float64)
    hid = ~np.asarray(observed, dtype=bool)
    if hid.sum() < 2:
        raise ValueError("need at least two masked entries")
    p, x = P[hid], X[hid]
    return dict(r2=float(1 - np.mean((p - x) ** 2) / np.var(x)),
                corr=float(np.corrcoef(p, x)[0, 1]) if p.std() > 0 else 0.0,
                spread=float(p.std()))


def linear_probe_r2(hidden: torch.Tensor | np.ndarray, targets: np.ndarray, train_frac: float = 0.5,
                    alpha: float = 1e-2, seed: int = 0) -> float:
    """Held-out R² of a ridge probe (scikit-learn ``Ridge``) from hidden states to a scalar target.

    hidden : (N, d) hidden states (e.g. at the masked positions of one layer); targets : (N,) true values.
    The rows are split at random, ``train_frac`` for fitting.
    """
    from sklearn.linear_model import Ridge

    H = np.asarray(hidden.detach() if isinstance(hidden, torch.Tensor) else hidden, dtype=np.float64)
    y = np.asarray(targets, dtype=np.float64)
    if H.ndim != 2 or y.shape != (H.shape[0],):
        raise ValueError(f"hidden must be (N, d) and targets (N,), got {H.shape} and {y.shape}")
    if not (np.isfinite(H).all() and np.isfinite(y).all()):
        raise ValueError("hidden and targets must be finite")
    if not 0 < train_frac < 1:
        raise ValueError(f"train_frac must be in (0, 1), got {train_frac}")
    idx = np.random.default_rng(seed).permutation(len(y))
    k = int(train_frac * len(y))
    fit = Ridge(alpha=alpha).fit(H[idx[:k]], y[idx[:k]])
    return float(fit.score(H[idx[k:]], y[idx[k:]]))
