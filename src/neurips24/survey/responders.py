"""Synthetic responders with known biases: the mechanism of ordering bias without a language model (book's own).

A responder maps the order in which the choices are shown to a distribution over the k *positions*:

- a **positional** responder ignores the content: P[j] = position_probs for every order j (a pure 'A'-bias
  when position_probs[0] > 1/k);
- a **content** responder ignores the positions: P[j, r] = choice_probs[orders[j, r]] (no ordering bias).

Adjusting a positional responder over a design in which every choice takes every position equally often gives
exactly the uniform response (paper §3); adjusting a content responder returns its choice_probs unchanged.
"""
from __future__ import annotations

import numpy as np

from .metrics import _check_distribution


def positional_P(orders, position_probs) -> np.ndarray:
    """P of a responder that picks positions with fixed probabilities, whatever is shown there.

    Parameters
    ----------
    orders : (J, k) int, the orders shown (see :func:`~neurips24.survey.adjust.choice_orders`).
    position_probs : (k,) distribution over positions (position 0 is 'A').

    Returns
    -------
    (J, k) float64, every row equal to ``position_probs``.

    Raises
    ------
    ValueError if ``position_probs`` is not a distribution over the k positions of ``orders``.
    """
    orders = np.asarray(orders)
    pos = _check_distribution(position_probs, "position_probs")
    if orders.ndim != 2 or pos.shape != (orders.shape[1],):
        raise ValueError(f"position_probs must have shape ({orders.shape[-1]},), got {pos.shape}")
    return np.broadcast_to(pos, orders.shape).copy()


def content_P(orders, choice_probs) -> np.ndarray:
    """P of a responder that picks choices with fixed probabilities, wherever they are shown.

    Parameters
    ----------
    orders : (J, k) int, the orders shown.
    choice_probs : (k,) distribution over the choices in the questionnaire's order.

    Returns
    -------
    (J, k) float64, P[j, r] = choice_probs[orders[j, r]].

    Raises
    ------
    ValueError if ``choice_probs`` is not a distribution over the k choices of ``orders``.
    """
    orders = np.asarray(orders)
    pref = _check_distribution(choice_probs, "choice_probs")
    if orders.ndim != 2 or pref.shape != (orders.shape[1],):
        raise ValueError(f"choice_probs must have shape ({orders.shape[-1]},), got {pref.shape}")
    return pref[orders]


def decaying_positions(k: int, decay: float = 0.6) -> np.ndarray:
    """Position probabilities proportional to decay**r: a responder that prefers early letters ('A' most).

    Raises
    ------
    ValueError unless k >= 2 and 0 < decay < 1.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
        raise ValueError(f"k must be an int >= 2, got {k!r}")
    if not 0 < decay < 1:
        raise ValueError(f"decay must be in (0, 1), got {decay}")
    w = decay ** np.arange(k, dtype=float)
    return w / w.sum()
