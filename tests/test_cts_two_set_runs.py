"""The decision-level simulation of the two-set instance: first rounds, the as-written ESCB on shared draws, the
same regret distribution as the arm-level simulation, bad input (cts.two_set_runs)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from neurips24.cts import escb_code as ec
from neurips24.cts.bandit import two_sets
from neurips24.cts.policies import make_policy
from neurips24.cts.runs import seed_streams, simulate
from neurips24.cts.two_set_runs import simulate_two_sets

REDUCED = [make_policy("bgcts"), make_policy("gcts"), make_policy("bgcts", lam=1.0), make_policy("escb"),
           make_policy("cucb")]


def test_first_two_rounds_and_shapes():
    res = simulate_two_sets((2, 7), REDUCED, T=2, R=6, seed=1, checkpoints=2)
    assert set(res) == {2, 7}
    for m, r in res.items():
        assert r.final.shape == (5, 6) and r.m == m and r.linear == pytest.approx(0.2 * m * 2)
        np.testing.assert_allclose(r.cum_regret[:, :, 0], 0.2 * m)    # round 1: A_1 (tie at +inf)
        np.testing.assert_allclose(r.final, 0.2 * m)                  # round 2: the unplayed A*
        np.testing.assert_array_equal(r.first_optimal, 2)


def _plays_of_a1(final, m):
    # the regret is Δ = 0.2 m per play of A_1; compare counts, not floats summed in different orders
    return np.rint(final / (0.2 * m))


def test_same_distribution_as_the_arm_level_simulation():
    # the reduction is exact in distribution: the number of plays of A_1 in independent runs agrees (KS test)
    m, T, R = 6, 300, 400
    arm = simulate(two_sets(m), REDUCED, T, R, seed=1)
    dec = simulate_two_sets([m], REDUCED, T, R, seed=2)[m]
    for j, lab in enumerate(arm.labels):
        assert dec.labels[j] == lab
        assert stats.ks_2samp(_plays_of_a1(arm.final[j], m), _plays_of_a1(dec.final[j], m)).pvalue > 1e-3, lab
        se = np.hypot(arm.final[j].std(), dec.final[j].std()) / np.sqrt(R)
        assert abs(arm.final[j].mean() - dec.final[j].mean()) < 4 * se + 1e-9, lab


def test_escb_as_written_is_the_model_on_the_simulation_s_own_draws():
    # replay the simulation's reward stream and run the model of escb_code step by step, one m at a time
    m_values, T, R = (3, 8), 250, 30
    res = simulate_two_sets(m_values, [make_policy("escb_code")], T, R, seed=5)
    env = np.random.default_rng(seed_streams(5, 2)[0][0])
    m_int = np.repeat(m_values, R)
    state = ec.initial_state(len(m_int))
    regret, first = np.zeros(len(m_int)), np.full(len(m_int), T + 1)
    for t in range(1, T + 1):
        X01 = (env.random((len(m_int), 2)) < 0.7).astype(float)
        for m in m_values:                                              # A_1's rest, A*'s total (unused here)
            env.binomial(m - 2, 0.7, R), env.binomial(m, 0.9, R)
        k = np.concatenate([ec.choose_as_written(state[0][i * R:(i + 1) * R], state[1][i * R:(i + 1) * R], t, m)
                            for i, m in enumerate(m_values)])
        ec.update_as_written(*state, k, X01)
        regret += np.where(k == 0, 0.2 * m_int, 0.0)
        first = np.where((k == 1) & (first > T), t, first)
    for i, m in enumerate(m_values):
        np.testing.assert_allclose(res[m].final[0], regret[i * R:(i + 1) * R])
        np.testing.assert_array_equal(res[m].first_optimal[0], first[i * R:(i + 1) * R])


def test_common_random_numbers_and_seeds():
    pols = [make_policy("escb"), make_policy("escb")]
    r = simulate_two_sets([4], pols, T=200, R=20, seed=3)[4]
    np.testing.assert_array_equal(r.final[0], r.final[1])              # same rewards, deterministic policy
    again = simulate_two_sets([4], pols, T=200, R=20, seed=3)[4]
    np.testing.assert_array_equal(r.final, again.final)
    fresh = simulate_two_sets([4], [make_policy("bgcts")], T=50, R=5, seed=None)[4]
    np.testing.assert_array_equal(fresh.final, simulate_two_sets([4], [make_policy("bgcts")], T=50, R=5,
                                                                 seed=fresh.seed)[4].final)


@pytest.mark.parametrize(("kwargs", "err", "msg"), [
    (dict(m_values=[1]), ValueError, "m must be an integer >= 2"),
    (dict(m_values=[]), ValueError, "at least one decision size"),
    (dict(m_values=[2.5]), ValueError, "m must be"),
    (dict(policies=[make_policy("bcts")]), ValueError, "B-CTS needs one Beta draw per arm"),
    (dict(policies=["bgcts"]), TypeError, "Policy objects"),
    (dict(policies=[]), ValueError, "non-empty"),
    (dict(mu_low=0.9, mu_high=0.7), ValueError, "mu_low < mu_high"),
    (dict(mu_low=-0.1), ValueError, "mu_low must be a number in"),
    (dict(mu_high="0.9"), ValueError, "mu_high must be a number in"),
    (dict(T=0), ValueError, "T must be"), (dict(R=0), ValueError, "R must be"),
    (dict(seed=1.5), ValueError, "seed must be"),
])
def test_bad_input(kwargs, err, msg):
    args = dict(m_values=[3], policies=[make_policy("bgcts")], T=5, R=2)
    args.update(kwargs)
    with pytest.raises(err, match=msg):
        simulate_two_sets(**args)
