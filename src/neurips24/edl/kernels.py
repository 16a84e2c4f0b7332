"""A fused CUDA kernel for the evidential loss, its gradient and the uncertainty decomposition (book's own).

``edl_fused.cu`` does, in one pass over the logits and one thread per row, what the training and the analysis
otherwise do in a dozen torch operations: α = exp(f), the reverse-KL loss of the unified objective (paper
eq. (6)) to the target α_prior + e_y/λ, its gradient with respect to the logits,

    ∂loss/∂f_c = α_c [ (α_c − β_c) ψ'(α_c) − (α₀ − β₀) ψ'(α₀) ],

and α₀ with the aleatoric and epistemic uncertainties. CUDA has ln Γ but no ψ or ψ': the kernel computes them
by recurrence and an asymptotic series, which :func:`digamma_series` and :func:`trigamma_series` transcribe so
that the tests can check the series against SciPy, and :func:`fused_numpy` transcribes the whole kernel in
NumPy. The reference, :func:`fused_reference`, is torch (torch.special) for the loss and the decomposition and
the closed form with SciPy's ψ' for the gradient. Without CuPy or a GPU only the reference runs.
"""
from __future__ import annotations

import numpy as np
import torch

from ..backend import cupy_or_none
from .dirichlet import _aleatoric, _kl, _total
from .objectives import _check_logits, check_lam

__all__ = ["digamma_series", "trigamma_series", "fused_numpy", "fused_reference", "fused_kernel", "kernel_parity",
           "bench_edl_fused"]


def _digamma_kernel(x: np.ndarray) -> np.ndarray:
    """``digamma_pos`` of ``edl_fused.cu``, elementwise on a float64 array of x > 0, operation for operation."""
    x = np.array(x, dtype=np.float64)
    acc = np.zeros_like(x)
    while (low := x < 10.0).any():
        acc[low] -= 1.0 / x[low]
        x[low] += 1.0
    r = 1.0 / x
    r2 = r * r
    series = r2 * (1.0 / 12.0 - r2 * (1.0 / 120.0 - r2 * (1.0 / 252.0 - r2 * (1.0 / 240.0 - r2 * (
        1.0 / 132.0 - r2 * (691.0 / 32760.0 - r2 * (1.0 / 12.0)))))))
    return acc + np.log(x) - 0.5 * r - series


def _trigamma_kernel(x: np.ndarray) -> np.ndarray:
    """``trigamma_pos`` of ``edl_fused.cu``, elementwise on a float64 array of x > 0, operation for operation."""
    x = np.array(x, dtype=np.float64)
    acc = np.zeros_like(x)
    while (low := x < 10.0).any():
        acc[low] += 1.0 / (x[low] * x[low])
        x[low] += 1.0
    r = 1.0 / x
    r2 = r * r
    series = r + 0.5 * r2 + r * r2 * (1.0 / 6.0 - r2 * (1.0 / 30.0 - r2 * (1.0 / 42.0 - r2 * (1.0 / 30.0 - r2 * (
        5.0 / 66.0 - r2 * (691.0 / 2730.0 - r2 * (7.0 / 6.0)))))))
    return acc + series


def digamma_series(x: float) -> float:
    """ψ(x) for x > 0 as the kernel computes it: ψ(x) = ψ(x + 1) − 1/x up to x ≥ 10, then the asymptotic series
    ln x − 1/(2x) − Σ_{k=1..7} B_2k / (2k x^2k) (truncation below 1e-16 at x ≥ 10).

    Raises
    ------
    ValueError for x ≤ 0 (or NaN).
    """
    if not x > 0:
        raise ValueError(f"x must be > 0, got {x!r}")
    return float(_digamma_kernel(np.float64(x)))


def trigamma_series(x: float) -> float:
    """ψ'(x) for x > 0 as the kernel computes it: recurrence ψ'(x) = ψ'(x + 1) + 1/x² up to x ≥ 10, then the
    series 1/x + 1/(2x²) + Σ_{k=1..7} B_2k / x^(2k+1) (truncation below 1e-16 at x ≥ 10).

    Raises
    ------
    ValueError for x ≤ 0 (or NaN).
    """
    if not x > 0:
        raise ValueError(f"x must be > 0, got {x!r}")
    return float(_trigamma_kernel(np.float64(x)))


