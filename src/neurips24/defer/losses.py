"""The deferral loss, its costs, and the surrogate losses the chapter compares (paper Sec. 2–4).

Notation (the paper's, 0-based in code): n classes 0 … n−1 and one more output, index n, that means
"defer to the expert" (the paper's n + 1, written ⊥). A hypothesis h gives n + 1 scores h(x, ·); it predicts
``argmax`` and defers when the argmax is n. The expert predicts g(x) ∈ [n]; deferring costs c(x, y) ∈ [0, 1].

Every surrogate takes ``logits`` h of shape (..., N, n + 1), labels ``y`` of shape (N,) and costs ``cost`` of a
shape that broadcasts to (..., N) — so K models trained on the same points are scored in one call — and returns
the per-point loss (..., N). Natural logarithms throughout (the baselines' reference code uses log₂, a constant
factor). With s = softmax(h) (torch computes it in log space):

- ``ce_surrogate``   L_CE   = −log s_y − (1 − c) log s_⊥                          (Mozannar & Sontag 2020)
- ``ova_surrogate``  L_OvA  = φ(h_y) + Σ_{y'≠y} φ(−h_y') + φ(−h_⊥) + (1 − c)[φ(h_⊥) − φ(−h_⊥)]
                                                              φ(z) = log(1 + e^{−z}) (Verma & Nalisnick 2022)
- ``rs_surrogate``   L_RS   = −2 log(s_y + (1 − c) s_⊥)                           (Mozannar et al. 2023)
- ``general_surrogate`` L_general = ℓ(h, x, y) + (1 − c) ℓ(h, x, ⊥), ℓ = Ψ(s_·)  (Mao et al., multiple experts)
- ``rl2d_surrogate`` L_RL2D = Ψ(s_y + (1 − c) s_⊥)                                (this paper; reconstruction)

with Ψ = −log (``q=None``) or Ψ_q(t) = (1 − t^q)/q, q ∈ (0, 1]. The three baselines were checked against the
code of github.com/clinicalml/human_ai_deferral (``baselines/lce_surrogate.py``, ``baselines/one_v_all.py``,
``methods/realizable_surrogate.py``). The RL2D and L_general formulas are not compared with the paper's text; they
are the book's reconstruction from the paper's abstract, its Table 2 (which lists the four baselines) and the two
special cases it names (Ψ = −log recovers L_RS; Ψ_q with q = 0.7 and q = 1 are the curves of its Fig. 1).
"""
from __future__ import annotations

import math

import torch

SURROGATES = ("ce", "ova", "rs", "general", "rl2d")


# ---------------------------------------------------------------------------------------------- validation
def _as_tensor(name: str, value, *, integer: bool) -> torch.Tensor:
    if isinstance(value, bool) or value is None:
        raise TypeError(f"{name} must be an array or tensor, got {value!r}")
    t = value if isinstance(value, torch.Tensor) else torch.as_tensor(value)
    if integer:
        if t.dtype.is_floating_point or t.dtype.is_complex or t.dtype == torch.bool:
            raise TypeError(f"{name} must hold integers (class indices), got dtype {t.dtype}")
        return t.long()
    if not t.dtype.is_floating_point:
        if t.dtype == torch.bool or t.dtype.is_complex:
            raise TypeError(f"{name} must hold real numbers, got dtype {t.dtype}")
        t = t.to(torch.get_default_dtype())
    if not torch.isfinite(t).all():
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return t


def check_q(q) -> float | None:
    """Return ``q`` as a float if it lies in (0, 1], or None (Ψ = −log).

    Raises
    ------
    TypeError if q is not a real number; ValueError if q ∉ (0, 1].
    """
    if q is None:
        return None
    if isinstance(q, bool) or not isinstance(q, (int, float)) and not (
            isinstance(q, torch.Tensor) and q.numel() == 1):
        raise TypeError(f"q must be a number in (0, 1] or None (for Ψ = −log), got {q!r}")
    q = float(q)
    if not (0.0 < q <= 1.0) or not math.isfinite(q):
        raise ValueError(f"q must lie in (0, 1] (Ψ_q(t) = (1 − t^q)/q), got {q!r}")
    return q


def check_labels(name: str, labels, n_classes: int, length: int | None = None) -> torch.Tensor:
    """Labels (or expert predictions) as a (N,) int64 tensor with values in [0, n_classes).

    Raises
    ------
    TypeError for non-integer dtypes; ValueError for a wrong shape or a value outside [0, n_classes).
    """
    t = _as_tensor(name, labels, integer=True)
    if t.ndim != 1 or (length is not None and t.shape[0] != length):
        want = f"({length},)" if length is not None else "(N,)"
        raise ValueError(f"{name} must have shape {want}, got {tuple(t.shape)}")
    if t.numel() and (int(t.min()) < 0 or int(t.max()) >= n_classes):
        raise ValueError(f"{name} must lie in [0, {n_classes}) (the n = {n_classes} classes), "
                         f"got values in [{int(t.min())}, {int(t.max())}]")
    return t


