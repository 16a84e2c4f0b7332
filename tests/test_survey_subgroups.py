"""Subgroup divergence, subgroup entropy, Spearman and the synthetic states."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from neurips24.survey import metrics, subgroups


def test_divergence_is_the_mean_kl_over_questions():
    rng = np.random.default_rng(0)
    p = [rng.dirichlet(np.ones(2)), rng.dirichlet(np.ones(4))]
    q = [rng.dirichlet(np.ones(2), size=6), rng.dirichlet(np.ones(4), size=6)]
    want = [(metrics.kl_bits(p[0], q[0][s]) + metrics.kl_bits(p[1], q[1][s])) / 2 for s in range(6)]
    np.testing.assert_allclose(subgroups.subgroup_divergence(p, q), want, rtol=1e-12)
    H = [(metrics.normalized_entropy(q[0][s]) + metrics.normalized_entropy(q[1][s])) / 2 for s in range(6)]
    np.testing.assert_allclose(subgroups.subgroup_entropy(q), H, rtol=1e-12)


def test_uniform_responder_k2_ranks_exactly_against_entropy():
    # k = 2: KL(U || q) and H(q) are both functions of min(q); one falls as the other rises (Spearman = -1)
    q = np.random.default_rng(1).dirichlet(np.ones(2), size=40)
    div = subgroups.subgroup_divergence([np.array([0.5, 0.5])], [q])
    H = subgroups.subgroup_entropy([q])
    assert subgroups.spearman(H, div) == pytest.approx(-1.0)
    assert subgroups.spearman(H, div) == pytest.approx(spearmanr(H, div).statistic)


def test_synthetic_states_shapes_and_mixture():
    q, bases, t = subgroups.synthetic_states([2, 5, 3], n_states=30, seed=3)
    assert [a.shape for a in q] == [(30, 2), (30, 5), (30, 3)] and t.shape == (30,)
    assert all(np.allclose(a.sum(axis=1), 1) for a in q) and all(np.isclose(b.sum(), 1) for b in bases)
    assert subgroups.spearman(t, subgroups.subgroup_entropy(q)) > 0.5   # more uniform mixture, more entropy


def test_bad_inputs_raise():
    with pytest.raises(ValueError):
        subgroups.subgroup_divergence([np.array([0.5, 0.5])], [])
    with pytest.raises(ValueError):
        subgroups.subgroup_divergence([np.array([0.5, 0.5])], [np.full((3, 3), 1 / 3)])
    with pytest.raises(ValueError):
        subgroups.spearman([1, 2], [2, 1])
    with pytest.raises(ValueError):
        subgroups.spearman([1, 2, np.nan], [2, 1, 0])
    with pytest.raises(ValueError):
        subgroups.synthetic_states([1, 2])
    with pytest.raises(ValueError):
        subgroups.synthetic_states([2], n_states=2)
