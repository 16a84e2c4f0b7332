"""Batched ridge regression + held-out R² for all features of all blocks at once, as CUDA kernels (``ridge_r2.cu``).

The complexity K (the chapter's Eq. fc-complexity) needs, for every block ℓ, the held-out R² of a ridge decoder from the
block's output to each of the k features: L ridge problems W_ℓ = (F_ℓᵀF_ℓ + λ n I)⁻¹ F_ℓᵀ Z with k right-hand
sides each. On a GPU the blocks are zero-padded to one width p and solved together: the Gram matrices and
right-hand sides by batched GEMM (CuPy), a Cholesky factorisation per block (``cholesky_batched``, one thread
block each), forward and backward substitution (``cho_solve_batched``, one thread per feature), the held-out
predictions by batched GEMM, and the clipped R² (``r2_clip_batched``, one thread per feature). The book's own
kernels; the reference is :func:`ridge_r2_numpy` (``numpy.linalg.solve``). :func:`decodability_any` picks the
kernels when CuPy sees a GPU and :func:`~neurips24.complexity.vinfo.decodability` (SciPy's Cholesky) otherwise,
so the chapter runs unchanged without one.
"""
from __future__ import annotations

import numpy as np

from ..backend import cupy_or_none
from ..checks import check_count
from .features import check_activations
from .vinfo import _standardise, check_split, decodability

__all__ = ["standardised_blocks", "ridge_r2_numpy", "cholesky_launch_numpy", "cho_solve_launch_numpy",
           "r2_clip_launch_numpy", "ridge_r2_pipeline", "ridge_r2_kernel", "decodability_any", "kernel_parity",
           "bench_ridge_r2"]

BLOCK = 128          # threads per block of the solve and R² kernels
CHOL_BLOCK = 256     # threads per block (one block per problem) of the Cholesky kernel


def standardised_blocks(blocks: dict, Z, train, test):
    """The inputs of the batched solve: every block and the features standardised on the fitting half.

    Parameters
    ----------
    blocks : dict name -> (n, p_ℓ) finite activations (one entry per block, in order).
    Z : (n, k) finite features. train, test : disjoint integer index arrays, each of size >= 2.

    Returns
    -------
    Ftr (L, n_tr, p), Fte (L, m, p), Ztr (n_tr, k), Zte (m, k) float64, with p = max_ℓ p_ℓ: each block is
    standardised with its fitting half's mean and standard deviation (as :func:`.vinfo.v_information`) and
    padded with zero columns.

    Raises
    ------
    ValueError for an empty ``blocks``, non-finite values, mismatched rows or a bad split.
    """
    if not isinstance(blocks, dict) or not blocks:
        raise ValueError("blocks must be a non-empty dict name -> (n, p) activations")
    Z = check_activations(Z, "Z")
    Fs = [check_activations(F, f"blocks[{name!r}]") for name, F in blocks.items()]
    for name, F in zip(blocks, Fs, strict=True):
        if F.shape[0] != Z.shape[0]:
            raise ValueError(f"blocks[{name!r}] and Z must have the same rows, got {F.shape[0]} and {Z.shape[0]}")
    train, test = check_split(train, test, Z.shape[0])
    p = max(F.shape[1] for F in Fs)
    Ftr = np.zeros((len(Fs), len(train), p))
    Fte = np.zeros((len(Fs), len(test), p))
    for i, F in enumerate(Fs):
        Ftr[i, :, :F.shape[1]], Fte[i, :, :F.shape[1]] = _standardise(F[train], F[test])
    Ztr, Zte = _standardise(Z[train], Z[test])
    return Ftr, Fte, Ztr, Zte


