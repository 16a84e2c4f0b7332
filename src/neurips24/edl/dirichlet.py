"""The Dirichlet meta-distribution of evidential deep learning and its uncertainty decomposition.

An evidential model maps an input x to a Dirichlet p_ψ(π | x) = Dir(π; α_ψ(x)) over the class probabilities
π of C classes (Shen et al. 2024, Sec. 2). From α (one row per input) it reads three uncertainties, in nats:

- **total** H(ᾱ) with ᾱ = α / α₀ the predictive (mean) distribution and α₀ = Σ_c α_c the *total evidence*;
- **aleatoric** E_{π ~ Dir(α)} H(π) = −Σ_c ᾱ_c (ψ(α_c + 1) − ψ(α₀ + 1)), the expected entropy;
- **epistemic** = total − aleatoric = I(y; π), the mutual information between label and class probabilities.

ψ is the digamma function. torch.special computes ψ and ln Γ (so the functions are differentiable); a NumPy
array in gives a NumPy array out. Also here: the KL divergence between two Dirichlets, which the paper's
unified objective is built from (:mod:`neurips24.edl.objectives`).
"""
from __future__ import annotations

import numpy as np
import torch

__all__ = ["check_alpha", "total_evidence", "total_uncertainty", "aleatoric_uncertainty",
           "epistemic_uncertainty", "uncertainties", "kl_dirichlet", "ensemble_uncertainties"]


def check_alpha(alpha, name: str = "alpha") -> tuple[torch.Tensor, bool]:
    """``alpha`` as a float64/float32 tensor with rows of C ≥ 2 positive finite entries, and whether it was NumPy.

    Raises
    ------
    TypeError if ``alpha`` is not a real array (e.g. an integer or complex tensor, a string, None);
    ValueError, naming ``name``, if it has no class axis of length ≥ 2, or an entry is NaN, inf or ≤ 0.
    """
    was_numpy = not isinstance(alpha, torch.Tensor)
    if was_numpy:
        try:
            arr = np.asarray(alpha)
        except Exception as exc:  # ragged lists and the like
            raise TypeError(f"{name} must be an array of concentrations, got {type(alpha).__name__}") from exc
        if arr.dtype.kind not in "fiu" or arr.dtype == bool:
            raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
        alpha = torch.as_tensor(arr.astype(np.float64))
    elif not alpha.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor, got dtype {alpha.dtype}")
    if alpha.ndim < 1 or alpha.shape[-1] < 2:
        raise ValueError(f"{name} must have a last (class) axis of length C >= 2, got shape {tuple(alpha.shape)}")
    with torch.no_grad():
        if not bool(torch.isfinite(alpha).all()):
            raise ValueError(f"{name} must be finite (no NaN or inf)")
        if not bool((alpha > 0).all()):
            raise ValueError(f"{name} must be > 0 (Dirichlet concentrations), got min {float(alpha.min()):.3g}")
    return alpha, was_numpy


def _out(x: torch.Tensor, was_numpy: bool):
    return x.detach().cpu().numpy() if was_numpy else x


def total_evidence(alpha):
    """α₀ = Σ_c α_c, the total evidence (precision) of each Dirichlet.

    Parameters
    ----------
    alpha : (..., C) positive floats.

    Returns
    -------
    (...,) array or tensor (the type of ``alpha``).

    Raises
    ------
    TypeError, ValueError as :func:`check_alpha`.
    """
    alpha, was_numpy = check_alpha(alpha)
    return _out(alpha.sum(-1), was_numpy)


def _total(alpha: torch.Tensor) -> torch.Tensor:
    p = alpha / alpha.sum(-1, keepdim=True)
    return -(torch.special.xlogy(p, p)).sum(-1)


def _aleatoric(alpha: torch.Tensor) -> torch.Tensor:
    alpha0 = alpha.sum(-1, keepdim=True)
    p = alpha / alpha0
    return -(p * (torch.special.digamma(alpha + 1) - torch.special.digamma(alpha0 + 1))).sum(-1)


def total_uncertainty(alpha):
    """H(ᾱ), the entropy of the predictive distribution ᾱ = α / α₀, in nats.

    Parameters
    ----------
    alpha : (..., C) positive floats.

    Returns
    -------
    (...,) nats, in [0, ln C].

    Raises
    ------
    TypeError, ValueError as :func:`check_alpha`.
    """
    alpha, was_numpy = check_alpha(alpha)
    return _out(_total(alpha), was_numpy)


def aleatoric_uncertainty(alpha):
    """E_{π ~ Dir(α)} H(π) = −Σ_c (α_c / α₀)(ψ(α_c + 1) − ψ(α₀ + 1)), in nats (the expected entropy).

    The closed form uses E[π_c ln π_c] = (α_c / α₀)(ψ(α_c + 1) − ψ(α₀ + 1)) for π ~ Dir(α).

    Parameters
    ----------
    alpha : (..., C) positive floats.

    Returns
    -------
    (...,) nats.

    Raises
    ------
    TypeError, ValueError as :func:`check_alpha`.
    """
    alpha, was_numpy = check_alpha(alpha)
    return _out(_aleatoric(alpha), was_numpy)


