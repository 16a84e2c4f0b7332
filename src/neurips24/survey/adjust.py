"""Naive and permutation-adjusted survey responses (paper §3; official ``fill.py`` and ``load_responses.py``).

The model is asked the same question under several orders of its choices. For order j, P_j[r] is the
probability of the letter at position r (renormalised over the k letters). Then

    positional distribution   choice_p[r] = mean_j P_j[r]                           (the A-bias reads choice_p[0])
    adjusted response         p_adj[c]    = mean_j P_j[pos_j(c)]                    (mapped back to choice order)

where pos_j(c) = σ_j⁻¹(c) is the position of choice c in order j (σ_j(r) = the choice shown at position r).
This is the paper's definition. The official ``process_adjusted`` (``load_responses.py``) indexes with σ_j
itself, p[c] = mean_j P_j[σ_j(c)], which agrees with σ⁻¹ only for orders that are their own inverse;
:func:`adjusted_response_sigma` computes that mapping for comparison. The naive response is P for the
questionnaire's own order.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from .metrics import SUM_TOL


def _check_k(k) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an int, got {type(k).__name__}")
    if k < 2:
        raise ValueError(f"k must be >= 2 answer choices, got {k}")
    return int(k)


def choice_orders(k: int, max_perms: int = 5000, design: str = "all", seed: int = 0) -> np.ndarray:
    """The orders in which the k choices are presented; row 0 is always the questionnaire's order (naive).

    Parameters
    ----------
    k : number of choices, k >= 2.
    max_perms : the paper's cap: all k! orders when k! <= max_perms, otherwise ``max_perms`` sampled ones
        (``design='all'``).
    design : 'all' (the paper's rule above) or 'cyclic' (the k cyclic shifts of the questionnaire's order: a
        Latin square in which every choice takes every position exactly once; the book's cheap design).
    seed : seeds the sampled orders.

    Returns
    -------
    (J, k) int64, row j lists the choice indices shown at positions 0..k-1; row 0 is 0..k-1.

    Raises
    ------
    TypeError/ValueError for k < 2, max_perms < 1 or an unknown design.
    """
    k = _check_k(k)
    if isinstance(max_perms, bool) or not isinstance(max_perms, (int, np.integer)) or max_perms < 1:
        raise ValueError(f"max_perms must be an int >= 1, got {max_perms!r}")
    if design == "cyclic":
        return np.array([np.roll(np.arange(k), -s) for s in range(k)], dtype=np.int64)
    if design != "all":
        raise ValueError(f"design must be 'all' or 'cyclic', got {design!r}")
    if math.factorial(k) <= max_perms:
        return np.array(list(itertools.permutations(range(k))), dtype=np.int64)
    rng = np.random.default_rng(seed)
    rest = [rng.permutation(k) for _ in range(max_perms - 1)]
    return np.array([np.arange(k)] + rest, dtype=np.int64)


def _check_orders(P, orders) -> tuple[np.ndarray, np.ndarray]:
    P = np.asarray(P, dtype=float)
    orders = np.asarray(orders)
    if P.ndim != 2 or P.shape[1] < 2:
        raise ValueError(f"P must be (J, k) with k >= 2, got shape {P.shape}")
    if orders.shape != P.shape:
        raise ValueError(f"orders must have P's shape {P.shape}, got {orders.shape}")
    if not np.issubdtype(orders.dtype, np.integer):
        raise TypeError(f"orders must hold integer choice indices, got dtype {orders.dtype}")
    k = P.shape[1]
    if np.any(np.sort(orders, axis=1) != np.arange(k)):
        raise ValueError("every row of orders must be a permutation of 0..k-1")
    if not np.all(np.isfinite(P)) or np.any(P < 0) or np.any(np.abs(P.sum(axis=1) - 1) > SUM_TOL):
        raise ValueError("every row of P must be a finite distribution over the k positions (sums to 1)")
    return P, orders


def adjusted_response(P, orders) -> tuple[np.ndarray, np.ndarray]:
    """Positional distribution and permutation-adjusted response (paper §3: each position mapped back through
    σ⁻¹; the official ``process_adjusted`` maps through σ instead, see :func:`adjusted_response_sigma`).

    Parameters
    ----------
    P : (J, k) float, P[j, r] = probability of the letter at position r under order j (rows sum to 1).
    orders : (J, k) int, orders[j, r] = index of the choice shown at position r (from :func:`choice_orders`).

    Returns
    -------
    choice_p : (k,) mean over orders of the positional probabilities; choice_p[0] - 1/k is the A-bias.
    p_adj : (k,) adjusted response in the questionnaire's choice order, p_adj[c] = mean_j P[j, pos_j(c)].

    Raises
    ------
    ValueError for mismatched shapes, rows of ``orders`` that are not permutations, or rows of P that are not
    distributions; TypeError for non-integer orders.
    """
    P, orders = _check_orders(P, orders)
    choice_p = P.mean(axis=0)
    p_adj = np.zeros(P.shape[1])
    np.add.at(p_adj, orders, P)          # choice orders[j, r] collects the probability of position r
    return choice_p, p_adj / P.shape[0]


def adjusted_response_sigma(P, orders) -> np.ndarray:
    """The adjusted response as the official ``process_adjusted`` computes it: p[c] = mean_j P[j, σ_j(c)].

    It reads, for choice c, the probability of the *position* whose index is the choice shown at position c,
    i.e. it maps back through σ instead of σ⁻¹. For a responder that always picks one choice (k = 5, all 120
    orders) this gives a normalised entropy of 0.935 instead of 0. Shown for comparison; the chapter uses
    :func:`adjusted_response`.

    Parameters
    ----------
    P, orders : as :func:`adjusted_response`.

    Returns
    -------
    (k,) float64, a distribution over the choices (questionnaire order).

    Raises
    ------
    As :func:`adjusted_response`.
    """
    P, orders = _check_orders(P, orders)
    return np.take_along_axis(P, orders, axis=1).mean(axis=0)


def naive_response(P, orders) -> np.ndarray:
    """The naive response: P for the questionnaire's own order (the row whose order is 0..k-1).

    Raises
    ------
    ValueError (as :func:`adjusted_response`) or if no row of ``orders`` is the identity order.
    """
    P, orders = _check_orders(P, orders)
    ident = np.all(orders == np.arange(P.shape[1]), axis=1)
    if not ident.any():
        raise ValueError("orders has no row 0..k-1 (the questionnaire's order), so there is no naive response")
    return P[np.argmax(ident)].copy()
