"""The paper's unified EDL objective, its optimum, the energy view, and the Bootstrap-Distill loss.

Shen et al. (2024) write the training criteria of the Dirichlet ("evidential") methods as one objective (their
eq. (6); a Table 1 maps BM, RPriorNet, FPriorNet, PostNet, NatPN, EDL onto it):

    L(ψ) = E_{p(x,y)} D( Dir(α_prior + ν e_y), Dir(α_ψ(x)) ) + γ_ood E_{p_ood(x)} D( Dir(α_prior), Dir(α_ψ(x)) ),

with ν = 1/λ, e_y the one-hot label and D a forward or reverse KL divergence. The authors' code
(github.com/maohaos2/EDL-Mirage, ``UnifiedDirichletUQLoss``) builds exactly this target, α_prior + e_y / λ,
and parameterises α = exp(f) (``NaiveUncertaintyModel``), which :func:`evidential_alpha` follows.

Pointwise in x the objective is minimised by a Dirichlet that depends on x only through the true class
probabilities η(x) = p(y | x) — never on the number of training samples. For the reverse KL the minimiser is
closed-form, α*(x) = α_prior + η(x) / λ, so α₀* = C α_prior + 1/λ (the book derives it in the chapter's
Theory section); for the forward KL it solves a moment-matching equation (:func:`optimal_alpha`).
torch.special (digamma, ln Γ) computes the losses; SciPy (``scipy.optimize``) solves the forward-KL optimum.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from .dirichlet import _kl, check_alpha

DIVERGENCES = ("reverse", "forward")

__all__ = ["DIVERGENCES", "check_lam", "target_alpha", "unified_loss", "reverse_kl_terms", "optimal_alpha",
           "evidence", "evidential_alpha", "energy_score", "distill_loss"]


def check_lam(lam, name: str = "lam") -> float:
    """``lam`` as a float if it is a finite number > 0 (the regulariser weight λ of the unified objective).

    Raises
    ------
    ValueError naming ``name`` otherwise (a bool, NaN, inf, zero or a negative number included).
    """
    if isinstance(lam, bool) or not isinstance(lam, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number > 0, got {lam!r}")
    if not math.isfinite(float(lam)) or lam <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {lam!r}")
    return float(lam)


def _check_divergence(divergence: str) -> str:
    if divergence not in DIVERGENCES:
        raise ValueError(f"divergence must be one of {DIVERGENCES}, got {divergence!r}")
    return divergence


def _labels(y, n_classes: int, device=None) -> torch.Tensor:
    """Integer labels (n,) in [0, C), or one-hot rows (n, C), as a one-hot float tensor (n, C)."""
    y = torch.as_tensor(y, device=device)
    if y.ndim == 2:
        if y.shape[-1] != n_classes:
            raise ValueError(f"one-hot targets have {y.shape[-1]} classes but alpha has {n_classes}")
        if not bool(torch.isfinite(y.double()).all()):
            raise ValueError("targets must be finite")
        return y.double()
    if y.ndim != 1 or y.dtype.is_floating_point or y.dtype == torch.bool:
        raise ValueError(f"y must be integer labels of shape (n,) or one-hot rows (n, C), got {y.dtype} "
                         f"{tuple(y.shape)}")
    if y.numel() and (int(y.min()) < 0 or int(y.max()) >= n_classes):
        raise ValueError(f"labels must lie in [0, {n_classes}) (class count mismatch?), got range "
                         f"[{int(y.min())}, {int(y.max())}]")
    return torch.nn.functional.one_hot(y.long(), n_classes).double()


def target_alpha(y, n_classes: int, lam: float, prior: float = 1.0) -> torch.Tensor:
    """The unified objective's target concentrations α_prior + ν e_y with ν = 1/λ (paper eq. (6)).

    Dir(α_prior + ν e_y) ∝ p(π) p(y | π)^ν: the prior updated by the label ν times (a tempered posterior).

    Parameters
    ----------
    y : (n,) integer labels in [0, C), or (n, C) one-hot rows.
    n_classes : C ≥ 2.   lam : λ > 0.   prior : α_prior > 0 (the authors' code uses 1).

    Returns
    -------
    (n, C) float64 tensor.

    Raises
    ------
    ValueError for C < 2, λ ≤ 0, α_prior ≤ 0, labels outside [0, C) or one-hot rows of another width.
    """
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)) or n_classes < 2:
        raise ValueError(f"n_classes must be an integer >= 2, got {n_classes!r}")
    lam = check_lam(lam)
    prior = check_lam(prior, "prior")
    return prior + _labels(y, int(n_classes)) / lam


def unified_loss(alpha, y, lam: float, prior: float = 1.0, divergence: str = "reverse",
                 alpha_ood=None, gamma_ood: float = 0.0) -> torch.Tensor:
    """The unified objective (paper eq. (6)) on a batch: mean over samples of D(target, Dir(α)).

    divergence='reverse' is KL(Dir(α) ‖ Dir(α_prior + e_y/λ)) (the authors' ``UnifiedRev``, used for their
    Fig. 1 and Fig. 2); 'forward' is KL(Dir(α_prior + e_y/λ) ‖ Dir(α)). With ``alpha_ood`` the OOD term
    γ_ood · D(Dir(α_prior), Dir(α_ood)) is added (RPriorNet-style training; the chapter does not use it).

    Parameters
    ----------
    alpha : (n, C) tensor of concentrations > 0 (differentiable).
    y : (n,) integer labels or (n, C) one-hot rows.
    lam : λ > 0.   prior : α_prior > 0.   divergence : 'reverse' or 'forward'.
    alpha_ood : optional (m, C) concentrations on OOD inputs.   gamma_ood : γ_ood ≥ 0.

    Returns
    -------
    0-d tensor, nats per sample.

    Raises
    ------
    ValueError for λ ≤ 0, non-positive or non-finite α, a class count mismatch between α and y, an unknown
    divergence or γ_ood < 0; TypeError for a non-float α.
    """
    alpha, _ = check_alpha(alpha)
    divergence = _check_divergence(divergence)
    if alpha.ndim != 2:
        raise ValueError(f"alpha must have shape (n, C), got {tuple(alpha.shape)}")
    target = target_alpha(y, alpha.shape[-1], lam, prior).to(alpha.dtype).to(alpha.device)
    if target.shape[0] != alpha.shape[0]:
        raise ValueError(f"alpha has {alpha.shape[0]} rows but y has {target.shape[0]}")
    loss = _kl(alpha, target) if divergence == "reverse" else _kl(target, alpha)
    loss = loss.mean()
    if alpha_ood is not None:
        if isinstance(gamma_ood, bool) or not np.isfinite(gamma_ood) or gamma_ood < 0:
            raise ValueError(f"gamma_ood must be a finite number >= 0, got {gamma_ood!r}")
        alpha_ood, _ = check_alpha(alpha_ood, "alpha_ood")
        if alpha_ood.shape[-1] != alpha.shape[-1]:
            raise ValueError("alpha_ood must have as many classes as alpha")
        flat = torch.full_like(alpha_ood, check_lam(prior, "prior"))
        ood = _kl(alpha_ood, flat) if divergence == "reverse" else _kl(flat, alpha_ood)
        loss = loss + gamma_ood * ood.mean()
    return loss


def reverse_kl_terms(alpha: torch.Tensor, onehot: torch.Tensor, nu, prior: float = 1.0) -> torch.Tensor:
    """The reverse-KL objective as fit term plus regulariser: ν [ψ(α₀) − ψ(α_y)] + KL(Dir(α) ‖ Dir(α_prior 1)).

    Since ln Dir(π; α_prior + ν e_y) = ln Dir(π; α_prior 1) + ν ln π_y + const and E_{Dir(α)} ln π_y =
    ψ(α_y) − ψ(α₀), this equals KL(Dir(α) ‖ Dir(α_prior + ν e_y)) (the reverse case of :func:`unified_loss`)
    up to a constant in α; times λ = 1/ν it is the UCE form E[ψ(α₀) − ψ(α_y)] + λ KL(Dir(α) ‖ Dir(α_prior))
    of the paper's Sec. 3. The evidential trainer minimises it (no checks here: it runs every step).

    Parameters
    ----------
    alpha : (..., C) concentrations > 0.   onehot : (..., C) one-hot labels, alpha's dtype.
    nu : ν = 1/λ, a number or a tensor broadcastable to alpha's leading shape + (1,).   prior : α_prior > 0.

    Returns
    -------
    (...,) tensor, nats.
    """
    alpha0 = alpha.sum(-1)
    fit = torch.special.digamma(alpha0) - (torch.special.digamma(alpha) * onehot).sum(-1)
    regulariser = _kl(alpha, torch.full_like(alpha, prior))
    return (nu * fit.unsqueeze(-1)).squeeze(-1) + regulariser


def evidence(logits):
    """α = exp(f), without checks: the parameterisation every trainer and evaluation of the chapter uses.

    NumPy in, NumPy out (float64 logits give float64 α); a tensor in, a tensor out (differentiable).
    :func:`evidential_alpha` is the checked version for a reader's inputs.
    """
    return torch.exp(logits) if isinstance(logits, torch.Tensor) else np.exp(logits)


def optimal_alpha(eta, lam: float, prior: float = 1.0, divergence: str = "reverse") -> np.ndarray:
    """The pointwise minimiser α*(x) of the unified objective when the data are infinite (book's derivation).

    - reverse KL: α* = α_prior + η / λ exactly, so α₀* = C α_prior + 1/λ whatever η is;
    - forward KL: α* solves ψ(α*_c) − ψ(α*_0) = Σ_y η_y (ψ(β_{y,c}) − ψ(β_{y,0})), β_y = α_prior + e_y / λ
      (matching E[ln π] of the target mixture); solved with ``scipy.optimize.minimize`` (L-BFGS-B on ln α,
      a convex problem), one row at a time.

    In both cases α* depends on x only through η(x) = p(y | x): the sample size N does not appear.

    Parameters
    ----------
    eta : (..., C) class probabilities, rows summing to 1 (within 1e-6), entries ≥ 0.
    lam : λ > 0.   prior : α_prior > 0.   divergence : 'reverse' or 'forward'.

    Returns
    -------
    (..., C) float64 NumPy array.

    Raises
    ------
    ValueError for rows that are not probability vectors (NaN included), C < 2, λ ≤ 0, α_prior ≤ 0 or an
    unknown divergence.
    """
    eta = np.asarray(eta, dtype=np.float64)
    if eta.ndim < 1 or eta.shape[-1] < 2:
        raise ValueError(f"eta must have a class axis of length C >= 2, got shape {eta.shape}")
    if not np.all(np.isfinite(eta)) or np.any(eta < 0) or not np.allclose(eta.sum(-1), 1.0, atol=1e-6):
        raise ValueError("eta must hold probability vectors: finite, >= 0, each row summing to 1")
    lam, prior = check_lam(lam), check_lam(prior, "prior")
    if _check_divergence(divergence) == "reverse":
        return prior + eta / lam
    from scipy.optimize import minimize
    from scipy.special import digamma, gammaln

    C = eta.shape[-1]
    nu = 1.0 / lam
    # E_{Dir(β_y)} ln π_c: ψ(prior + ν [c = y]) − ψ(C prior + ν)
    e_log = digamma(prior + nu * np.eye(C)) - digamma(C * prior + nu)        # (y, c)
    flat = eta.reshape(-1, C)
    out = np.empty_like(flat)
    for i, row in enumerate(flat):
        s = row @ e_log                                                      # target's E[ln π_c]

        def f(log_a, s=s):                                                   # −E_target ln Dir(π; α), convex
            a = np.exp(log_a)
            value = gammaln(a).sum() - gammaln(a.sum()) - (a - 1) @ s
            grad = a * (digamma(a) - digamma(a.sum()) - s)
            return value, grad

        start = np.log(prior + row / lam)
        res = minimize(f, start, jac=True, method="L-BFGS-B", options={"gtol": 1e-12, "ftol": 1e-15,
                                                                        "maxiter": 500})
        out[i] = np.exp(res.x)
    return out.reshape(eta.shape)


def evidential_alpha(logits) -> torch.Tensor:
    """α = exp(f): the network's logits f as Dirichlet concentrations (the authors' ``NaiveUncertaintyModel``).

    With this parameterisation the total evidence is α₀ = Σ_c e^{f_c} = exp(logsumexp f) = exp(−E(x)), with
    E the energy score of :func:`energy_score`: EDL's evidence is an energy-based OOD score (the paper's
    reading of its Sec. 5.2 experiments on λ and OOD detection).

    Parameters
    ----------
    logits : (..., C) float tensor.

    Returns
    -------
    (..., C) tensor, > 0 (differentiable).

    Raises
    ------
    TypeError for a non-float tensor; ValueError for NaN/inf logits, C < 2, or logits so large that exp
    overflows the dtype.
    """
    f = _check_logits(logits)
    alpha = evidence(f)
    if not bool(torch.isfinite(alpha).all()):
        raise ValueError(f"exp(logits) overflows {f.dtype}: largest logit {float(f.max()):.4g}")
    return alpha


def _check_logits(logits) -> torch.Tensor:
    f = logits if isinstance(logits, torch.Tensor) else torch.as_tensor(np.asarray(logits, dtype=np.float64))
    if not f.is_floating_point():
        raise TypeError(f"logits must be a floating-point tensor, got dtype {f.dtype}")
    if f.ndim < 1 or f.shape[-1] < 2:
        raise ValueError(f"logits must have a class axis of length C >= 2, got shape {tuple(f.shape)}")
    if not bool(torch.isfinite(f).all()):
        raise ValueError("logits must be finite (no NaN or inf)")
    return f


def energy_score(logits):
    """E(x) = −logsumexp_c f_c(x), the energy score of Liu et al. (2020); higher means "more OOD".

    Parameters
    ----------
    logits : (..., C) floats (tensor or array).

    Returns
    -------
    (...,) of the input's type (NumPy in, NumPy out).

    Raises
    ------
    TypeError, ValueError as :func:`evidential_alpha` (NaN logits included).
    """
    was_numpy = not isinstance(logits, torch.Tensor)
    out = -torch.logsumexp(_check_logits(logits), dim=-1)
    return out.detach().cpu().numpy() if was_numpy else out


def distill_loss(alpha, teacher_probs, temperature: float = 1.0, smoothing: float = 1e-3) -> torch.Tensor:
    """Bootstrap-Distill's criterion: −(1/M) Σ_j ln Dir(π̂_j; α), the Dirichlet NLL of M teacher predictions.

    The M teachers are networks trained on bootstrap resamples; their predictive vectors π̂_j(x) are treated as
    draws from the meta-distribution the student Dir(α(x)) should be (the paper's remedy; the authors' code
    trains it with the EnD² loss of Malinin et al. 2020). As there, the teacher probabilities are shrunk
    towards uniform, π̂ ← (1 − s)(π̂ − 1/C) + 1/C, so that ln π̂ stays finite, and a temperature T > 1 early in training
    flattens both sides (α ← α^{1/T}, π̂ ← softmax(ln π̂ / T), the loss scaled by T²).

    Parameters
    ----------
    alpha : (n, C) concentrations > 0 (differentiable).
    teacher_probs : (n, M, C) probabilities, rows summing to 1.
    temperature : T ≥ 1.   smoothing : s in [0, 1).

    Returns
    -------
    0-d tensor, nats per sample.

    Raises
    ------
    ValueError for non-positive α, a class or sample count mismatch, teacher rows that are not probability
    vectors, T < 1 or s outside [0, 1).
    """
    alpha, _ = check_alpha(alpha)
    p = torch.as_tensor(teacher_probs, dtype=alpha.dtype, device=alpha.device)
    if p.ndim != 3 or p.shape[0] != alpha.shape[0] or p.shape[-1] != alpha.shape[-1]:
        raise ValueError(f"teacher_probs must have shape (n, M, C) = ({alpha.shape[0]}, M, {alpha.shape[-1]}), "
                         f"got {tuple(p.shape)}")
    if not bool(torch.isfinite(p).all()) or bool((p < 0).any()) or \
            not torch.allclose(p.sum(-1), torch.ones((), dtype=p.dtype), atol=1e-4):
        raise ValueError("teacher_probs must hold probability vectors (finite, >= 0, rows summing to 1)")
    if not (isinstance(temperature, (int, float)) and math.isfinite(temperature) and temperature >= 1):
        raise ValueError(f"temperature must be a number >= 1, got {temperature!r}")
    if not (isinstance(smoothing, (int, float)) and 0 <= smoothing < 1):
        raise ValueError(f"smoothing must lie in [0, 1), got {smoothing!r}")
    return _distill_nll(alpha, p, float(temperature), float(smoothing)).mean()


def _distill_nll(alpha: torch.Tensor, p: torch.Tensor, temperature: float, smoothing: float) -> torch.Tensor:
    """Per-row −(1/M) Σ_j ln Dir(π̂_j; α) · T²: alpha (..., C), p (..., M, C) -> (...,)."""
    C = alpha.shape[-1]
    p = (1.0 - smoothing) * (p - 1.0 / C) + 1.0 / C
    if temperature != 1.0:
        alpha = alpha ** (1.0 / temperature)
        p = torch.softmax(torch.log(p) / temperature, dim=-1)
    mean_log_p = torch.log(p).mean(-2)                                        # (..., C): (1/M) Σ_j ln π̂_jc
    alpha0 = alpha.sum(-1)
    nll = torch.lgamma(alpha).sum(-1) - torch.lgamma(alpha0) - ((alpha - 1.0) * mean_log_p).sum(-1)
    return nll * temperature ** 2
