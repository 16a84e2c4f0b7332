"""Row-wise fused surrogate + gradient: each loss and dL/dh in closed form, in one pass (book's own).

For every point (row) of the logits h (n + 1 scores), :func:`fused_loss_grad` returns the surrogate loss and
its gradient with respect to h, computed from log-softmax quantities only (log-sum-exp stable), with no
autograd graph. It is the reference of a one-thread-per-row GPU kernel; the training loop of the chapter uses
it through :class:`FusedSurrogate` (an ``autograd.Function`` whose backward is the closed form), and the tests
check both against torch autograd on :mod:`.losses` and against finite differences.

Closed forms, with s = softmax(h), w = 1 − c, e_k the k-th unit vector and ⊥ = index n:

- CE:       ∇ = (1 + w) s − e_y − w e_⊥
- RL2D:     t = s_y + w s_⊥, r = (s_y e_y + w s_⊥ e_⊥) / t;  ∇ = (s − r) for Ψ = −log,  t^q (s − r) for Ψ_q
- RS:       2 (s − r)
- general:  ∇ = s_y^q (s − e_y) + w s_⊥^q (s − e_⊥)   (q = None: s_y^q, s_⊥^q read as 1)
- OvA:      ∂_y = −σ(−h_y), ∂_{y'} = σ(h_y') (y' ∈ [n], y' ≠ y), ∂_⊥ = σ(h_⊥) − w

The kernel itself, ``surrogate.cu`` (float32 and float64, one thread per point, classes on the slow axis as in
:func:`_fused`), computes the same closed forms; :func:`fused_kernel` launches it through CuPy,
:func:`kernel_parity` compares it with :func:`fused_loss_grad` and :func:`bench_defer_fused` times both. Without
CuPy or a GPU only the torch reference runs.
"""
from __future__ import annotations

import numpy as np
import torch

from ..backend import cupy_or_none
from .losses import SURROGATES, check_inputs, check_q, softplus


def prepare(y: torch.Tensor, cost: torch.Tensor, n_out: int, dtype=torch.float32):
    """What the kernel needs besides the logits, computed once per training: e_y (n + 1, N) (one column per
    point: the kernel's layout), w = 1 − c and log w (shape of cost), in ``dtype``."""
    e_y = torch.zeros(n_out, y.shape[0], dtype=dtype).scatter_(0, y.unsqueeze(0), 1.0)
    c = cost.to(dtype)
    return e_y, 1.0 - c, torch.log1p(-c)


def family(name: str, q: float | None) -> tuple[bool, float, float]:
    """A surrogate as a member of one family: (joint, q, scale), q = 0 meaning Ψ = −log.

    joint: L = scale · Ψ(s_y + w s_⊥) (RL2D, RS);  not joint: L = Ψ(s_y) + w Ψ(s_⊥) (general, CE).
    OvA is not in this family.
    """
    if name == "ce":
        return False, 0.0, 1.0
    if name == "general":
        return False, 0.0 if q is None else q, 1.0
    if name == "rs":
        return True, 0.0, 2.0
    if name == "rl2d":
        return True, 0.0 if q is None else q, 1.0
    raise ValueError(f"{name!r} is not a softmax surrogate of the Ψ family")


