"""GPU path of the codec: the integer residual and the FFT solve on CuPy, beside their NumPy references.

- ``residual_gpu(q, f, stencil)``: ``f − K q`` by the CUDA kernel ``melloc_residual`` (exact int64); reference
  :func:`residual_reference` (``stencil.apply_stencil``).
- ``solve_periodic_gpu(f, stencil, anchor)``: the decode solve with ``cupy.fft.rfft2``/``irfft2`` and the kernel
  ``melloc_divide`` for the spectral division; reference :func:`neurips24.melloc.stencil.solve_periodic`.
  Both stop only when the exact integer residual is zero, so their outputs are identical bit for bit.
"""
from __future__ import annotations

import time

import numpy as np

from ..backend import cupy_or_none
from ..cuda import raw_kernel
from .stencil import LAPLACE5, SolveError, apply_stencil, solve_periodic

_BLOCK = (32, 8, 1)


def _grid(H: int, W: int) -> tuple[int, int, int]:
    return ((W + _BLOCK[0] - 1) // _BLOCK[0], (H + _BLOCK[1] - 1) // _BLOCK[1], 1)


def residual_reference(q: np.ndarray, f: np.ndarray | None, stencil) -> np.ndarray:
    """NumPy reference of the kernel: ``f − K q`` (or ``−K q`` when ``f`` is None), int64 (H, W)."""
    k = apply_stencil(np.asarray(q, dtype=np.int64), stencil)
    return -k if f is None else np.asarray(f, dtype=np.int64) - k


def residual_gpu(q, f, stencil):
    """``f − K q`` on the GPU (CuPy int64 arrays (H, W); ``f`` may be None → ``−K q``; ``stencil`` a 3×3
    integer template): a CuPy int64 array."""
    import cupy as cp

    q = cp.ascontiguousarray(q, dtype=cp.int64)
    H, W = q.shape
    r = cp.empty_like(q)
    f_arg = cp.ascontiguousarray(f, dtype=cp.int64) if f is not None else cp.zeros_like(q)
    raw_kernel("neurips24.melloc", "melloc.cu", "melloc_residual")(
        _grid(H, W), _BLOCK, (q, f_arg, r, np.int32(H), np.int32(W),
                              cp.asarray(np.asarray(stencil, dtype=np.int64).ravel())))
    return r


def solve_periodic_gpu(f, stencil, anchor: int, max_iter: int = 8) -> np.ndarray:
    """GPU version of :func:`neurips24.melloc.stencil.solve_periodic`; returns a NumPy array of ``f``'s dtype.

    Raises
    ------
    RuntimeError without CuPy/GPU; SolveError if the residual is not exactly zero after ``max_iter`` passes.
    """
    cp = cupy_or_none()
    if cp is None:
        raise RuntimeError("solve_periodic_gpu needs CuPy and a CUDA GPU")
    out_dtype = np.asarray(f).dtype
    f_d = cp.asarray(np.asarray(f, dtype=np.int64))
    H, W = f_d.shape
    divide = raw_kernel("neurips24.melloc", "melloc.cu", "melloc_divide")
    m_f = cp.asarray(np.asarray(stencil, dtype=np.float64).ravel())
    q = cp.full((H, W), anchor, dtype=cp.int64)
    r = f_d
    for _ in range(max_iter):
        spec = cp.ascontiguousarray(cp.fft.rfft2(r.astype(cp.float64)))
        divide(_grid(H, W // 2 + 1), _BLOCK, (spec, np.int32(H), np.int32(W), m_f))
        d = cp.fft.irfft2(spec, s=(H, W))
        q += cp.rint(d - d[0, 0]).astype(cp.int64)
        r = residual_gpu(q, f_d, stencil)
        if not bool(r.any()):
            return cp.asnumpy(q).astype(out_dtype)
    raise SolveError(f"the GPU FFT solve did not reach the exact integers in {max_iter} passes")


def kernel_check(n: int = 512, seed: int = 0) -> dict | None:
    """Run both kernels against the NumPy reference on a Poisson field; None without a GPU.

    Returns
    -------
    dict with ``residual_equal`` and ``solve_equal`` (bitwise), and ``numpy_ms`` / ``gpu_ms`` for the solve.
    """
    cp = cupy_or_none()
    if cp is None:
        return None
    from ..timing import best_time
    from .fields import make_field
    from .intmap import float_to_int

    def timeit(fn, sync=None):
        return best_time(fn, sync, repeat=3)

    q, _, _, _ = float_to_int(make_field("poisson", n, np.float32, seed))
    f = apply_stencil(q, LAPLACE5)
    res_gpu = cp.asnumpy(residual_gpu(cp.asarray(q), None, LAPLACE5))
    t = time.perf_counter()
    ref = solve_periodic(f, LAPLACE5, int(q[0, 0]))
    numpy_ms = 1e3 * (time.perf_counter() - t)
    solve_periodic_gpu(f, LAPLACE5, int(q[0, 0]))
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    got = solve_periodic_gpu(f, LAPLACE5, int(q[0, 0]))
    gpu_ms = 1e3 * (time.perf_counter() - t)
    return {"residual_equal": bool(np.array_equal(res_gpu, -f)), "solve_equal": bool(np.array_equal(got, ref)),
            "numpy_ms": numpy_ms, "gpu_ms": gpu_ms}


def bench_melloc_kernels(sizes=(512,), seed: int = 0) -> list[tuple[str, float, float]]:
    """Time the residual and the solve: NumPy/SciPy (CPU) and the CUDA path (GPU, when present).

    Returns
    -------
    list of (name, seconds per call, bytes read and written per call) rows, for ``benchmarks/kernels.py``.
    """
    from ..timing import best_time
    from .fields import make_field
    from .intmap import float_to_int

    def timeit(fn, sync=None):
        return best_time(fn, sync, repeat=3)

    cp = cupy_or_none()
    rows = []
    for n in sizes:
        q, _, _, _ = float_to_int(make_field("poisson", n, np.float32, seed))
        f = apply_stencil(q, LAPLACE5)
        nbytes = 16.0 * q.size
        rows.append((f"melloc.residual numpy (CPU) n={n}", timeit(lambda q=q: apply_stencil(q, LAPLACE5)), nbytes))
        rows.append((f"melloc.solve scipy.fft (CPU) n={n}",
                     timeit(lambda f=f, q=q: solve_periodic(f, LAPLACE5, int(q[0, 0]))), nbytes))
        if cp is not None:
            q_d = cp.asarray(q)
            sync = cp.cuda.Device().synchronize
            rows.append((f"melloc.residual cuda kernel (GPU) n={n}",
                         timeit(lambda q_d=q_d: residual_gpu(q_d, None, LAPLACE5), sync), nbytes))
            rows.append((f"melloc.solve cupy.fft + kernel (GPU) n={n}",
                         timeit(lambda f=f, q=q: solve_periodic_gpu(f, LAPLACE5, int(q[0, 0])), sync), nbytes))
    return rows
