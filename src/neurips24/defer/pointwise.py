"""Pointwise (conditional) analysis: does the minimiser of a surrogate's conditional risk make the Bayes decision?

Bayes-consistency is a statement about one input x at a time: with the label distribution p(·|x) and the
costs c(x, ·), the surrogate's conditional risk C(h) = E_{y|x} L(h, x, y) must be minimised by scores whose
decision argmax h is a minimiser of the deferral loss's conditional risk — predict y at cost 1 − p(y|x), or
defer at cost E_{y|x} c(x, y). (Realizable H-consistency and H-consistency bounds are stronger statements; this
is the part one can check by computation.)

:func:`bayes_failure_share` draws random conditional problems (SciPy-free: NumPy draws, torch minimises), and
counts how often a surrogate's minimiser decides worse than Bayes. A problem is a list of atoms (probability,
label, cost): for a general cost, one atom per label with a cost c_y; for the classification-error cost with
an expert who is right with probability a_y when the label is y, two atoms per label: (p_y a_y, y, 0) and
(p_y (1 − a_y), y, 1).
"""
from __future__ import annotations

import numpy as np
import torch

from .losses import check_q, surrogate

COST_KINDS = ("general", "expert_error")


def draw_problems(n_problems: int, n_classes: int, kind: str, seed: int = 0):
    """Random conditional problems: weights (B, M), labels (M,), costs (B, M), Bayes costs (B, n + 1).

    kind 'general': p ~ Dirichlet(1), c_y ~ U(0, 1) (M = n atoms); 'expert_error': p ~ Dirichlet(1), the
    expert right with probability a_y ~ U(0, 1) when the label is y (M = 2n atoms, costs 0 and 1).

    Raises
    ------
    ValueError for an unknown kind, n_problems < 1 or n_classes < 2.
    """
    if kind not in COST_KINDS:
        raise ValueError(f"kind must be one of {COST_KINDS}, got {kind!r}")
    if isinstance(n_problems, bool) or not isinstance(n_problems, int) or n_problems < 1:
        raise ValueError(f"n_problems must be an int >= 1, got {n_problems!r}")
    if isinstance(n_classes, bool) or not isinstance(n_classes, int) or n_classes < 2:
        raise ValueError(f"n_classes must be an int >= 2, got {n_classes!r}")
    rng = np.random.default_rng(seed)
    B, n = n_problems, n_classes
    p = rng.dirichlet(np.ones(n), size=B)
    if kind == "general":
        c = rng.uniform(0.0, 1.0, size=(B, n))
        weights, labels, costs = p, np.arange(n), c
        defer_cost = (p * c).sum(1)
    else:
        a = rng.uniform(0.0, 1.0, size=(B, n))
        weights = np.concatenate([p * a, p * (1 - a)], axis=1)
        labels = np.concatenate([np.arange(n), np.arange(n)])
        costs = np.concatenate([np.zeros((B, n)), np.ones((B, n))], axis=1)
        defer_cost = (p * (1 - a)).sum(1)
    bayes_costs = np.concatenate([1.0 - p, defer_cost[:, None]], axis=1)
    return weights, labels, costs, bayes_costs


def minimise_conditional_risk(weights, labels, costs, name: str, q: float | None = None, *, steps: int = 2000,
                              lr: float = 0.1) -> np.ndarray:
    """Scores h (B, n + 1) that (approximately) minimise C(h) = Σ_m w_m L(h; y_m, c_m) for each problem.

    Adam on all B problems at once (they are independent); torch autograd on :mod:`.losses`. Where the
    infimum is only approached as scores diverge (log-type Ψ), the decision argmax h settles long before.

    Raises
    ------
    ValueError for q ∉ (0, 1] or an unknown surrogate name.
    """
    check_q(q)
    w = torch.as_tensor(weights, dtype=torch.float64)
    y = torch.as_tensor(labels, dtype=torch.int64)
    c = torch.as_tensor(costs, dtype=torch.float64)
    n = int(y.max()) + 1
    h = torch.zeros(w.shape[0], n + 1, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([h], lr=lr)
    for _ in range(steps):
        opt.zero_grad()
        risk = (w * surrogate(name, h.unsqueeze(1).expand(-1, y.shape[0], -1), y, c, q=q)).sum()
        risk.backward()
        opt.step()
    return h.detach().numpy()


def bayes_failure_share(name: str, q: float | None = None, kind: str = "general", *, n_problems: int = 300,
                        n_classes: int = 3, seed: int = 0, tie_gap: float = 0.02, steps: int = 2000) -> dict:
    """Share of random conditional problems on which the surrogate's minimiser decides worse than Bayes.

    Problems whose two best Bayes decisions are closer than ``tie_gap`` are left out (near-ties make the
    decision arbitrary). A decision is wrong if its Bayes cost exceeds the best by more than 1e-3.

    Returns
    -------
    dict: failures (int), problems (int, after leaving out near-ties), share (float), excess (mean extra Bayes
    cost of the wrong decisions, 0 if none).

    Raises
    ------
    ValueError as :func:`draw_problems` and :func:`minimise_conditional_risk`; tie_gap must be in [0, 1).
    """
    if not isinstance(tie_gap, (int, float)) or not 0 <= tie_gap < 1:
        raise ValueError(f"tie_gap must be in [0, 1), got {tie_gap!r}")
    weights, labels, costs, bayes = draw_problems(n_problems, n_classes, kind, seed)
    sorted_costs = np.sort(bayes, axis=1)
    keep = sorted_costs[:, 1] - sorted_costs[:, 0] >= tie_gap
    h = minimise_conditional_risk(weights[keep], labels, costs[keep], name, q, steps=steps)
    decision = np.where(h[:, -1] >= h[:, :-1].max(1), n_classes, h[:, :-1].argmax(1))
    chosen = bayes[keep][np.arange(keep.sum()), decision]
    extra = chosen - bayes[keep].min(1)
    wrong = extra > 1e-3
    return {"failures": int(wrong.sum()), "problems": int(keep.sum()), "share": float(wrong.mean()),
            "excess": float(extra[wrong].mean()) if wrong.any() else 0.0}