def _check_batch(Ftr, Ztr, Fte, Zte, lam, xp=np):
    arrays = [xp.asarray(a, dtype=xp.float64) for a in (Ftr, Ztr, Fte, Zte)]
    Ftr, Ztr, Fte, Zte = arrays
    if Ftr.ndim != 3 or Fte.ndim != 3 or Ztr.ndim != 2 or Zte.ndim != 2:
        raise ValueError("Ftr, Fte must be (L, n, p) and Ztr, Zte (n, k) arrays")
    if (Ftr.shape[0] != Fte.shape[0] or Ftr.shape[2] != Fte.shape[2] or Ftr.shape[1] != Ztr.shape[0]
            or Fte.shape[1] != Zte.shape[0] or Ztr.shape[1] != Zte.shape[1]):
        raise ValueError(f"shapes must match as Ftr (L, n, p), Ztr (n, k), Fte (L, m, p), Zte (m, k); got "
                         f"{Ftr.shape}, {Ztr.shape}, {Fte.shape}, {Zte.shape}")
    if min(Ftr.shape) < 1 or Fte.shape[1] < 2 or Ztr.shape[1] < 1:
        raise ValueError("need L, n, p, k >= 1 and at least 2 held-out rows")
    for nm, a in zip(("Ftr", "Ztr", "Fte", "Zte"), arrays, strict=True):
        if not bool(xp.isfinite(a).all()):
            raise ValueError(f"{nm} holds non-finite values (NaN or inf)")
    if isinstance(lam, bool) or not isinstance(lam, (int, float, np.floating, np.integer)) or \
            not (np.isfinite(lam) and lam > 0):
        raise ValueError(f"lam must be a finite number > 0, got {lam!r}")
    return Ftr, Ztr, Fte, Zte


def ridge_r2_numpy(Ftr, Ztr, Fte, Zte, lam: float = 1.0) -> np.ndarray:
    """The reference: for each problem ℓ, W = numpy.linalg.solve(Ftrᵀ Ftr + λ n I, Ftrᵀ Ztr), then the held-out R².

    Parameters
    ----------
    Ftr : (L, n, p), Fte : (L, m, p) float64 representations (fitting and held-out rows) of L problems.
    Ztr : (n, k), Zte : (m, k) the features, shared by all problems. lam : λ > 0, relative to n.

    Returns
    -------
    (L, k) float64 in [0, 1]: 1 - SSE/SST on the held-out rows (SST about their mean), clipped at 0; 0 where
    a feature is constant on the held-out rows.

    Raises
    ------
    ValueError for mismatched shapes, non-finite values or λ <= 0.
    """
    Ftr, Ztr, Fte, Zte = _check_batch(Ftr, Ztr, Fte, Zte, lam)
    n, p = Ftr.shape[1], Ftr.shape[2]
    A = np.swapaxes(Ftr, 1, 2) @ Ftr + lam * n * np.eye(p)
    W = np.linalg.solve(A, np.swapaxes(Ftr, 1, 2) @ Ztr)
    resid = Zte - Fte @ W
    sst = ((Zte - Zte.mean(0)) ** 2).sum(0)
    r2 = 1.0 - (resid ** 2).sum(1) / np.where(sst > 0, sst, 1.0)
    return np.where(sst > 0, np.clip(r2, 0.0, 1.0), 0.0)


# ---------------------------------------------------------------- NumPy transcriptions of the three launches
def cholesky_launch_numpy(A) -> np.ndarray:
    """What ``cholesky_batched`` computes, in NumPy, column by column as the kernel does: (L, p, p) -> the
    lower Cholesky factors (the strict upper triangle keeps A's values; NaN after a non-positive pivot).

    Per column j, the kernel's three phases between barriers: thread 0 takes the square root of the pivot
    (and shares it through shared memory), all threads divide column j below the diagonal by it, all threads
    update the trailing lower triangle. The kernel's ``A`` is not ``__restrict__``: with it, NVRTC loaded the
    pivot before the first barrier and threads other than 0 divided by the pivot before its square root (the
    H200's parity failures); a test checks the compiled PTX for that."""
    a = np.array(A, dtype=np.float64)
    p = a.shape[-1]
    for j in range(p):
        d = a[:, j, j].copy()
        a[:, j, j] = np.where(d > 0, np.sqrt(np.where(d > 0, d, 1.0)), np.nan)
        a[:, j + 1:, j] /= a[:, j, j][:, None]
        col = a[:, j + 1:, j]
        a[:, j + 1:, j + 1:] -= np.tril(col[:, :, None] * col[:, None, :])
    return a


