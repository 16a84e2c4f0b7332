"""The Monte Carlo reduction of the detectability tables as a CUDA kernel, ``mc_reduce.cu`` (book's own).

:func:`~neurips24.dlq.tables.reduce_chunk` sums X = T_a(y) Π_{i∈U} ψ_k(x_i) and X² over a chunk of samples for
every transform a, basis function k and set U (singles, pairs, the subsets of S*): the part of the chapter
that grows with the 2²⁴ samples of the `full` scale. The kernel computes all of them in one launch: one
thread per output (a, k, U), samples split over the blocks' y index, each block staging a tile of samples of T
and F in shared memory, float64 accumulators; the per-block partial sums are then added by CuPy in a fixed
order. :func:`reduce_chunk_kernel` returns the same dict as the reference, which stays the torch path of
:mod:`.tables`; :func:`reduce_chunk_any` picks the kernel when CuPy sees a GPU and the reference otherwise,
so the chapter runs unchanged without one.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..backend import cupy_or_none
from ..checks import check_count
from .tables import reduce_chunk

__all__ = ["subset_index", "subset_sums_numpy", "subset_sums_kernel", "reduce_chunk_kernel", "reduce_chunk_any",
           "kernel_parity", "bench_dlq_reduce"]

SHARED_BYTES = 48 * 1024     # the default dynamic shared memory a block may ask for


def subset_index(subsets: Sequence[tuple], d: int) -> np.ndarray:
    """The sets U as the kernel reads them: an (nU, m) int32 array of coordinates, padded with −1.

    m is the size of the largest set (at least 1). A coordinate may repeat (the pair (i, i) gives ψ_k(x_i)²).

    Raises
    ------
    ValueError for an empty set or a coordinate outside [0, d).
    """
    subsets = [tuple(int(i) for i in u) for u in subsets]
    if any(len(u) == 0 for u in subsets):
        raise ValueError("every set U must hold at least one coordinate")
    if any(not 0 <= i < d for u in subsets for i in u):
        raise ValueError(f"the coordinates of the sets must lie in [0, {d}), got {subsets}")
    m = max((len(u) for u in subsets), default=1)
    idx = np.full((len(subsets), m), -1, dtype=np.int32)
    for r, u in enumerate(subsets):
        idx[r, :len(u)] = u
    return idx


def _check_arrays(T, F) -> tuple[int, int, int, int]:
    if T.ndim != 2 or F.ndim != 3 or T.shape[0] != F.shape[0]:
        raise ValueError(f"T must be (n, K) and F (n, Fk, d) with the same n, got {T.shape} and {F.shape}")
    n, K = T.shape
    return n, K, F.shape[1], F.shape[2]


def subset_sums_numpy(T, F, idx) -> tuple[np.ndarray, np.ndarray]:
    """What one kernel launch computes, in NumPy, reading the padded ``idx`` as the kernel does.

    Parameters
    ----------
    T : (n, K) float64.   F : (n, Fk, d) float64.   idx : (nU, m) int32 from :func:`subset_index`.

    Returns
    -------
    sum, sum_sq : (K, Fk, nU) float64, Σ_s X and Σ_s X² with X = T[s, a] Π_{i∈U} F[s, k, i].
    """
    T, F = np.asarray(T, dtype=np.float64), np.asarray(F, dtype=np.float64)
    n, K, Fk, _ = _check_arrays(T, F)
    prod = np.ones((n, Fk, len(idx)))
    for u, row in enumerate(np.asarray(idx)):
        for i in row[row >= 0]:
            prod[:, :, u] *= F[:, :, i]
    X = T[:, :, None, None] * prod[:, None, :, :]                  # (n, K, Fk, nU)
    return X.sum(axis=0), (X * X).sum(axis=0)


def subset_sums_kernel(T, F, idx, block: int = 128, n_split: int | None = None):
    """One launch of ``mc_reduce``: Σ_s X and Σ_s X² for every (a, k, U), as CuPy (K, Fk, nU) float64 arrays.

    Parameters
    ----------
    T : (n, K), F : (n, Fk, d) float64 (NumPy or CuPy).   idx : (nU, m) int32 from :func:`subset_index`.
    block : threads per block.   n_split : blocks along the samples (default: enough to fill the GPU).

    Raises
    ------
    RuntimeError without CuPy and a GPU; ValueError for mismatched shapes or a tile that does not fit in
    shared memory (K + Fk d > 6144).
    """
    cp = cupy_or_none()
    if cp is None:
        raise RuntimeError("the mc_reduce kernel needs CuPy and a CUDA GPU")
    from ..cuda import raw_kernel

    T = cp.ascontiguousarray(cp.asarray(T, dtype=cp.float64))
    F = cp.ascontiguousarray(cp.asarray(F, dtype=cp.float64))
    n, K, Fk, d = _check_arrays(T, F)
    idx = cp.ascontiguousarray(cp.asarray(idx, dtype=cp.int32))
    nU, m = idx.shape
    row = K + Fk * d
    tile = min(64, SHARED_BYTES // (8 * row))
    if tile < 1:
        raise ValueError(f"K + Fk*d = {row} doubles per sample do not fit in shared memory")
    n_out = K * Fk * nU
    grid_x = (n_out + block - 1) // block
    if n_split is None:
        n_split = max(1, min(1024, 4096 // grid_x, (n + tile - 1) // tile))
    per_block = (n + n_split - 1) // n_split
    part_sum = cp.empty((n_split, K, Fk, nU))
    part_sq = cp.empty((n_split, K, Fk, nU))
    kernel = raw_kernel("neurips24.dlq", "mc_reduce.cu", "mc_reduce")
    kernel((grid_x, n_split), (block,),
           (T, F, idx, np.int64(n), np.int32(K), np.int32(Fk), np.int32(d), np.int32(nU), np.int32(m),
            np.int64(per_block), np.int32(tile), part_sum, part_sq), shared_mem=8 * tile * row)
    return part_sum.sum(axis=0), part_sq.sum(axis=0)


def _assemble(T, F, pair_columns, pair_feature, subsets, sums: Callable) -> dict:
    """Lay singles, pairs (i <= j) and the given subsets out as one index, reduce it with ``sums``, and
    return the dict of :func:`~neurips24.dlq.tables.reduce_chunk`."""
    n, K, Fk, d = _check_arrays(T, F)
    pair_columns = tuple(int(a) for a in pair_columns)
    pairs = [(i, j) for i in range(d) for j in range(i, d)] if pair_columns else []
    sets = [(i,) for i in range(d)] + pairs + [tuple(u) for u in subsets]
    s, sq = (np.asarray(v.get() if hasattr(v, "get") else v) for v in sums(T, F, subset_index(sets, d)))
    out = {"n": n, "single": s[:, :, :d], "single_sq": sq[:, :, :d]}
    k = pair_feature % Fk
    for key, src in (("pair", s), ("pair_sq", sq)):
        mat = np.zeros((len(pair_columns), d, d))
        if pair_columns:
            ii, jj = np.triu_indices(d)
            vals = src[list(pair_columns), k, d:d + len(pairs)]
            mat[:, ii, jj] = vals
            mat[:, jj, ii] = vals
        out[key] = mat
    out["subset"] = s[:, :, d + len(pairs):]
    out["subset_sq"] = sq[:, :, d + len(pairs):]
    return out


def reduce_chunk_kernel(T, F, pair_columns: Sequence[int] = (), pair_feature: int = -1,
                        subsets: Sequence[tuple] = ()) -> dict:
    """:func:`~neurips24.dlq.tables.reduce_chunk` through the ``mc_reduce`` kernel: the same dict, NumPy arrays.

    Pairs are reduced for every transform and basis function and the requested ones kept (the pair (i, j)
    once, mirrored to (j, i)).

    Raises
    ------
    RuntimeError without CuPy and a GPU; ValueError for mismatched shapes or coordinates out of range.
    """
    return _assemble(T, F, pair_columns, pair_feature, subsets,
                     lambda T_, F_, idx: subset_sums_kernel(T_, F_, idx))


def reduce_chunk_any(T, F, pair_columns: Sequence[int] = (), pair_feature: int = -1,
                     subsets: Sequence[tuple] = ()) -> dict:
    """The kernel when CuPy sees a GPU, the torch reference :func:`~neurips24.dlq.tables.reduce_chunk` otherwise."""
    if cupy_or_none() is None:
        return reduce_chunk(T, F, pair_columns, pair_feature, subsets)
    return reduce_chunk_kernel(T, F, pair_columns, pair_feature, subsets)


def _case(n: int, K: int, d: int, Fk: int, seed: int):
    rng = np.random.default_rng(seed)
    T = rng.normal(size=(n, K))
    F = rng.normal(size=(n, Fk, d))
    return T, F


def kernel_parity(n: int = 2 ** 16, K: int = 6, d: int = 32, seed: int = 0) -> dict | None:
    """Largest relative gap between the kernel and the torch reference on one chunk, and the speed of both.

    The chunk is random T (n, K) and F (n, 2, d) with pairs for the first two transforms and the 7 subsets of
    a 3-coordinate support, as in the chapter's Gaussian tables.

    Returns
    -------
    None without CuPy and a GPU; else a dict: for each output of the reduction the largest gap
    max |kernel − reference| / max |reference|, plus 'torch_ms' (reference on the CPU, one chunk) and
    'gpu_ms' (the kernel on the same chunk, already on the device).
    """
    cp = cupy_or_none()
    if cp is None:
        return None
    from ..timing import best_time
    from .tables import support_subsets

    T, F = _case(n, K, d, 2, seed)
    args = ((0, 1), -1, support_subsets((0, 1, 2)))
    ref = reduce_chunk(T, F, *args)
    got = reduce_chunk_kernel(T, F, *args)
    out = {k: float(np.max(np.abs(got[k] - ref[k])) / (np.max(np.abs(ref[k])) + 1e-300)) for k in ref if k != "n"}
    T_d, F_d = cp.asarray(T), cp.asarray(F)
    out["torch_ms"] = 1e3 * best_time(lambda: reduce_chunk(T, F, *args), repeat=3)
    out["gpu_ms"] = 1e3 * best_time(lambda: reduce_chunk_kernel(T_d, F_d, *args), cp.cuda.Device().synchronize,
                                    repeat=3)
    return out


def bench_dlq_reduce(n: int = 2 ** 16, K: int = 6, d: int = 32, seed: int = 0) -> list[tuple[str, float, float]]:
    """Time the reduction of one chunk of n samples: torch reference (CPU) and the kernel (GPU, when present).

    Returns
    -------
    list of (name, seconds per chunk, bytes of T and F read per chunk) rows; used by ``benchmarks/kernels.py``.

    Raises
    ------
    ValueError for n, K or d < 1.
    """
    from ..timing import best_time
    from .tables import support_subsets

    n, K, d = check_count("n", n), check_count("K", K), check_count("d", d)
    T, F = _case(n, K, d, 2, seed)
    args = ((0, 1) if K >= 2 else (0,), -1, support_subsets(tuple(range(min(3, d)))))
    nbytes = 8.0 * n * (K + 2 * d)
    size = f"n={n} K={K} d={d}"
    rows = [(f"dlq.mc_reduce torch reference (CPU) {size}", best_time(lambda: reduce_chunk(T, F, *args),
                                                                    repeat=3), nbytes)]
    cp = cupy_or_none()
    if cp is not None:
        T_d, F_d = cp.asarray(T), cp.asarray(F)
        rows.append((f"dlq.mc_reduce cuda kernel (GPU) {size}",
                     best_time(lambda: reduce_chunk_kernel(T_d, F_d, *args), cp.cuda.Device().synchronize),
                     nbytes))
    return rows
