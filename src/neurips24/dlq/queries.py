"""Which transforms T(y) of the label a query class can correlate with x: SQ, CSQ and DLQ_ℓ.

The book's reading of the paper's Sec. 2 (see the chapter's Theory section for what was and was not checked):

- **SQ**: the learner asks E[φ(x, y)] ± τ for any bounded φ. Seen through a zero-mean test function ψ(x_U),
  that is E[T(y) ψ(x_U)] for *any* T.
- **CSQ**: only E[y h(x)] ± τ: T(y) = y.
- **DLQ_ℓ** (differentiable learning queries): the gradient ∇_w E[ℓ(f(x; w), y)] ± τ of the loss ℓ for any
  differentiable model f at any w. By the chain rule it is E[ℓ'(f(x; w), y) ∇_w f(x; w)], where ℓ' is the
  derivative in the prediction; at a point where the model's output is a constant u, the query correlates
  T_u(y) = ℓ'(u, y) with the arbitrary function ∇_w f(x; w). The family of T is the span of {ℓ'(u, ·): u ∈ ℝ}.

For the squared loss ℓ = (u − y)²/2, ℓ'(u, y) = u − y spans {1, y}: against a zero-mean ψ, DLQ = CSQ. For the
absolute loss ℓ = |u − y|, ℓ'(u, y) = sign(u − y): threshold functions of y, whose span contains every function
of a label with finitely many values: DLQ = SQ. The Huber loss interpolates (ℓ' = clip(u − y, −δ, δ)).
"""
from __future__ import annotations

import math

import numpy as np

LOSSES = ("squared", "l1", "huber")


def _check_labels(y) -> np.ndarray:
    y = np.asarray(y, dtype=np.float64)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-d array of labels, got shape {y.shape}")
    if not np.all(np.isfinite(y)):
        raise ValueError("y must be finite (no NaN or inf labels)")
    return y


def _check_loss(loss: str, delta) -> float:
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {LOSSES}, got {loss!r}")
    if isinstance(delta, bool) or not isinstance(delta, (int, float, np.floating)) or not (
            math.isfinite(float(delta)) and float(delta) > 0):
        raise ValueError(f"delta (the Huber threshold) must be a finite number > 0, got {delta!r}")
    return float(delta)


def loss_derivative(loss: str, u, y, delta: float = 1.0) -> np.ndarray:
    """ℓ'(u, y) = ∂ℓ(u, y)/∂u, the factor a gradient query multiplies ∇_w f by (book's reading of Sec. 2).

    squared: ℓ = (u − y)²/2, ℓ' = u − y.   l1: ℓ = |u − y|, ℓ' = sign(u − y) (0 at u = y).
    huber: ℓ' = clip(u − y, −δ, δ).

    Parameters
    ----------
    loss : 'squared', 'l1' or 'huber'.
    u : the model's output, a finite scalar or an array broadcastable against ``y``.
    y : (n,) finite labels.
    delta : Huber threshold δ > 0 (ignored by the other losses).

    Returns
    -------
    (n,) float64, or the broadcast shape of ``u`` and ``y``.

    Raises
    ------
    ValueError for an unknown loss, non-finite u or y, a non-1-d y or δ <= 0.
    """
    delta = _check_loss(loss, delta)
    y = _check_labels(y)
    u = np.asarray(u, dtype=np.float64)
    if not np.all(np.isfinite(u)):
        raise ValueError("u (the model output) must be finite")
    r = u - y
    if loss == "squared":
        return r
    if loss == "l1":
        return np.sign(r)
    return np.clip(r, -delta, delta)


def query_transforms(query: str, y, *, loss: str = "l1", u=0.0, delta: float = 1.0,
                   levels=None) -> tuple[np.ndarray, list[str]]:
    """The transforms T(y) a query class correlates with x, evaluated on labels: (n, K) and K names.

    Parameters
    ----------
    query : 'csq' (T = y), 'dlq' (T_u = ℓ'(u, y) for each u given) or 'sq' (T_v = 1[y = v] for each label
        value v in ``levels``: a basis of all functions of a label with finitely many values).
    y : (n,) finite labels.
    loss, delta : the loss of a DLQ query (see :func:`loss_derivative`).
    u : a finite scalar or a 1-d array of model outputs, one column each (DLQ only).
    levels : (L,) the label values for 'sq' (e.g. ``Junta.label_values()``); required for 'sq'.

    Returns
    -------
    T : (n, K) float64; names : K strings such as 'T = y', "ℓ1'(u=0, y)", '1[y=8]'.

    Raises
    ------
    ValueError for an unknown query or loss, non-finite labels, or 'sq' without ``levels``, with non-finite
    ``levels`` or with a label that is none of the ``levels`` (its indicator row would silently be all zero).
    """
    y = _check_labels(y)
    if query == "csq":
        return y[:, None].copy(), ["T = y"]
    if query == "dlq":
        us = np.atleast_1d(np.asarray(u, dtype=np.float64))
        if us.ndim != 1 or not np.all(np.isfinite(us)):
            raise ValueError(f"u must be a finite scalar or 1-d array, got {u!r}")
        T = np.stack([loss_derivative(loss, ui, y, delta) for ui in us], axis=1)
        return T, [f"{loss}'(u={ui:g}, y)" for ui in us]
    if query == "sq":
        if levels is None:
            raise ValueError("query 'sq' needs the label values (levels)")
        levels = np.asarray(levels, dtype=np.float64).ravel()
        if levels.size == 0 or not np.all(np.isfinite(levels)):
            raise ValueError(f"levels must be a non-empty array of finite label values, got {levels!r}")
        ind = np.isclose(y[:, None], levels[None, :], rtol=0, atol=1e-9).astype(np.float64)
        outside = ~ind.any(axis=1)
        if outside.any():
            raise ValueError(f"y has {int(outside.sum())} label(s) outside levels {levels.tolist()} "
                             f"(e.g. {float(y[outside][0])!r}): every label must be one of the levels")
        return ind, [f"1[y={v:.3g}]" for v in levels]
    raise ValueError(f"query must be 'csq', 'dlq' or 'sq', got {query!r}")