def cho_solve_launch_numpy(Lf, B) -> np.ndarray:
    """What ``cho_solve_batched`` computes: A⁻¹ B from the lower factors (L, p, p), B (L, p, k), by forward
    and backward substitution row by row (all columns at once, as the kernel's threads)."""
    Lf, b = np.asarray(Lf, dtype=np.float64), np.array(B, dtype=np.float64)
    p = Lf.shape[-1]
    for i in range(p):
        b[:, i] = (b[:, i] - np.einsum("lt,ltk->lk", Lf[:, i, :i], b[:, :i])) / Lf[:, i, i][:, None]
    for i in range(p - 1, -1, -1):
        b[:, i] = (b[:, i] - np.einsum("lt,ltk->lk", Lf[:, i + 1:, i], b[:, i + 1:])) / Lf[:, i, i][:, None]
    return b


def r2_clip_launch_numpy(Zte, P) -> np.ndarray:
    """What ``r2_clip_batched`` computes: (m, k) held-out features and (L, m, k) predictions -> (L, k)."""
    Zte, P = np.asarray(Zte, dtype=np.float64), np.asarray(P, dtype=np.float64)
    sst = ((Zte - Zte.mean(0)) ** 2).sum(0)
    sse = ((Zte - P) ** 2).sum(1)
    r2 = np.where(sst > 0, 1.0 - sse / np.where(sst > 0, sst, 1.0), 0.0)
    return np.clip(r2, 0.0, 1.0)


def ridge_r2_pipeline(Ftr, Ztr, Fte, Zte, lam, cholesky, cho_solve, r2_clip, xp=np):
    """The kernel path with the three launches passed in: batched GEMMs (``xp.matmul``), ``cholesky``,
    ``cho_solve``, GEMM, ``r2_clip``. With the NumPy transcriptions it runs the kernel's algorithm on a CPU.

    Raises
    ------
    ValueError as :func:`ridge_r2_numpy`, and if a Gram matrix is not positive definite (NaN pivot).
    """
    Ftr, Ztr, Fte, Zte = _check_batch(Ftr, Ztr, Fte, Zte, lam, xp)
    n, p = Ftr.shape[1], Ftr.shape[2]
    Ft = xp.swapaxes(Ftr, 1, 2)
    A = xp.ascontiguousarray(Ft @ Ftr + lam * n * xp.eye(p))
    B = xp.ascontiguousarray(Ft @ Ztr)
    Lf = cholesky(A)
    if not bool(xp.isfinite(xp.diagonal(Lf, axis1=1, axis2=2)).all()):
        raise ValueError("a ridge Gram matrix is not positive definite")
    W = cho_solve(Lf, B)
    return r2_clip(Zte, xp.ascontiguousarray(Fte @ W))


