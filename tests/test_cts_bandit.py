"""The semi-bandit environment: instances, oracle, rewards, regret, bad input (cts.bandit)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.cts.bandit import SemiBandit, explicit_bandit, sequential_action_sums, top_m_bandit, two_sets


@pytest.mark.parametrize("m", [1, 5, 35])
def test_two_sets_instance(m):
    b = two_sets(m)
    assert b.d == 2 * m and b.m == m and b.n_actions == 2
    np.testing.assert_array_equal(b.actions[0], np.r_[np.ones(m), np.zeros(m)])
    np.testing.assert_array_equal(b.actions[1], np.r_[np.zeros(m), np.ones(m)])
    assert b.best_value == pytest.approx(0.9 * m)
    assert b.delta_min == pytest.approx(0.2 * m) and b.delta_max == pytest.approx(0.2 * m)
    np.testing.assert_allclose(b.gaps(), [0.2 * m, 0.0], atol=1e-12)
    assert b.linear_regret(1000) == pytest.approx(200 * m)


def test_explicit_oracle_hand_case_and_ties():
    A = [[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 0, 1]]
    b = explicit_bandit([0.1, 0.2, 0.3, 0.4], A)
    theta = np.array([[1.0, 1.0, 0.0, 0.0],     # action 0 scores 2
                      [0.0, 0.0, 0.5, 0.2],     # action 1: 0.7
                      [0.5, 0.0, 0.5, 0.25],    # actions 1 and 2 tie at 0.75 -> lowest index 1
                      [0.9, 0.0, 0.0, 0.2]])    # action 2: 1.1
    mask, index = b.oracle(theta)
    np.testing.assert_array_equal(index, [0, 1, 1, 2])
    np.testing.assert_array_equal(mask, np.asarray(A, float)[[0, 1, 1, 2]])
    # regret: best = 0.7 (action 1); action 0 -> 0.4, action 2 -> 0.2
    np.testing.assert_allclose(b.gaps(), [0.4, 0.0, 0.2], atol=1e-12)
    assert b.delta_min == pytest.approx(0.2) and b.delta_max == pytest.approx(0.4)


def test_oracle_prefers_actions_with_unplayed_arms():
    b = two_sets(3)
    theta = np.array([[5.0] * 3 + [0.0, np.inf, 0.0],      # A* holds an unplayed arm -> +inf
                      [np.inf, 0, 0, np.inf, 0, 0],         # both hold one -> tie -> action 0
                      [1.0] * 6])
    _, index = b.oracle(theta)
    np.testing.assert_array_equal(index, [1, 0, 0])


def test_top_m_oracle_and_gaps():
    b = top_m_bandit([0.5, 0.9, 0.1, 0.7, 0.3], 2)
    mask, index = b.oracle(np.array([[0.5, 0.9, 0.1, 0.7, 0.3], [np.inf, 0.0, 0.0, 0.0, 1.0]]))
    assert index is None
    np.testing.assert_array_equal(mask, [[0, 1, 0, 1, 0], [1, 0, 0, 0, 1]])
    assert b.best_value == pytest.approx(1.6)
    assert b.delta_max == pytest.approx(1.6 - 0.4)
    assert b.delta_min == pytest.approx(0.2)            # swap 0.7 for 0.5
    np.testing.assert_allclose(b.regret(mask), [0.0, 1.6 - 0.8])


def test_sequential_sums_hand_case():
    x = np.array([[1.0, 2.0, 4.0]])
    A = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]])
    np.testing.assert_array_equal(sequential_action_sums(x, A), [[5.0, 6.0]])


def test_bernoulli_and_gaussian_rewards():
    rng = np.random.default_rng(0)
    b = two_sets(2)
    X = np.concatenate([b.draw_rewards(rng, 5000) for _ in range(4)])
    assert set(np.unique(X)) <= {0.0, 1.0}
    np.testing.assert_allclose(X.mean(axis=0), b.mu, atol=0.015)      # 20 000 draws: sd ≈ 0.003
    g = two_sets(2, noise="gaussian", noise_sd=2.0)
    Y = g.draw_rewards(rng, 20000)
    np.testing.assert_allclose(Y.mean(axis=0), g.mu, atol=0.06)
    np.testing.assert_allclose(Y.std(axis=0), 2.0, rtol=0.03)


@pytest.mark.parametrize("m", [0, -1, 2.5, True])
def test_bad_m(m):
    with pytest.raises(ValueError, match="m must be"):
        two_sets(m)
    with pytest.raises(ValueError, match="m must be"):
        top_m_bandit([0.1, 0.2], m)


def test_top_m_larger_than_d():
    with pytest.raises(ValueError, match=r"m must be an integer in \[1, d=2\]"):
        top_m_bandit([0.1, 0.2], 3)


@pytest.mark.parametrize("mu", [[-0.1, 0.5], [0.5, 1.2]])
def test_bernoulli_means_outside_unit_interval(mu):
    with pytest.raises(ValueError, match=r"mu must lie in \[0, 1\]"):
        explicit_bandit(mu, [[1, 1]])
    with pytest.raises(ValueError, match=r"mu must lie in \[0, 1\]"):
        top_m_bandit(mu, 1)
    explicit_bandit(mu, [[1, 1]], noise="gaussian")                    # fine for Gaussian rewards


def test_two_sets_bad_means():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        two_sets(3, mu_high=1.5)


@pytest.mark.parametrize(("actions", "msg"), [([[1, 0, 1]], "shape"), ([[1, 2]], "only 0 and 1"),
                                               ([[0, 0]], "at least one arm"), ([1, 0], "shape")])
def test_bad_actions(actions, msg):
    with pytest.raises(ValueError, match=msg):
        explicit_bandit([0.1, 0.2], actions)


def test_bad_noise():
    with pytest.raises(ValueError, match="noise must be one of"):
        two_sets(2, noise="poisson")
    with pytest.raises(ValueError, match="noise_sd"):
        two_sets(2, noise="gaussian", noise_sd=0.0)


# --- SemiBandit checks itself on construction (a direct call runs the same checks as the factories) ---

def test_direct_construction_is_checked():
    with pytest.raises(ValueError, match=r"m must be an integer in \[1, d=2\]"):
        SemiBandit(mu=[0.5, 0.6], m=5)                      # used to report a best value of 1.1
    with pytest.raises(ValueError, match="noise must be one of"):
        SemiBandit(mu=[0.5, 0.6], m=1, noise="poisson")     # used to draw Gaussians
    b = SemiBandit(mu=[0.5, 0.6], m=1)
    assert b.best_value == pytest.approx(0.6) and b.mu.dtype == np.float64


@pytest.mark.parametrize(("kwargs", "err", "msg"), [
    (dict(mu=["0.5", "0.6"], m=1), TypeError, "mu must be an array of real numbers"),
    (dict(mu=[0.5, np.nan], m=1), ValueError, "mu must be finite"),
    (dict(mu=[[0.5, 0.6]], m=1), ValueError, "1-D array"),
    (dict(mu=[0.5, 1.5], m=1), ValueError, r"\[0, 1\]"),
    (dict(mu=[0.5, 0.6], m=0), ValueError, "m must be"),
    (dict(mu=[0.5, 0.6], m=1.0), ValueError, "m must be"),
    (dict(mu=[0.5, 0.6], m=1, actions=[[1, 1]]), ValueError, "largest decision size"),
    (dict(mu=[0.5, 0.6], m=1, actions=[[1, 2]]), ValueError, "only 0 and 1"),
    (dict(mu=[0.5, 0.6], m=1, actions=[["a", "b"]]), TypeError, "actions must be a numeric"),
    (dict(mu=[0.5, 0.6], m=1, noise="gaussian", noise_sd="1"), TypeError, "noise_sd must be a real number"),
    (dict(mu=[0.5, 0.6], m=1, noise="gaussian", noise_sd=np.inf), ValueError, "noise_sd must be a finite"),
    (dict(mu=[0.5, 0.6], m=1, name=3), TypeError, "name must be a str"),
])
def test_direct_construction_bad_input(kwargs, err, msg):
    with pytest.raises(err, match=msg):
        SemiBandit(**kwargs)


def test_two_sets_means_must_be_numbers():
    with pytest.raises(TypeError, match="mu_low must be a real number"):
        two_sets(3, mu_low="0.7")
