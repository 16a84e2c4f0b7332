"""A CUDA kernel for TTD's per-pixel weights and the weighted feature fusion (book's own), beside its reference.

``rd_fuse.cu`` computes, one thread per pixel, ω_m = M · Softmax_m(exp(−γ ℓ_m)) (paper Eq. 6 in the code's
form) and the fused features (1/M) Σ_m ω_m h_{m,c} for every channel c, reading the losses and features once.
:func:`rd_fuse_reference` is the same computation in NumPy (through :func:`~neurips24.ttd.weights.rd_weights`).
In the chapter these are three element-wise torch operations on small tensors and the kernel does not pay; it
is here for the book's kernel pattern (compile test without a GPU, parity and benchmark with one). Without CuPy
and a GPU only the reference runs.
"""
from __future__ import annotations

import numpy as np

from ..backend import cupy_or_none
from .weights import _check_gamma, rd_weights

MAX_SOURCES = 8


def _check(loss, features):
    ell = np.asarray(loss, dtype=np.float32)
    h = np.asarray(features, dtype=np.float32)
    if ell.ndim != 2 or not 2 <= ell.shape[0] <= MAX_SOURCES:
        raise ValueError(f"loss must be (M, P) with 2 <= M <= {MAX_SOURCES}, got shape {ell.shape}")
    if h.ndim != 3 or h.shape[0] != ell.shape[0] or h.shape[2] != ell.shape[1]:
        raise ValueError(f"features must be (M, C, P) = ({ell.shape[0]}, C, {ell.shape[1]}), got shape {h.shape}")
    if not (np.all(np.isfinite(ell)) and np.all(np.isfinite(h))) or ell.min() < 0:
        raise ValueError("loss must be finite and >= 0, features finite")
    return ell, h


def rd_fuse_reference(loss, features, gamma: float = 50.0) -> tuple[np.ndarray, np.ndarray]:
    """ω = M · Softmax_m(exp(−γ ℓ)) per pixel and the fused features (1/M) Σ_m ω_m h_m.

    Parameters
    ----------
    loss : (M, P) finite float ≥ 0, 2 ≤ M ≤ 8 (P pixels, flattened).
    features : (M, C, P) finite float.
    gamma : γ > 0.

    Returns
    -------
    weights (M, P) float32, fused (C, P) float32.

    Raises
    ------
    ValueError for shapes that do not match, non-finite or negative losses, M outside [2, 8], γ ≤ 0.
    """
    ell, h = _check(loss, features)
    w = rd_weights(ell[:, None, :], _check_gamma(gamma), "exp")[:, 0, :]
    return w.astype(np.float32), (np.einsum("mp,mcp->cp", w, h) / ell.shape[0]).astype(np.float32)


def rd_fuse_kernel(loss, features, gamma: float = 50.0, block: int = 256):
    """The same as :func:`rd_fuse_reference`, from one launch of ``rd_fuse`` (CuPy arrays out).

    Raises
    ------
    RuntimeError without CuPy and a GPU; ValueError as :func:`rd_fuse_reference`.
    """
    cp = cupy_or_none()
    if cp is None:
        raise RuntimeError("the rd_fuse kernel needs CuPy and a CUDA GPU")
    from ..cuda import raw_kernel

    gamma = _check_gamma(gamma)
    ell = cp.ascontiguousarray(cp.asarray(loss, dtype=cp.float32))
    h = cp.ascontiguousarray(cp.asarray(features, dtype=cp.float32))
    if ell.ndim != 2 or not 2 <= ell.shape[0] <= MAX_SOURCES or h.ndim != 3 or h.shape[0] != ell.shape[0] \
            or h.shape[2] != ell.shape[1]:
        raise ValueError(f"need loss (M, P) with 2 <= M <= {MAX_SOURCES} and features (M, C, P), got {ell.shape}, "
                         f"{h.shape}")
    if not (bool(cp.isfinite(ell).all()) and bool(cp.isfinite(h).all())) or float(ell.min()) < 0:
        raise ValueError("loss must be finite and >= 0, features finite")
    M, C, P = h.shape
    w, fused = cp.empty((M, P), cp.float32), cp.empty((C, P), cp.float32)
    raw_kernel("neurips24.ttd", "rd_fuse.cu", "rd_fuse")(
        ((P + block - 1) // block,), (block,),
        (ell, h, np.int64(P), np.int32(M), np.int32(C), np.float32(gamma), w, fused))
    return w, fused


def _case(P: int, C: int, M: int = 2, seed: int = 0):
    rng = np.random.default_rng(seed)
    return (rng.random((M, P)) * 0.05).astype(np.float32), rng.standard_normal((M, C, P)).astype(np.float32)


def kernel_parity(P: int = 160 * 160, C: int = 8, seed: int = 0) -> dict | None:
    """Largest relative gap between kernel and reference on random inputs, and the speed of both.

    Returns
    -------
    None without CuPy and a GPU; else a dict with 'weights' and 'fused' (max relative errors, expected
    ≲ 1e-5 in float32), 'numpy_ms' (reference on the CPU) and 'gpu_ms' (the kernel).
    """
    cp = cupy_or_none()
    if cp is None:
        return None
    from ..timing import best_time

    ell, h = _case(P, C, seed=seed)
    w_ref, f_ref = rd_fuse_reference(ell, h)
    w, f = (cp.asnumpy(a) for a in rd_fuse_kernel(ell, h))
    out = {"weights": float(np.max(np.abs(w - w_ref) / (np.abs(w_ref) + 1e-6))),
           "fused": float(np.max(np.abs(f - f_ref) / (np.abs(f_ref) + 1e-3)))}
    ell_d, h_d = cp.asarray(ell), cp.asarray(h)
    out["numpy_ms"] = 1e3 * best_time(lambda: rd_fuse_reference(ell, h))
    out["gpu_ms"] = 1e3 * best_time(lambda: rd_fuse_kernel(ell_d, h_d), cp.cuda.Device().synchronize)
    return out


def bench_rd_fuse(P: int = 160 * 160, C: int = 8, M: int = 2) -> list[tuple[str, float, float]]:
    """Time the NumPy reference and the kernel (GPU, when present) on P pixels, C channels, M sources.

    Returns
    -------
    list of (name, seconds per call, bytes read and written per call) rows; used by ``benchmarks/kernels.py``.
    """
    from ..timing import best_time

    ell, h = _case(P, C, M)
    nbytes = 4.0 * (M * P + M * C * P + M * P + C * P)
    size = f"P={P} C={C} M={M}"
    rows = [(f"ttd.rd_fuse numpy reference (CPU) {size}", best_time(lambda: rd_fuse_reference(ell, h), repeat=3),
             nbytes)]
    cp = cupy_or_none()
    if cp is not None:
        ell_d, h_d = cp.asarray(ell), cp.asarray(h)
        rows.append((f"ttd.rd_fuse cuda kernel (GPU) {size}",
                     best_time(lambda: rd_fuse_kernel(ell_d, h_d), cp.cuda.Device().synchronize), nbytes))
    return rows