def _kernel_launches(cp):
    from ..cuda import raw_kernel

    chol = raw_kernel("neurips24.complexity", "ridge_r2.cu", "cholesky_batched")
    solve = raw_kernel("neurips24.complexity", "ridge_r2.cu", "cho_solve_batched")
    r2 = raw_kernel("neurips24.complexity", "ridge_r2.cu", "r2_clip_batched")

    def cholesky(A):
        A = A.copy()
        chol((A.shape[0],), (CHOL_BLOCK,), (A, np.int32(A.shape[-1])))
        return A

    def cho_solve(Lf, B):
        B = B.copy()
        k = B.shape[-1]
        solve(((k + BLOCK - 1) // BLOCK, B.shape[0]), (BLOCK,), (Lf, B, np.int32(B.shape[1]), np.int32(k)))
        return B

    def r2_clip(Zte, P):
        Zte = cp.ascontiguousarray(Zte)
        out = cp.empty((P.shape[0], P.shape[2]))
        k = P.shape[2]
        r2(((k + BLOCK - 1) // BLOCK, P.shape[0]), (BLOCK,), (Zte, P, out, np.int32(P.shape[1]), np.int32(k)))
        return out

    return cholesky, cho_solve, r2_clip


def ridge_r2_kernel(Ftr, Ztr, Fte, Zte, lam: float = 1.0):
    """:func:`ridge_r2_numpy` through the kernels of ``ridge_r2.cu``: a CuPy (L, k) float64 array.

    Raises
    ------
    RuntimeError without CuPy and a GPU; ValueError as :func:`ridge_r2_pipeline`.
    """
    cp = cupy_or_none()
    if cp is None:
        raise RuntimeError("the ridge_r2 kernels need CuPy and a CUDA GPU")
    return ridge_r2_pipeline(Ftr, Ztr, Fte, Zte, lam, *_kernel_launches(cp), xp=cp)


def decodability_any(blocks: dict, Z, train, test, lam: float = 1.0) -> np.ndarray:
    """I_V(f_ℓ -> z_j) for every block and feature, (n_blocks, k) NumPy: the kernels on a GPU, else
    :func:`~neurips24.complexity.vinfo.decodability` (the same numbers to rounding; arguments and errors as there)."""
    if cupy_or_none() is None:
        return decodability(blocks, Z, train, test, lam)
    Ftr, Fte, Ztr, Zte = standardised_blocks(blocks, Z, train, test)
    return ridge_r2_kernel(Ftr, Ztr, Fte, Zte, lam).get()


def _case(n: int, p: int, k: int, L: int, seed: int):
    rng = np.random.default_rng(seed)
    F = rng.normal(size=(L, 2 * n, p))
    Z = F[0, :, : min(p, k)].sum(1, keepdims=True) + rng.normal(size=(2 * n, k))
    return F[:, :n], Z[:n], F[:, n:], Z[n:]


def kernel_parity(n: int = 256, p: int = 320, k: int = 64, L: int = 16, seed: int = 0) -> dict | None:
    """Largest gap between the kernels and :func:`ridge_r2_numpy` on random data, and the time of both.

    Returns
    -------
    None without CuPy and a GPU; else {'max_abs_gap': max |kernel − reference| over the (L, k) R² values,
    'numpy_ms': the reference on the CPU, 'gpu_ms': the kernels on data already on the device}.
    """
    cp = cupy_or_none()
    if cp is None:
        return None
    from ..timing import best_time

    args = _case(n, p, k, L, seed)
    ref = ridge_r2_numpy(*args, lam=0.1)
    got = ridge_r2_kernel(*args, lam=0.1).get()
    dev = [cp.asarray(a) for a in args]
    return {"max_abs_gap": float(np.max(np.abs(got - ref))),
            "numpy_ms": 1e3 * best_time(lambda: ridge_r2_numpy(*args, lam=0.1), repeat=3),
            "gpu_ms": 1e3 * best_time(lambda: ridge_r2_kernel(*dev, lam=0.1), cp.cuda.Device().synchronize,
                                      repeat=3)}


def bench_ridge_r2(n: int = 256, p: int = 320, k: int = 64, L: int = 16,
                   seed: int = 0) -> list[tuple[str, float, float]]:
    """Time the decodability of k features from L blocks of width p (n fitting and n held-out inputs): the
    NumPy reference (CPU) and the kernels (GPU, when present).

    Returns
    -------
    list of (name, seconds, bytes of F and Z read) rows; used by ``benchmarks/kernels.py``.

    Raises
    ------
    ValueError for n < 2 or p, k, L < 1.
    """
    from ..timing import best_time

    n, p, k, L = check_count("n", n), check_count("p", p), check_count("k", k), check_count("L", L)
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    args = _case(n, p, k, L, seed)
    nbytes = 8.0 * (2 * L * n * p + 2 * n * k)
    size = f"L={L} n={n} p={p} k={k}"
    rows = [(f"complexity.ridge_r2 numpy.linalg.solve (CPU) {size}",
             best_time(lambda: ridge_r2_numpy(*args, lam=0.1), repeat=3), nbytes)]
    cp = cupy_or_none()
    if cp is not None:
        dev = [cp.asarray(a) for a in args]
        rows.append((f"complexity.ridge_r2 cuda kernels (GPU) {size}",
                     best_time(lambda: ridge_r2_kernel(*dev, lam=0.1), cp.cuda.Device().synchronize), nbytes))
    return rows
