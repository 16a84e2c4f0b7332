"""Response metrics of the paper (§3-§4; official ``plot_utils/plot_utils.py``): entropy, KL, A-bias.

All logarithms are base 2 (bits), as in the official code. The KL divergence sums only over the choices where
the model's p is non-zero (0 log 0 = 0); where p > 0 and the reference q = 0 it is +inf, as it is in the
official code (the paper drops ESR and JWTRNS from the subgroup average for this reason).
"""
from __future__ import annotations

import numpy as np

SUM_TOL = 1e-6   # a distribution must sum to 1 within this


def _check_distribution(p, name: str) -> np.ndarray:
    """``p`` as a float64 array whose last axis is a distribution; ValueError/TypeError naming ``name``."""
    if isinstance(p, (str, bytes)) or p is None:
        raise TypeError(f"{name} must be an array of probabilities, got {type(p).__name__}")
    a = np.asarray(p)
    if a.dtype == bool or not (np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.integer)):
        raise TypeError(f"{name} must hold real numbers, got dtype {a.dtype}")
    a = a.astype(float)
    if a.ndim == 0 or a.shape[-1] < 2:
        raise ValueError(f"{name} must have k >= 2 choices on its last axis, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if np.any(a < 0):
        raise ValueError(f"{name} must be non-negative")
    s = a.sum(axis=-1)
    if np.any(np.abs(s - 1.0) > SUM_TOL):
        raise ValueError(f"{name} must sum to 1 over its last axis (within {SUM_TOL}); sums are {np.round(s, 6)}")
    return a


def entropy_bits(p) -> np.ndarray:
    """Shannon entropy H(p) = -sum_i p_i log2 p_i in bits, with 0 log 0 = 0.

    Parameters
    ----------
    p : (..., k) distributions over k >= 2 choices (each sums to 1).

    Returns
    -------
    (...) float64, in [0, log2 k].

    Raises
    ------
    ValueError for k < 2, NaN/inf, negative entries or rows that do not sum to 1; TypeError for non-numbers.
    """
    a = _check_distribution(p, "p")
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(a > 0, a * np.log2(np.where(a > 0, a, 1.0)), 0.0)
    return -terms.sum(axis=-1)


def normalized_entropy(p) -> np.ndarray:
    """H(p) / log2 k in [0, 1]: 1 for the uniform response, 0 for a deterministic one (paper, Figs. 2, 4)."""
    a = _check_distribution(p, "p")
    return entropy_bits(a) / np.log2(a.shape[-1])


def kl_bits(p, q) -> np.ndarray:
    """KL(p || q) = sum_{i: p_i > 0} p_i log2(p_i / q_i) in bits (official ``compute_kl``).

    Parameters
    ----------
    p : (..., k) the model's response distribution.
    q : (..., k) the reference (census, a subgroup, or uniform); broadcast against ``p``.

    Returns
    -------
    (...) float64 >= 0; +inf where some p_i > 0 has q_i = 0 (the reference rules out an answer the model gives).

    Raises
    ------
    ValueError if the last axes differ or either argument is not a distribution; TypeError for non-numbers.
    """
    a = _check_distribution(p, "p")
    b = _check_distribution(q, "q")
    if a.shape[-1] != b.shape[-1]:
        raise ValueError(f"p and q must have the same number of choices, got {a.shape[-1]} and {b.shape[-1]}")
    a, b = np.broadcast_arrays(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(a > 0, a / b, 1.0)
        terms = np.where(a > 0, a * np.log2(ratio), 0.0)
    return terms.sum(axis=-1)


def kl_to_uniform(p) -> np.ndarray:
    """KL(p || U_k) = log2 k - H(p) in bits: the divergence of a response from the uniformly random one."""
    a = _check_distribution(p, "p")
    return kl_bits(a, np.full(a.shape[-1], 1.0 / a.shape[-1]))


def a_bias(choice_p) -> np.ndarray:
    """A-bias = choice_p[0] - 1/k: how much more than chance the first-listed letter ('A') is chosen (paper §3).

    Parameters
    ----------
    choice_p : (..., k) positional distribution, the mean over choice orders of the probability of each
        *position* (see :func:`~neurips24.survey.adjust.adjusted_response`).

    Returns
    -------
    (...) float64 in [-1/k, 1 - 1/k]; 0 for a responder without positional preference for 'A'.
    """
    a = _check_distribution(choice_p, "choice_p")
    return a[..., 0] - 1.0 / a.shape[-1]


def closer_to_census_fraction(kl_census, kl_uniform) -> float:
    """Fraction of questions with KL(p, U) >= KL(p, census): closer to the census than to uniform (paper, Fig. 5).

    Parameters
    ----------
    kl_census, kl_uniform : (n,) divergences in bits of the same n >= 1 questions (kl_census may be +inf).

    Returns
    -------
    float in [0, 1].

    Raises
    ------
    ValueError for empty or mismatched inputs, NaN, negative values, or an infinite ``kl_uniform``.
    """
    c = np.asarray(kl_census, dtype=float)
    u = np.asarray(kl_uniform, dtype=float)
    if c.ndim != 1 or c.shape != u.shape or c.size == 0:
        raise ValueError(f"kl_census and kl_uniform must be 1-d of the same length >= 1, got {c.shape}, {u.shape}")
    if np.any(np.isnan(c)) or np.any(np.isnan(u)) or np.any(c < 0) or np.any(u < 0):
        raise ValueError("divergences must be non-negative numbers (no NaN)")
    if not np.all(np.isfinite(u)):
        raise ValueError("kl_uniform must be finite (the uniform distribution has no zero cells)")
    return float(np.mean(u >= c))
