"""Forget sets graded by memorization and by entanglement (paper Sec. 3, the official ``cluster.py`` and the
memorization groups of ``main_forget.py``), and the validation every forget set goes through.

- by memorization, with k points each: **low** = the k least memorized, **high** = the k most memorized,
  **mid** = the k points (outside low and high) with mem closest to 0.5, **mix** = k/3 drawn from each;
- by entanglement: sort the training points by the distance of their embedding to the global centroid;
  **near** (the k closest: high ES, inside the bulk of the data) and **far** (the k farthest: low ES);
- **random**: k points drawn uniformly (the control: an ordinary forget set of the same size).
"""
from __future__ import annotations

import numpy as np


def check_forget_set(forget, n: int) -> np.ndarray:
    """Validate forget-set indices into a training set of n points.

    Returns
    -------
    (k,) int64 array, the indices as given.

    Raises
    ------
    TypeError if the indices are not integers.
    ValueError if the set is empty, has duplicates, or an index is outside [0, n).
    """
    idx = np.asarray(forget)
    if idx.ndim != 1:
        raise ValueError(f"forget must be a 1-d array of indices, got shape {idx.shape}")
    if idx.size == 0:
        raise ValueError("forget set is empty: nothing to unlearn")
    if not np.issubdtype(idx.dtype, np.integer):
        raise TypeError(f"forget indices must be integers, got dtype {idx.dtype}")
    if idx.min() < 0 or idx.max() >= n:
        raise ValueError(f"forget indices must lie in [0, {n}), got min {idx.min()} and max {idx.max()}")
    if len(np.unique(idx)) != len(idx):
        raise ValueError("forget indices contain duplicates")
    return idx.astype(np.int64)


def _check_k(k, n: int, parts: int = 1) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < parts or parts * k > n:
        raise ValueError(f"k must be an integer in [{parts}, {n // parts}], got {k!r}")
    return int(k)


def memorization_groups(mem, k: int, seed: int = 0) -> dict:
    """Forget sets 'low', 'mid', 'high' (k points each) and 'mix' (k // 3 from each) by memorization score.

    Parameters
    ----------
    mem : (n,) finite memorization scores; k : set size, 3 <= k <= n / 3; seed : draws the mix.

    Returns
    -------
    dict name -> (k,) int64 indices (mix: 3 · (k // 3)).

    Raises
    ------
    ValueError on non-finite scores or a bad k.
    """
    mem = np.asarray(mem, dtype=float)
    if mem.ndim != 1 or not np.all(np.isfinite(mem)):
        raise ValueError("mem must be a 1-d array of finite scores")
    k = _check_k(k, len(mem), parts=3)
    order = np.argsort(mem, kind="stable")
    low, high = order[:k], order[-k:]
    rest = order[k:-k]
    mid = rest[np.argsort(np.abs(mem[rest] - 0.5), kind="stable")[:k]]
    rng = np.random.default_rng(seed)
    mix = np.concatenate([rng.choice(g, size=k // 3, replace=False) for g in (low, mid, high)])
    return {"low": low, "mid": np.sort(mid), "high": high, "mix": mix}


def distance_groups(phi, k: int) -> dict:
    """ES-graded forget sets from an embedding: 'near' (k closest to the centroid) and 'far' (k farthest).

    phi : (n, h) finite embeddings of the training points; returns dict name -> (k,) int64 indices.
    """
    phi = np.asarray(phi, dtype=float)
    if phi.ndim != 2 or not np.all(np.isfinite(phi)):
        raise ValueError("phi must be an (n, h) array of finite embeddings")
    k = _check_k(k, len(phi), parts=2)
    dist = np.linalg.norm(phi - phi.mean(0), axis=1)
    order = np.argsort(dist, kind="stable")
    return {"near": order[:k], "far": order[-k:]}


def random_set(n: int, k: int, seed: int = 0) -> np.ndarray:
    """k distinct indices drawn uniformly from [0, n)."""
    k = _check_k(k, n)
    return np.random.default_rng(seed).choice(n, size=k, replace=False)
