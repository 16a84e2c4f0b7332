"""Conditional-risk minimisers against closed forms and the worked two-label example (defer.pointwise)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.defer import pointwise as P


def _softmax(h):
    e = np.exp(h - h.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def test_ce_minimiser_is_the_normalised_target():
    # L_CE's conditional risk is a cross-entropy against (p_1, ..., p_n, 1 − c̄): its minimiser is that target
    # divided by its sum (Gibbs' inequality)
    w, y, c, _ = P.draw_problems(20, 3, "general", seed=1)
    h = P.minimise_conditional_risk(w, y, c, "ce", steps=4000, lr=0.05)
    target = np.concatenate([w, (w * (1 - c)).sum(1, keepdims=True)], axis=1)
    np.testing.assert_allclose(_softmax(h), target / target.sum(1, keepdims=True), atol=2e-3)


def test_linear_psi_minimiser_is_the_bayes_rule():
    out = P.bayes_failure_share("rl2d", 1.0, "general", n_problems=60, seed=2, steps=1500)
    assert out["failures"] == 0 and out["problems"] > 40


def test_worked_example_log_psi_with_a_random_expert():
    # two equally likely labels, an expert right with probability a = 0.6 on either: Bayes defers (0.4 < 0.5),
    # the Ψ = −log minimiser is s = (1 − a, 1 − a, 2a − 1) = (0.4, 0.4, 0.2) and predicts
    weights = np.array([[0.3, 0.3, 0.2, 0.2]])
    labels = np.array([0, 1, 0, 1])
    costs = np.array([[0.0, 0.0, 1.0, 1.0]])
    h = P.minimise_conditional_risk(weights, labels, costs, "rl2d", None, steps=4000, lr=0.05)
    np.testing.assert_allclose(_softmax(h)[0], [0.4, 0.4, 0.2], atol=2e-3)
    h1 = P.minimise_conditional_risk(weights, labels, costs, "rl2d", 1.0, steps=2000)
    assert h1[0].argmax() == 2                                    # Ψ_1 defers, as Bayes does


def test_draw_problems_bayes_costs():
    w, y, c, bayes = P.draw_problems(5, 4, "expert_error", seed=0)
    assert w.shape == (5, 8) and c.shape == (5, 8) and bayes.shape == (5, 5)
    np.testing.assert_allclose(w.sum(1), 1.0)
    np.testing.assert_allclose(bayes[:, -1], (w * c).sum(1))       # defer cost = P(expert wrong)


def test_bad_input():
    with pytest.raises(ValueError, match="kind"):
        P.draw_problems(3, 3, "other")
    with pytest.raises(ValueError, match="n_classes"):
        P.draw_problems(3, 1, "general")
    with pytest.raises(ValueError, match="tie_gap"):
        P.bayes_failure_share("ce", tie_gap=2.0)
    with pytest.raises(ValueError, match="q must lie in"):
        P.minimise_conditional_risk(np.ones((1, 2)) / 2, np.array([0, 1]), np.zeros((1, 2)), "rl2d", q=0.0)