def _psi_slope(u: torch.Tensor, q: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Ψ(e^u) and a = −dΨ(e^u)/du, elementwise, for q (broadcastable) with q = 0 meaning Ψ = −log."""
    is_log = q == 0
    q_safe = torch.where(is_log, torch.ones_like(q), q)
    value = torch.where(is_log, -u, -torch.expm1(q_safe * u) / q_safe)
    slope = torch.where(is_log, torch.ones_like(u), (q_safe * u).exp())
    return value, slope


def _ova(h, e_y, w):
    """OvA in the kernel's layout: h (K, n + 1, N), e_y (n + 1, N), w (K, N)."""
    h_y = (h * e_y).sum(-2)
    h_def = h[..., -1, :]
    sp = softplus                                # exact (F.softplus is linear above 20)
    loss = sp(-h_y) + sp(h[..., :-1, :]).sum(-2) - sp(h_y) + sp(h_def) + w * (sp(-h_def) - sp(h_def))
    grad = torch.sigmoid(h) - e_y               # at y: σ(h_y) − 1 = −σ(−h_y)
    grad[..., -1, :] -= w
    return loss, grad


def _log_softmax(h: torch.Tensor) -> torch.Tensor:
    """log softmax over the class axis (−2); by hand: torch's kernel is slow for a short inner class axis."""
    z = h - h.amax(-2, keepdim=True)
    return z - z.exp().sum(-2, keepdim=True).log()


def _fused(h: torch.Tensor, e_y: torch.Tensor, w: torch.Tensor, log_w: torch.Tensor, joint: torch.Tensor,
           q: torch.Tensor, scale: torch.Tensor):
    """The Ψ-family closed forms for K models at once (no checks: the training loop calls this every step).

    Layout: classes on axis −2, points last (reductions over a few classes are fast along N). h (K, n + 1, N);
    e_y (n + 1, N); w, log_w (K, N); joint, q, scale (K,) as :func:`family` gives them.
    Returns loss (K, N) and grad (K, n + 1, N).
    """
    log_s = _log_softmax(h)
    s = log_s.exp()
    log_s_y = (log_s * e_y).sum(-2)
    log_s_def = log_s[:, -1]
    q = q.unsqueeze(-1)
    # joint (RL2D, RS): t = s_y + w s_⊥, ∇ = a(t) (s − r), r = (s_y e_y + w s_⊥ e_⊥) / t
    log_t = torch.logaddexp(log_s_y, log_w + log_s_def)
    val_t, a_t = _psi_slope(log_t, q)
    r = e_y * (log_s_y - log_t).exp().unsqueeze(-2)
    r[:, -1] = (log_w + log_s_def - log_t).exp()
    grad_joint = a_t.unsqueeze(-2) * (s - r)
    # sum (general, CE): Ψ(s_y) + w Ψ(s_⊥), ∇ = a(s_y) (s − e_y) + w a(s_⊥) (s − e_⊥)
    val_y, a_y = _psi_slope(log_s_y, q)
    val_d, a_d = _psi_slope(log_s_def, q)
    grad_sum = (a_y + w * a_d).unsqueeze(-2) * s - a_y.unsqueeze(-2) * e_y
    grad_sum[:, -1] -= w * a_d
    jm = joint.view(-1, 1)
    loss = torch.where(jm, val_t, val_y + w * val_d) * scale.unsqueeze(-1)
    grad = torch.where(jm.unsqueeze(-1), grad_joint, grad_sum) * scale.view(-1, 1, 1)
    return loss, grad


def fused_loss_grad(logits, y, cost, name: str, q: float | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-point surrogate loss (..., N) and its gradient dL/dh (..., N, n + 1), in closed form.

    Parameters
    ----------
    logits : (..., N, n + 1) float, n ≥ 2.   y : (N,) int in [0, n).   cost : broadcastable to (..., N), in [0, 1].
    name : 'ce', 'ova', 'rs', 'general' or 'rl2d'.   q : None (Ψ = −log) or q ∈ (0, 1] (general, rl2d).

    Returns
    -------
    (loss, grad), in the logits' dtype; the gradient is that of each point's own loss (not of the mean).

    Raises
    ------
    ValueError for an unknown name or q ∉ (0, 1]; as :func:`.losses.check_inputs` for bad arrays.
    """
    if name not in SURROGATES:
        raise ValueError(f"name must be one of {SURROGATES}, got {name!r}")
    q = check_q(q)
    h, y, c = check_inputs(logits, y, cost)
    e_y, w, log_w = prepare(y, c, h.shape[-1], h.dtype)
    lead = h.shape[:-1]
    flat = h.reshape(-1, *h.shape[-2:]).transpose(-1, -2)         # (K, n + 1, N): the kernel's layout
    K = flat.shape[0]
    w, log_w = w.expand(lead).reshape(K, -1), log_w.expand(lead).reshape(K, -1)
    if name == "ova":
        loss, grad = _ova(flat, e_y, w)
    else:
        joint, q0, scale = family(name, q)
        loss, grad = _fused(flat, e_y, w, log_w, torch.full((K,), joint), torch.full((K,), q0, dtype=h.dtype),
                            torch.full((K,), scale, dtype=h.dtype))
    return loss.reshape(lead), grad.transpose(-1, -2).reshape(h.shape)


class FusedSurrogate(torch.autograd.Function):
    """``FusedSurrogate.apply(logits, e_y, w, log_w, joint, q, scale)`` -> per-point loss (K, N), backward by
    the closed form; logits in the kernel's layout (K, n + 1, N); ``joint`` = None means the OvA surrogate.

    ``e_y, w, log_w`` come from :func:`prepare`, (joint, q, scale) per model from :func:`family`. The forward
    pass stores the gradient of the closed form; the backward pass scales it by the incoming gradient. Inputs
    are not validated here (the training loop checks them once, through :func:`fused_loss_grad`).
    """

    @staticmethod
    def forward(ctx, logits, e_y, w, log_w, joint, q, scale):
        if joint is None:
            loss, grad = _ova(logits.detach(), e_y, w)
        else:
            loss, grad = _fused(logits.detach(), e_y, w, log_w, joint, q, scale)
        ctx.save_for_backward(grad)
        return loss

    @staticmethod
    def backward(ctx, grad_out):
        (grad,) = ctx.saved_tensors
        return grad_out.unsqueeze(-2) * grad, None, None, None, None, None, None


# ------------------------------------------------------------------------------- the CUDA kernel (CuPy)
_MODES = {"ova": 2}                      # the rest: mode 1 (joint) or 0 (sum), from family()
KERNEL_DTYPES = ("float32", "float64")


def kernel_family(name: str, q: float | None = None) -> tuple[int, float, float]:
    """The (mode, q, scale) arguments of ``surrogate.cu`` for a surrogate: mode 0 sum, 1 joint, 2 OvA.

    Raises
    ------
    ValueError for an unknown name or q ∉ (0, 1].
    """
    if name not in SURROGATES:
        raise ValueError(f"name must be one of {SURROGATES}, got {name!r}")
    q = check_q(q)
    if name in _MODES:
        return _MODES[name], 0.0, 1.0
    joint, q0, scale = family(name, q)
    return int(joint), q0, scale


def _launch(cp, hT, y, cost, mode: int, q: float, scale: float, block: int = 256):
    """One launch on device arrays in the kernel's layout: hT (n + 1, N) float32/64, y (N,) int64, cost (N,)."""
    from ..cuda import raw_kernel

    m, N = hT.shape
    suffix = "f32" if hT.dtype == cp.float32 else "f64"
    loss, grad = cp.empty(N, dtype=hT.dtype), cp.empty((m, N), dtype=hT.dtype)
    kernel = raw_kernel("neurips24.defer", "surrogate.cu", f"defer_surrogate_{suffix}")
    real = hT.dtype.type
    kernel(((N + block - 1) // block,), (block,),
           (hT, y, cost, np.int64(N), np.int32(m), np.int32(mode), real(q), real(scale), loss, grad))
    return loss, grad


def fused_kernel(logits, y, cost, name: str, q: float | None = None):
    """What :func:`fused_loss_grad` computes, from one launch of ``surrogate.cu`` (one thread per point).

    Parameters
    ----------
    logits : (N, n + 1) float32 or float64 (NumPy, CuPy or anything ``cupy.asarray`` takes), finite, n ≥ 2.
    y : (N,) integers in [0, n).   cost : (N,) floats in [0, 1].   name, q : as :func:`fused_loss_grad`.

    Returns
    -------
    (loss (N,), grad (N, n + 1)) as CuPy arrays in the logits' dtype; the gradient is each point's own.

    Raises
    ------
    ValueError for an unknown name, q ∉ (0, 1], wrong shapes, NaN/inf, y or cost out of range; TypeError for a
    dtype other than float32/float64; RuntimeError without CuPy and a GPU.
    """
    mode, q0, scale = kernel_family(name, q)
    cp = cupy_or_none()
    if cp is None:
        raise RuntimeError("the CUDA kernel needs CuPy and a CUDA GPU")
    h = cp.asarray(logits)
    if h.dtype.name not in KERNEL_DTYPES:
        raise TypeError(f"logits must be float32 or float64, got {h.dtype}")
    if h.ndim != 2 or h.shape[1] < 3:
        raise ValueError(f"logits must have shape (N, n + 1) with n >= 2 classes, got {h.shape}")
    N, m = h.shape
    if not bool(cp.isfinite(h).all()):
        raise ValueError("logits must be finite (no NaN or inf)")
    yd = cp.asarray(y)
    if yd.shape != (N,) or yd.dtype.kind not in "iu":
        raise ValueError(f"y must be (N,) = ({N},) integers, got {yd.dtype} {yd.shape}")
    if N and (int(yd.min()) < 0 or int(yd.max()) >= m - 1):
        raise ValueError(f"y must lie in [0, {m - 1})")
    c = cp.asarray(cost, dtype=h.dtype)
    if c.shape != (N,):
        raise ValueError(f"cost must have shape ({N},) (one cost per point), got {c.shape}")
    if N and not (bool(cp.isfinite(c).all()) and float(c.min()) >= 0.0 and float(c.max()) <= 1.0):
        raise ValueError("cost must lie in [0, 1]")
    loss, grad = _launch(cp, cp.ascontiguousarray(h.T), cp.ascontiguousarray(yd, dtype=cp.int64),
                         cp.ascontiguousarray(c), mode, q0, scale)
    return loss, grad.T


def _bench_case(N: int, n: int, seed: int):
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(N, n + 1, generator=g, dtype=torch.float64) * 3
    y = torch.randint(0, n, (N,), generator=g)
    c = torch.rand(N, generator=g, dtype=torch.float64)
    c[:2] = torch.tensor([0.0, 1.0], dtype=torch.float64)          # the edges: full credit and none
    return h, y, c


def kernel_parity(N: int = 4096, n: int = 10, seed: int = 0) -> dict | None:
    """Largest gaps between kernel and reference over the surrogates, in float64 and float32, and the speed.

    The reference is :func:`fused_loss_grad` in float64 on the CPU (itself tested against torch autograd).

    Returns
    -------
    None without CuPy and a GPU; else a dict: '<name>[ q=<q>] <dtype> loss/grad' -> max |kernel − reference| /
    (1 + |reference|), plus 'torch_ms' (the reference, RL2D q = 1, CPU) and 'gpu_ms' (the kernel, float32,
    logits already on the GPU in the kernel's layout).
    """
    cp = cupy_or_none()
    if cp is None:
        return None
    from ..timing import best_time

    h, y, c = _bench_case(N, n, seed)
    out = {}
    for name, q in [("rl2d", 1.0), ("rl2d", 0.5), ("rl2d", None), ("rs", None), ("general", 0.7), ("ce", None),
                    ("ova", None)]:
        ref_loss, ref_grad = (t.numpy() for t in fused_loss_grad(h, y, c, name, q))
        for dtype in KERNEL_DTYPES:
            loss, grad = fused_kernel(h.numpy().astype(dtype), y.numpy(), c.numpy(), name, q)
            key = f"{name}{'' if q is None else f' q={q:g}'} {dtype}"
            out[f"{key} loss"] = float(np.max(np.abs(cp.asnumpy(loss) - ref_loss) / (1 + np.abs(ref_loss))))
            out[f"{key} grad"] = float(np.max(np.abs(cp.asnumpy(grad) - ref_grad) / (1 + np.abs(ref_grad))))
    h32 = h.float()
    out["torch_ms"] = 1e3 * best_time(lambda: fused_loss_grad(h32, y, c, "rl2d", 1.0))
    mode, q0, scale = kernel_family("rl2d", 1.0)
    hT, yd, cd = (cp.asarray(h32.T.contiguous().numpy()), cp.asarray(y.numpy()),
                  cp.asarray(c.float().numpy()))
    out["gpu_ms"] = 1e3 * best_time(lambda: _launch(cp, hT, yd, cd, mode, q0, scale), cp.cuda.Device().synchronize)
    return out


def bench_defer_fused(N: int = 100_000, n: int = 10, seed: int = 0) -> list[tuple[str, float, float]]:
    """Time the RL2D (q = 1) loss + gradient: the torch reference (CPU) and the kernel (GPU, when present).

    Both in float32, on N points of n + 1 scores; the kernel's inputs are already on the GPU in its layout.

    Returns
    -------
    list of (name, seconds per call, bytes read and written per call) rows; used by ``benchmarks/kernels.py``.
    """
    from ..timing import best_time

    h, y, c = _bench_case(N, n, seed)
    h32, c32 = h.float(), c.float()
    nbytes = 4.0 * (2 * N * (n + 1) + 2 * N) + 8.0 * N       # logits in, gradient out, cost in, loss out; labels
    size = f"N={N} n={n}"
    rows = [(f"defer.fused torch reference (CPU) {size}",
             best_time(lambda: fused_loss_grad(h32, y, c32, "rl2d", 1.0), repeat=3), nbytes)]
    cp = cupy_or_none()
    if cp is not None:
        mode, q0, scale = kernel_family("rl2d", 1.0)
        hT, yd, cd = cp.asarray(h32.T.contiguous().numpy()), cp.asarray(y.numpy()), cp.asarray(c32.numpy())
        rows.append((f"defer.fused cuda kernel (GPU) {size}",
                     best_time(lambda: _launch(cp, hT, yd, cd, mode, q0, scale), cp.cuda.Device().synchronize),
                     nbytes))
    return rows
