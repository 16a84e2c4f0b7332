"""What a deferral system is scored on (paper Sec. 6): system accuracy, coverage, accepted accuracy.

- system accuracy: share of points on which the system is right — the model where it predicts, the expert
  where it defers;
- coverage: share of points the model keeps (does not defer);
- accepted accuracy: the model's accuracy on the points it keeps;
- deferral loss: the mean of L_def (paper eq. (1)) under the chosen cost.

Computed with NumPy from decisions (``losses.decide``); the same definitions as ``compute_deferral_metrics``
in github.com/clinicalml/human_ai_deferral (``helpers/metrics.py``).
"""
from __future__ import annotations

import numpy as np
import torch

from .losses import check_cost, check_labels, deferral_loss, expert_error_cost


def deferral_metrics(decision, y, expert, n_classes: int, cost=None) -> dict:
    """System accuracy, coverage, accepted accuracy, expert accuracy on deferred points, deferral loss.

    Parameters
    ----------
    decision : (N,) int in [0, n] (n = defer).   y, expert : (N,) int in [0, n).   n_classes : n ≥ 2.
    cost : (N,) in [0, 1] for the deferral loss; default the expert's error 1{g ≠ y}.

    Returns
    -------
    dict of floats: system_acc, coverage, accepted_acc (NaN when nothing is kept), expert_deferred_acc (NaN
    when nothing is deferred), deferral_loss; and n (number of points, int).

    Raises
    ------
    ValueError / TypeError for wrong shapes, dtypes or out-of-range values.
    """
    if isinstance(n_classes, bool) or not isinstance(n_classes, int) or n_classes < 2:
        raise ValueError(f"n_classes must be an int >= 2, got {n_classes!r}")
    d = check_labels("decision", decision, n_classes + 1)
    N = d.shape[0]
    if N == 0:
        raise ValueError("decision must hold at least one point")
    y = check_labels("y", y, n_classes, length=N)
    g = check_labels("expert", expert, n_classes, length=N)
    c = expert_error_cost(y, g) if cost is None else check_cost(cost, N)
    deferred = (d == n_classes).numpy()
    right = np.where(deferred, (g == y).numpy(), (d == y).numpy())
    kept = ~deferred
    return {
        "system_acc": float(right.mean()),
        "coverage": float(kept.mean()),
        "accepted_acc": float(right[kept].mean()) if kept.any() else float("nan"),
        "expert_deferred_acc": float(right[deferred].mean()) if deferred.any() else float("nan"),
        "deferral_loss": float(deferral_loss(d, y, torch.as_tensor(c), n_classes).mean()),
        "n": int(N),
    }