def epistemic_uncertainty(alpha):
    """I(y; π) = H(ᾱ) − E H(π), the mutual information of Dir(α), in nats (the epistemic part).

    It vanishes only as α₀ → ∞ (the Dirichlet concentrates on one π): for fixed α₀ it is bounded below by a
    positive number, which is why a constant total evidence keeps it from vanishing (chapter, Theory).

    Parameters
    ----------
    alpha : (..., C) positive floats.

    Returns
    -------
    (...,) nats, ≥ 0.

    Raises
    ------
    TypeError, ValueError as :func:`check_alpha`.
    """
    alpha, was_numpy = check_alpha(alpha)
    return _out(_total(alpha) - _aleatoric(alpha), was_numpy)


def uncertainties(alpha) -> dict:
    """Total evidence and the three uncertainties of each row, as NumPy arrays.

    Returns
    -------
    dict with 'alpha0', 'total', 'aleatoric', 'epistemic': each (...,) float64 NumPy array.

    Raises
    ------
    TypeError, ValueError as :func:`check_alpha`.
    """
    alpha, _ = check_alpha(alpha)
    with torch.no_grad():
        a = alpha.double()
        tot, ale = _total(a), _aleatoric(a)
        return {"alpha0": a.sum(-1).cpu().numpy(), "total": tot.cpu().numpy(), "aleatoric": ale.cpu().numpy(),
                "epistemic": (tot - ale).cpu().numpy()}


def kl_dirichlet(alpha, beta):
    """KL(Dir(α) ‖ Dir(β)) in nats, row by row.

    KL = ln Γ(α₀) − Σ ln Γ(α_c) − ln Γ(β₀) + Σ ln Γ(β_c) + Σ (α_c − β_c)(ψ(α_c) − ψ(α₀)).

    Parameters
    ----------
    alpha, beta : (..., C) positive floats, broadcastable to each other, the same C.

    Returns
    -------
    (...,) nats, ≥ 0 (zero iff α = β).

    Raises
    ------
    TypeError, ValueError as :func:`check_alpha`; ValueError if the class counts differ.
    """
    alpha, was_numpy = check_alpha(alpha, "alpha")
    beta, _ = check_alpha(beta, "beta")
    if alpha.shape[-1] != beta.shape[-1]:
        raise ValueError(f"alpha and beta must have the same number of classes, got {alpha.shape[-1]} "
                         f"and {beta.shape[-1]}")
    return _out(_kl(alpha, beta.to(alpha.dtype)), was_numpy)


def _kl(alpha: torch.Tensor, beta: torch.Tensor) -> torch.Tensor:
    alpha0, beta0 = alpha.sum(-1), beta.sum(-1)
    digamma_gap = torch.special.digamma(alpha) - torch.special.digamma(alpha0).unsqueeze(-1)
    return (torch.lgamma(alpha0) - torch.lgamma(alpha).sum(-1) - torch.lgamma(beta0) + torch.lgamma(beta).sum(-1)
            + ((alpha - beta) * digamma_gap).sum(-1))


def ensemble_uncertainties(probs) -> dict:
    """The same decomposition for an ensemble: M predictive vectors π_1..π_M per input instead of a Dirichlet.

    total = H((1/M) Σ_j π_j), aleatoric = (1/M) Σ_j H(π_j), epistemic = total − aleatoric (the ensemble's
    mutual information, as for deep ensembles and the bootstrap).

    Parameters
    ----------
    probs : (M, ..., C) probability vectors, M ≥ 2.

    Returns
    -------
    dict with 'total', 'aleatoric', 'epistemic': (...,) float64 NumPy arrays, nats.

    Raises
    ------
    ValueError if M < 2, C < 2, or the rows are not probability vectors (NaN included).
    """
    p = np.asarray(probs, dtype=np.float64)
    if p.ndim < 2 or p.shape[0] < 2 or p.shape[-1] < 2:
        raise ValueError(f"probs must have shape (M, ..., C) with M >= 2 and C >= 2, got {p.shape}")
    if not np.all(np.isfinite(p)) or np.any(p < 0) or not np.allclose(p.sum(-1), 1.0, atol=1e-6):
        raise ValueError("probs must hold probability vectors (finite, >= 0, rows summing to 1)")
    from scipy.special import entr

    total = entr(p.mean(0)).sum(-1)
    aleatoric = entr(p).sum(-1).mean(0)
    return {"total": total, "aleatoric": aleatoric, "epistemic": total - aleatoric}