def fused_numpy(logits, labels, lam: float, prior: float = 1.0) -> dict:
    """``edl_fused`` transcribed in NumPy, line for line (one row per array lane instead of per thread), with
    SciPy's ``gammaln`` for CUDA's ``lgamma``: the kernel's arithmetic on a CPU, for the tests.

    Parameters and returns as :func:`fused_reference`; raises as it does.
    """
    from scipy.special import gammaln

    f, y, lam, prior = _check_inputs(logits, labels, lam, prior)
    f, y = f.detach().double().numpy(), y.numpy()
    nu = 1.0 / lam
    C = f.shape[1]
    alpha0 = np.zeros(f.shape[0])
    for c in range(C):
        alpha0 += np.exp(f[:, c])
    beta0 = C * prior + nu
    psi0, psi0p1, tri0 = _digamma_kernel(alpha0), _digamma_kernel(alpha0 + 1.0), _trigamma_kernel(alpha0)
    kl = gammaln(alpha0) - gammaln(beta0)
    grad = np.empty_like(f)
    total, aleatoric = np.zeros(f.shape[0]), np.zeros(f.shape[0])
    for c in range(C):
        a = np.exp(f[:, c])
        b = prior + np.where(y == c, nu, 0.0)
        kl += gammaln(b) - gammaln(a) + (a - b) * (_digamma_kernel(a) - psi0)
        grad[:, c] = a * ((a - b) * _trigamma_kernel(a) - (alpha0 - beta0) * tri0)
        p = a / alpha0
        total -= p * np.log(p)
        aleatoric -= p * (_digamma_kernel(a + 1.0) - psi0p1)
    return {"loss": kl, "grad": grad, "alpha0": alpha0, "aleatoric": aleatoric, "epistemic": total - aleatoric}


def _check_inputs(logits, labels, lam, prior):
    f = _check_logits(logits)
    if f.ndim != 2:
        raise ValueError(f"logits must have shape (n, C), got {tuple(f.shape)}")
    y = torch.as_tensor(np.asarray(labels) if not isinstance(labels, torch.Tensor) else labels)
    if y.shape != f.shape[:1] or y.dtype.is_floating_point or y.dtype == torch.bool:
        raise ValueError(f"labels must be (n,) integers matching the logits' {f.shape[0]} rows, got "
                         f"{y.dtype} {tuple(y.shape)}")
    if y.numel() and (int(y.min()) < 0 or int(y.max()) >= f.shape[1]):
        raise ValueError(f"labels must lie in [0, {f.shape[1]}) (class count mismatch?)")
    return f, y.long(), check_lam(lam), check_lam(prior, "prior")


def fused_reference(logits, labels, lam: float, prior: float = 1.0) -> dict:
    """What the kernel computes, in torch: loss, gradient, α₀, aleatoric, epistemic per row (float64 NumPy).

    Parameters
    ----------
    logits : (n, C) finite floats.   labels : (n,) integers in [0, C).   lam : λ > 0.   prior : α_prior > 0.

    Returns
    -------
    dict of NumPy arrays: 'loss' (n,) nats, 'grad' (n, C) = ∂loss/∂logits, 'alpha0' (n,), 'aleatoric' (n,),
    'epistemic' (n,) nats. The gradient is the closed form α_c[(α_c − β_c) ψ'(α_c) − (α₀ − β₀) ψ'(α₀)] with
    SciPy's ψ' (exact to a few ulps), not torch autograd: autograd differentiates ``torch.special.digamma``
    with torch's own ψ', whose short series (shift by 6, four terms) is off by up to 5e-10 relative near
    x = 1, and the cancellation between the two terms (each of size ~1/λ) turns that into relative gaps of
    1e-6 in the gradient. The tests check the closed form against autograd (to torch's accuracy), against
    central differences and against a 40-digit mpmath derivative.

    Raises
    ------
    ValueError for NaN/inf logits, a shape or class-count mismatch, λ ≤ 0 or α_prior ≤ 0.
    """
    from scipy.special import polygamma

    f, y, lam, prior = _check_inputs(logits, labels, lam, prior)
    with torch.no_grad():
        alpha = torch.exp(f.double())
        target = prior + torch.nn.functional.one_hot(y, f.shape[1]).double() / lam
        loss = _kl(alpha, target)
        total, aleatoric = _total(alpha), _aleatoric(alpha)
    a, b = alpha.numpy(), target.numpy()
    a0, b0 = a.sum(-1, keepdims=True), b.sum(-1, keepdims=True)
    grad = a * ((a - b) * polygamma(1, a) - (a0 - b0) * polygamma(1, a0))
    return {"loss": loss.numpy(), "grad": grad, "alpha0": a0[:, 0], "aleatoric": aleatoric.numpy(),
            "epistemic": (total - aleatoric).numpy()}


