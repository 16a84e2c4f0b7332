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
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from .losses import SURROGATES, check_inputs, check_q


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
    sp = F.softplus
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
