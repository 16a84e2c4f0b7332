"""The Semi-NMF V-step as one CUDA launch, ``seminmf_vstep.cu`` (book's own), and its NumPy reference.

One block per representation z_m runs all FISTA iterations of the non-negative lasso for that row, with the Gram
matrix G = U Uᵀ and the momentum point y in shared memory. The GEMMs Z Uᵀ and U Uᵀ are done once by CuPy (cuBLAS).
Reference: :func:`~neurips24.concepts.seminmf.encode_nonneg` with ``tol=0`` (the same operations in the same
order; they agree to rounding). Without CuPy and a GPU nothing here runs and the chapter uses the reference.
"""
from __future__ import annotations

import time

import numpy as np

from ..backend import cupy_or_none
from .seminmf import _check_Z, encode_nonneg


def encode_nonneg_gpu(Z, U, alpha: float, n_iter: int = 200, V0=None, block: int = 32):
    """:func:`~neurips24.concepts.seminmf.encode_nonneg` (tol = 0, fixed ``n_iter``) as one ``snmf_vstep`` launch.

    Parameters
    ----------
    Z : (M, D) float64 NumPy or CuPy array. U : (K, D) float64, K ≤ 1024. alpha : float ≥ 0. n_iter : int ≥ 1.
    V0 : (M, K) warm start (default zeros). block : threads per block, rounded up to a multiple of 32 and ≥ K.

    Returns
    -------
    (M, K) float64 CuPy array ≥ 0.

    Raises
    ------
    RuntimeError without CuPy and a GPU. ValueError for shapes that do not match or K > 1024.
    """
    cp = cupy_or_none()
    if cp is None:
        raise RuntimeError("snmf_vstep needs CuPy and a CUDA GPU; use seminmf.encode_nonneg on the CPU")
    from ..cuda import raw_kernel

    Zd = cp.ascontiguousarray(cp.asarray(Z, dtype=cp.float64))
    Ud = cp.ascontiguousarray(cp.asarray(U, dtype=cp.float64))
    if Zd.ndim != 2 or Ud.ndim != 2 or Zd.shape[1] != Ud.shape[1]:
        raise ValueError(f"Z (M, D) and U (K, D) must share D, got {Zd.shape} and {Ud.shape}")
    M, K = Zd.shape[0], Ud.shape[0]
    if K > 1024:
        raise ValueError(f"K must be <= 1024 (one thread per concept), got {K}")
    G = Ud @ Ud.T
    ZUt = cp.ascontiguousarray(Zd @ Ud.T)
    eta = 1.0 / max(float(cp.linalg.eigvalsh(G)[-1]), 1e-12)
    V0d = cp.zeros((M, K)) if V0 is None else cp.ascontiguousarray(cp.asarray(V0, dtype=cp.float64))
    V = cp.empty((M, K), dtype=cp.float64)
    threads = max(32, -(-max(block, K) // 32) * 32)
    grid = int(min(M, 65535))
    shared = (K * K + K) * 8
    raw_kernel("neurips24.concepts", "seminmf_vstep.cu", "snmf_vstep")(
        (grid,), (threads,), (ZUt, cp.ascontiguousarray(G), V0d, V, np.int64(M), np.int32(K), np.float64(alpha),
                              np.float64(eta), np.int32(n_iter)), shared_mem=shared)
    return V


def kernel_parity(M: int = 512, D: int = 576, K: int = 20, n_iter: int = 300, seed: int = 0):
    """Largest |V_kernel − V_reference| on random data, or None without a GPU (the chapter's "On a GPU" cell)."""
    cp = cupy_or_none()
    if cp is None:
        return None
    rng = np.random.default_rng(seed)
    U = rng.normal(size=(K, D))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    Z = np.maximum(rng.normal(size=(M, K)), 0) @ U + 0.1 * rng.normal(size=(M, D))
    ref = encode_nonneg(Z, U, 1.0, n_iter=n_iter, tol=0.0)
    got = cp.asnumpy(encode_nonneg_gpu(Z, U, 1.0, n_iter=n_iter))
    return float(np.max(np.abs(got - ref)))


def bench_snmf_vstep(M: int = 4096, D: int = 576, K: int = 20, n_iter: int = 200, repeats: int = 3,
                     seed: int = 0) -> list:
    """Time the V-step: NumPy reference (CPU), CuPy array operations, and the kernel (GPU).

    Rows are (name, seconds per V-step, bytes), like ``benchmarks/kernels.py``'s other entries; bytes = Z read once
    plus V read and written once per iteration (the traffic of the unfused loop).

    Raises
    ------
    ValueError if a size or ``repeats`` is below 1.
    """
    if min(M, D, K, n_iter, repeats) < 1:
        raise ValueError("M, D, K, n_iter and repeats must be >= 1")
    rng = np.random.default_rng(seed)
    U = rng.normal(size=(K, D))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    Z = _check_Z(np.maximum(rng.normal(size=(M, K)), 0) @ U + 0.1 * rng.normal(size=(M, D)))
    nbytes = 8.0 * (M * D + 3 * M * K * n_iter)
    rows = []
    t0 = time.perf_counter()
    for _ in range(repeats):
        encode_nonneg(Z, U, 1.0, n_iter=n_iter, tol=0.0)
    rows.append(("concepts V-step, NumPy (CPU)", (time.perf_counter() - t0) / repeats, nbytes))
    cp = cupy_or_none()
    if cp is None:
        return rows
    Zd, Ud = cp.asarray(Z), cp.asarray(U)

    def cupy_ops():
        G, ZUt = Ud @ Ud.T, Zd @ Ud.T
        eta = 1.0 / float(cp.linalg.eigvalsh(G)[-1])
        V = cp.zeros((M, K))
        Y, t = V.copy(), 1.0
        for _ in range(n_iter):
            V_new = cp.maximum(Y - eta * (Y @ G - ZUt + 1.0), 0.0)
            t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
            Y = V_new + ((t - 1.0) / t_new) * (V_new - V)
            V, t = V_new, t_new
        return V

    for name, fn in (("concepts V-step, CuPy array ops (GPU)", cupy_ops),
                     ("concepts V-step, snmf_vstep kernel (GPU)", lambda: encode_nonneg_gpu(Zd, Ud, 1.0, n_iter))):
        fn()
        cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        for _ in range(repeats):
            fn()
        cp.cuda.Device().synchronize()
        rows.append((name, (time.perf_counter() - t0) / repeats, nbytes))
    return rows