def fused_kernel(logits, labels, lam: float, prior: float = 1.0, block: int = 256) -> dict:
    """The same quantities as :func:`fused_reference`, from one launch of ``edl_fused`` (CuPy arrays out).

    Raises
    ------
    RuntimeError without CuPy and a GPU; ValueError as :func:`fused_reference`.
    """
    cp = cupy_or_none()
    if cp is None:
        raise RuntimeError("the fused kernel needs CuPy and a CUDA GPU")
    from ..cuda import raw_kernel

    lam, prior = check_lam(lam), check_lam(prior, "prior")
    f = cp.ascontiguousarray(cp.asarray(logits, dtype=cp.float64))
    y = cp.asarray(labels)
    if f.ndim != 2 or f.shape[1] < 2:
        raise ValueError(f"logits must have shape (n, C) with C >= 2, got {f.shape}")
    if not bool(cp.isfinite(f).all()):
        raise ValueError("logits must be finite (no NaN or inf)")
    if y.shape != f.shape[:1] or y.dtype.kind not in "iu":
        raise ValueError(f"labels must be (n,) integers matching the logits' {f.shape[0]} rows")
    if y.size and (int(y.min()) < 0 or int(y.max()) >= f.shape[1]):
        raise ValueError(f"labels must lie in [0, {f.shape[1]}) (class count mismatch?)")
    y = cp.ascontiguousarray(y, dtype=cp.int64)
    n, C = f.shape
    out = {"loss": cp.empty(n), "grad": cp.empty((n, C)), "alpha0": cp.empty(n), "aleatoric": cp.empty(n),
           "epistemic": cp.empty(n)}
    kernel = raw_kernel("neurips24.edl", "edl_fused.cu", "edl_fused")
    kernel(((n + block - 1) // block,), (block,),
           (f, y, np.int64(n), np.int32(C), np.float64(1.0 / lam), np.float64(prior), out["loss"], out["grad"],
            out["alpha0"], out["aleatoric"], out["epistemic"]))
    return out


def kernel_parity(n: int = 4096, C: int = 10, lam: float = 0.01, seed: int = 0) -> dict | None:
    """Largest relative gap between kernel and reference on random logits, and the speed of both.

    Returns
    -------
    None without CuPy and a GPU; else a dict: for each output the max relative error, plus 'torch_ms'
    (reference on the CPU) and 'gpu_ms' (the kernel).
    """
    cp = cupy_or_none()
    if cp is None:
        return None
    from ..timing import best_time

    rng = np.random.default_rng(seed)
    f = rng.normal(scale=3.0, size=(n, C))
    y = rng.integers(0, C, size=n)
    ref = fused_reference(f, y, lam)
    got = {k: cp.asnumpy(v) for k, v in fused_kernel(f, y, lam).items()}
    out = {k: float(np.max(np.abs(got[k] - ref[k]) / (np.abs(ref[k]) + 1e-12))) for k in ref}
    f_d, y_d = cp.asarray(f), cp.asarray(y)
    out["torch_ms"] = 1e3 * best_time(lambda: fused_reference(f, y, lam))
    out["gpu_ms"] = 1e3 * best_time(lambda: fused_kernel(f_d, y_d, lam), cp.cuda.Device().synchronize)
    return out


def bench_edl_fused(n: int = 100_000, C: int = 10, lam: float = 0.01,
                    seed: int = 0) -> list[tuple[str, float, float]]:
    """Time the reference (torch on the CPU) and the kernel (GPU, when present) on n rows of C logits.

    Returns
    -------
    list of (name, seconds per call, bytes read and written per call) rows; used by ``benchmarks/kernels.py``.
    """
    from ..timing import best_time

    rng = np.random.default_rng(seed)
    f = rng.normal(scale=3.0, size=(n, C))
    y = rng.integers(0, C, size=n)
    nbytes = 8.0 * (2 * n * C + 5 * n)
    size = f"n={n} C={C}"
    rows = [(f"edl.fused torch reference (CPU) {size}", best_time(lambda: fused_reference(f, y, lam), repeat=3),
             nbytes)]
    cp = cupy_or_none()
    if cp is not None:
        f_d, y_d = cp.asarray(f), cp.asarray(y)
        rows.append((f"edl.fused cuda kernel (GPU) {size}",
                     best_time(lambda: fused_kernel(f_d, y_d, lam), cp.cuda.Device().synchronize), nbytes))
    return rows
