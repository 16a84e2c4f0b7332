"""A fused CUDA kernel for the evidential loss, its gradient and the uncertainty decomposition (book's own).

``edl_fused.cu`` does, in one pass over the logits and one thread per row, what the training and the analysis
otherwise do in a dozen torch operations: α = exp(f), the reverse-KL loss of the unified objective (paper
eq. (6)) to the target α_prior + e_y/λ, its gradient with respect to the logits,

    ∂loss/∂f_c = α_c [ (α_c − β_c) ψ'(α_c) − (α₀ − β₀) ψ'(α₀) ],

and α₀ with the aleatoric and epistemic uncertainties. CUDA has ln Γ but no ψ or ψ': the kernel computes them
by recurrence and an asymptotic series, which :func:`digamma_series` and :func:`trigamma_series` transcribe so
that the tests can check the series against SciPy. The reference, :func:`fused_reference`, is torch
(torch.special, and autograd for the gradient). Without CuPy or a GPU only the reference runs.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from ..backend import cupy_or_none
from .dirichlet import _aleatoric, _kl, _total
from .objectives import _check_logits, check_lam

__all__ = ["digamma_series", "trigamma_series", "fused_reference", "fused_kernel", "kernel_parity",
           "bench_edl_fused"]


def digamma_series(x: float) -> float:
    """ψ(x) for x > 0 as the kernel computes it: ψ(x) = ψ(x + 1) − 1/x up to x ≥ 10, then the asymptotic series."""
    if not x > 0:
        raise ValueError(f"x must be > 0, got {x!r}")
    acc = 0.0
    while x < 10.0:
        acc -= 1.0 / x
        x += 1.0
    r2 = 1.0 / (x * x)
    series = r2 * (1 / 12 - r2 * (1 / 120 - r2 * (1 / 252 - r2 * (1 / 240 - r2 * (1 / 132)))))
    return acc + math.log(x) - 0.5 / x - series


def trigamma_series(x: float) -> float:
    """ψ'(x) for x > 0 as the kernel computes it (recurrence ψ'(x) = ψ'(x + 1) + 1/x², then the series)."""
    if not x > 0:
        raise ValueError(f"x must be > 0, got {x!r}")
    acc = 0.0
    while x < 10.0:
        acc += 1.0 / (x * x)
        x += 1.0
    r = 1.0 / x
    r2 = r * r
    return acc + r + 0.5 * r2 + r * r2 * (1 / 6 - r2 * (1 / 30 - r2 * (1 / 42 - r2 * (1 / 30 - r2 * (5 / 66)))))


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
    dict of NumPy arrays: 'loss' (n,) nats, 'grad' (n, C) = ∂loss/∂logits (autograd), 'alpha0' (n,),
    'aleatoric' (n,), 'epistemic' (n,) nats.

    Raises
    ------
    ValueError for NaN/inf logits, a shape or class-count mismatch, λ ≤ 0 or α_prior ≤ 0.
    """
    f, y, lam, prior = _check_inputs(logits, labels, lam, prior)
    f = f.detach().double().clone().requires_grad_(True)
    alpha = torch.exp(f)
    target = prior + torch.nn.functional.one_hot(y, f.shape[1]).double() / lam
    loss = _kl(alpha, target)
    (grad,) = torch.autograd.grad(loss.sum(), f)
    with torch.no_grad():
        total, aleatoric = _total(alpha), _aleatoric(alpha)
        return {"loss": loss.detach().numpy(), "grad": grad.numpy(), "alpha0": alpha.sum(-1).numpy(),
                "aleatoric": aleatoric.numpy(), "epistemic": (total - aleatoric).numpy()}


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