def check_cost(cost, length: int) -> torch.Tensor:
    """Deferral costs c(x, y) as a float tensor whose last axis has ``length`` entries, all in [0, 1].

    Raises
    ------
    TypeError for non-numeric input; ValueError for NaN/inf, a wrong last axis, no entries, or a value outside
    [0, 1].
    """
    c = _as_tensor("cost", cost, integer=False)
    if c.ndim == 0 or c.shape[-1] != length:
        raise ValueError(f"cost must have shape (..., {length}) (one cost per point), got {tuple(c.shape)}")
    if c.numel() == 0:
        raise ValueError(f"cost must hold at least one point, got shape {tuple(c.shape)} (an empty batch)")
    if float(c.min()) < 0.0 or float(c.max()) > 1.0:
        raise ValueError(f"cost must lie in [0, 1], got values in [{float(c.min()):.3g}, {float(c.max()):.3g}]")
    return c


def check_inputs(logits, y, cost) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Validate a surrogate's arguments: logits (..., N, n + 1) with n ≥ 2 and N ≥ 1, y (N,) in [0, n), cost in [0, 1].

    Raises
    ------
    TypeError for wrong dtypes; ValueError for NaN/inf, wrong shapes, an empty batch (N = 0) or out-of-range
    values.
    """
    h = _as_tensor("logits", logits, integer=False)
    if h.ndim < 2 or h.shape[-1] < 3:
        raise ValueError(f"logits must have shape (..., N, n + 1) with n >= 2 classes, got {tuple(h.shape)}")
    n, N = h.shape[-1] - 1, h.shape[-2]
    if h.numel() == 0:
        raise ValueError(f"logits must hold at least one point (N >= 1), got shape {tuple(h.shape)} (an empty batch)")
    y = check_labels("y", y, n, length=N)
    c = check_cost(cost, N).to(h.dtype)
    try:
        torch.broadcast_shapes(c.shape, h.shape[:-1])
    except RuntimeError as exc:
        raise ValueError(f"cost of shape {tuple(c.shape)} does not broadcast to {tuple(h.shape[:-1])}") from exc
    return h, y, c


# -------------------------------------------------------------------------------------------- costs, Ψ
def expert_error_cost(y, expert) -> torch.Tensor:
    """The classification-error cost c(x, y) = 1{g(x) ≠ y} (paper Sec. 2), as float64 (N,).

    Parameters
    ----------
    y, expert : (N,) integer class indices ≥ 0 (the label and the expert's prediction).

    Raises
    ------
    TypeError / ValueError for non-integer input, negative values or different shapes.
    """
    y = _as_tensor("y", y, integer=True)
    g = _as_tensor("expert", expert, integer=True)
    if y.ndim != 1 or g.shape != y.shape:
        raise ValueError(f"y and expert must both have shape (N,), got {tuple(y.shape)} and {tuple(g.shape)}")
    if y.numel() and (int(y.min()) < 0 or int(g.min()) < 0):
        raise ValueError("y and expert must be class indices >= 0")
    return (g != y).to(torch.float64)


def inference_cost(y, expert, beta: float) -> torch.Tensor:
    """A general cost in [0, 1]: c(x, y) = 1{g(x) ≠ y} + β·1{g(x) = y} (the book's choice, after Fig. 1b).

    Deferring costs the expert's error plus a fee β for consulting it; an expert mistake costs 1 in all, like
    a mistake of the model. β = 0 gives :func:`expert_error_cost`.

    Parameters
    ----------
    y, expert : (N,) integer class indices.   beta : β ∈ [0, 1].

    Raises
    ------
    ValueError if β ∉ [0, 1] or is not finite; as :func:`expert_error_cost` for y and expert.
    """
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or not 0.0 <= float(beta) <= 1.0:
        raise ValueError(f"beta must be a number in [0, 1], got {beta!r}")
    err = expert_error_cost(y, expert)
    return err + float(beta) * (1.0 - err)


def psi(t: torch.Tensor, q: float | None = None) -> torch.Tensor:
    """Ψ(t) = −log t (q = None) or Ψ_q(t) = (1 − t^q)/q (paper Sec. 4), for t ∈ (0, 1].

    Ψ_q → −log t as q → 0; Ψ_1(t) = 1 − t. Both are non-increasing with Ψ(1) = 0.

    Raises
    ------
    ValueError if q ∉ (0, 1].
    """
    q = check_q(q)
    if q is None:
        return -torch.log(t)
    return (1.0 - t.pow(q)) / q


def _psi_of_log(log_t: torch.Tensor, q: float | None) -> torch.Tensor:
    """Ψ(e^{log_t}), computed from log t (stable when t underflows)."""
    if q is None:
        return -log_t
    return -torch.expm1(q * log_t) / q


def _log_w(cost: torch.Tensor) -> torch.Tensor:
    """log(1 − c), −inf where c = 1 (the expert's output then gets no credit)."""
    return torch.log1p(-cost)


def softplus(z: torch.Tensor) -> torch.Tensor:
    """log(1 + e^z) elementwise, exact for every finite z, with the exact derivative σ(z).

    ``torch.nn.functional.softplus`` returns z itself for z > 20 (its ``threshold``), an error of e^{−z}
    (2e-9 at z = 20) and a derivative of exactly 1 instead of σ(z) = 1 − 3.8e-11 at z = 24; the CUDA kernel
    (``surrogate.cu``) computes the exact value, so the references must too. ``logaddexp(z, 0)`` is stable for
    large |z| and its backward is 1 / (1 + e^{−z}) = σ(z).

    Parameters
    ----------
    z : float tensor, any shape. Returns a tensor of the same shape and dtype.
    """
    return torch.logaddexp(z, z.new_zeros(()))


def _gather(h: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """h[..., i, y_i] for every point i: (..., N)."""
    idx = y.expand(h.shape[:-1]).unsqueeze(-1)
    return h.gather(-1, idx).squeeze(-1)


# ------------------------------------------------------------------------------------------- surrogates
def ce_surrogate(logits, y, cost) -> torch.Tensor:
    """L_CE = −log s_y − (1 − c) log s_⊥ (Mozannar & Sontag 2020, eq. (3) with α = 1), per point (..., N).

    Bayes-consistent, not realizable H-consistent (paper Table 2). ``logits`` (..., N, n + 1), y (N,) in
    [0, n), cost broadcastable to (..., N) in [0, 1].

    Raises
    ------
    TypeError / ValueError on bad input (see :func:`check_inputs`).
    """
    h, y, c = check_inputs(logits, y, cost)
    log_s = torch.log_softmax(h, dim=-1)
    return -_gather(log_s, y) - (1.0 - c) * log_s[..., -1]


def ova_surrogate(logits, y, cost) -> torch.Tensor:
    """L_OvA (Verma & Nalisnick 2022, eq. (6)) with the logistic φ(z) = log(1 + e^{−z}), per point (..., N).

    φ(h_y) + Σ_{y' ∈ [n], y' ≠ y} φ(−h_y') + φ(−h_⊥) + (1 − c) [φ(h_⊥) − φ(−h_⊥)]: one binary problem per
    output, the defer output's target being "the expert is right", weighted by 1 − c.

    Raises
    ------
    TypeError / ValueError on bad input (see :func:`check_inputs`).
    """
    h, y, c = check_inputs(logits, y, cost)
    phi = softplus                         # φ(z) = softplus(−z): φ(h) = softplus(−h), φ(−h) = softplus(h)
    classes = h[..., :-1]
    h_y = _gather(h, y)
    others = phi(classes).sum(-1) - phi(h_y)
    h_def = h[..., -1]
    return phi(-h_y) + others + phi(h_def) + (1.0 - c) * (phi(-h_def) - phi(h_def))


def _log_t(h: torch.Tensor, y: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """log t, t = s_y + (1 − c) s_⊥ = (e^{h_y} + (1 − c) e^{h_⊥}) / Σ_{y'} e^{h_y'}, by log-sum-exp."""
    num = torch.logaddexp(_gather(h, y), _log_w(c) + h[..., -1])
    return num - torch.logsumexp(h, dim=-1)


def rs_surrogate(logits, y, cost) -> torch.Tensor:
    """L_RS = −2 log((e^{h_y} + (1 − c) e^{h_⊥}) / Σ e^{h}) (Mozannar et al. 2023, eq. (7)), per point.

    Defined there for c = 1{g ≠ y}, where 1 − c = 1{g = y}; with another cost it is read with the same 1 − c.
    Its realizable H-consistency was shown by Mozannar et al.; its Bayes-consistency was their open question,
    answered by this paper: L_RS = 2 L_RL2D with Ψ = −log.

    Raises
    ------
    TypeError / ValueError on bad input (see :func:`check_inputs`).
    """
    h, y, c = check_inputs(logits, y, cost)
    return -2.0 * _log_t(h, y, c)


def general_surrogate(logits, y, cost, q: float | None = 0.7) -> torch.Tensor:
    """L_general = ℓ(h, x, y) + (1 − c) ℓ(h, x, ⊥), ℓ(h, x, k) = Ψ(s_k) a comp-sum loss, per point (..., N).

    The single-expert case of Mao, Mohri & Zhong's multiple-expert surrogate (the baseline "L_general" of
    this paper's Table 2 and Fig. 1). ℓ is the logistic loss for q = None (then L_general = L_CE) and the
    generalized cross-entropy Ψ_q(s_k) for q ∈ (0, 1]; the choice of ℓ in the paper's experiments could not
    be read, and the chapter uses q = 0.7 (the book's reconstruction). At q = 1, L_general = L_RL2D + (1 − c).

    Raises
    ------
    TypeError / ValueError on bad input; ValueError if q ∉ (0, 1].
    """
    q = check_q(q)
    h, y, c = check_inputs(logits, y, cost)
    log_s = torch.log_softmax(h, dim=-1)
    return _psi_of_log(_gather(log_s, y), q) + (1.0 - c) * _psi_of_log(log_s[..., -1], q)


def rl2d_surrogate(logits, y, cost, q: float | None = 1.0) -> torch.Tensor:
    """L_RL2D = Ψ((e^{h_y} + (1 − c) e^{h_⊥}) / Σ_{y' ∈ [n+1]} e^{h_y'}), per point (..., N) (paper Sec. 4).

    Ψ = −log (q = None) gives L_RS / 2; Ψ_q(t) = (1 − t^q)/q for q ∈ (0, 1]. The argument t is the softmax
    mass on "the outputs that would be right": the label, plus the expert's output weighted by 1 − c. This is
    the book's reconstruction of the paper's family (see the module docstring).

    Raises
    ------
    TypeError / ValueError on bad input; ValueError if q ∉ (0, 1].
    """
    q = check_q(q)
    h, y, c = check_inputs(logits, y, cost)
    return _psi_of_log(_log_t(h, y, c), q)


def surrogate(name: str, logits, y, cost, q: float | None = None) -> torch.Tensor:
    """Dispatch by name: 'ce', 'ova', 'rs', 'general' (uses q) or 'rl2d' (uses q). Returns (..., N).

    Raises
    ------
    ValueError for an unknown name, and as the named surrogate.
    """
    if name == "ce":
        return ce_surrogate(logits, y, cost)
    if name == "ova":
        return ova_surrogate(logits, y, cost)
    if name == "rs":
        return rs_surrogate(logits, y, cost)
    if name == "general":
        return general_surrogate(logits, y, cost, q=q)
    if name == "rl2d":
        return rl2d_surrogate(logits, y, cost, q=q)
    raise ValueError(f"surrogate must be one of {SURROGATES}, got {name!r}")


# --------------------------------------------------------------------------------------- deferral loss
def decide(logits) -> torch.Tensor:
    """h(x) = argmax_{y ∈ [n+1]} h(x, y), ties going to "defer" (index n), as in human_ai_deferral. (...,N).

    Raises
    ------
    ValueError for logits that are not (..., N, n + 1) with n ≥ 2, or not finite.
    """
    h = _as_tensor("logits", logits, integer=False)
    if h.ndim < 2 or h.shape[-1] < 3:
        raise ValueError(f"logits must have shape (..., N, n + 1) with n >= 2 classes, got {tuple(h.shape)}")
    n = h.shape[-1] - 1
    best = h[..., :-1].argmax(-1)
    defer = h[..., -1] >= h[..., :-1].amax(-1)
    return torch.where(defer, torch.full_like(best, n), best)


def deferral_loss(decision, y, cost, n_classes: int) -> torch.Tensor:
    """L_def = 1{h(x) ≠ y} 1{h(x) ∈ [n]} + c(x, y) 1{h(x) = n+1} (paper eq. (1)), per point, float64 (N,).

    Parameters
    ----------
    decision : (N,) int in [0, n]: a class, or n for "defer" (from :func:`decide`).
    y : (N,) int in [0, n).   cost : (N,) in [0, 1].   n_classes : n ≥ 2.

    Raises
    ------
    TypeError / ValueError for wrong dtypes, shapes or values out of range.
    """
    if isinstance(n_classes, bool) or not isinstance(n_classes, int) or n_classes < 2:
        raise ValueError(f"n_classes must be an int >= 2, got {n_classes!r}")
    d = check_labels("decision", decision, n_classes + 1)
    y = check_labels("y", y, n_classes, length=d.shape[0])
    c = check_cost(cost, d.shape[0]).to(torch.float64)
    if c.ndim != 1:
        raise ValueError(f"cost must have shape ({d.shape[0]},), got {tuple(c.shape)}")
    return torch.where(d == n_classes, c, (d != y).to(torch.float64))
