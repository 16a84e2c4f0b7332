"""The arm-level simulation: shapes, first rounds, common random numbers, seeds, bad input (cts.runs)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from neurips24.cts.bandit import top_m_bandit, two_sets
from neurips24.cts.policies import make_policy, paper_policies
from neurips24.cts.runs import SimResult, seed_streams, simulate


def test_simulate_shapes_and_bounds():
    b = two_sets(3)
    res = simulate(b, paper_policies(), T=50, R=7, seed=0, checkpoints=10)
    assert res.cum_regret.shape == (5, 7, 10) and res.final.shape == (5, 7) and res.first_optimal.shape == (5, 7)
    assert res.ts[0] == 1 and res.ts[-1] == 50
    assert np.all(np.diff(res.cum_regret, axis=2) >= -1e-12)           # cumulative regret never decreases
    step = 0.2 * 3
    # every round costs 0 or Δ = 0.6: the regret is a multiple of 0.6, at most 0.6 T
    np.testing.assert_allclose(res.final / step, np.round(res.final / step), atol=1e-9)
    assert res.final.max() <= step * 50 + 1e-9 and res.linear == pytest.approx(step * 50)


def test_first_two_rounds_try_both_actions():
    # optimistic start: round 1 plays action 0 (tie at +inf -> lowest), round 2 the still-unplayed A*;
    # so after 2 rounds the regret is exactly Δ and the first optimal play is round 2
    b = two_sets(4)
    pols = [make_policy("bgcts"), make_policy("gcts"), make_policy("escb"), make_policy("cucb")]
    res = simulate(b, pols, T=2, R=5, seed=3, checkpoints=2)
    np.testing.assert_allclose(res.cum_regret[:, :, 0], 0.8)
    np.testing.assert_allclose(res.cum_regret[:, :, 1], 0.8)
    np.testing.assert_array_equal(res.first_optimal, 2)


def test_first_optimal_play_matches_the_regret_path():
    # a run whose regret grew by Δ in every round before τ and stayed flat at τ: check on B-CTS at m = 6
    b = two_sets(6)
    res = simulate(b, [make_policy("bcts")], T=40, R=30, seed=4, checkpoints=40)
    inc = np.diff(np.concatenate([np.zeros((30, 1)), res.cum_regret[0]], axis=1), axis=1)   # per-round regret
    for r in range(30):
        zero = np.flatnonzero(inc[r] < 1e-9)
        expected = zero[0] + 1 if zero.size else 41
        assert res.first_optimal[0, r] == expected


def test_common_random_numbers():
    # two copies of a deterministic policy see the same rewards, so their runs are identical
    b = two_sets(3)
    res = simulate(b, [make_policy("cucb"), make_policy("escb"), make_policy("cucb")], T=300, R=20, seed=5)
    np.testing.assert_array_equal(res.cum_regret[0], res.cum_regret[2])
    assert res.final[0].std() > 0                                      # runs differ from each other


def test_gaussian_rewards_and_top_m():
    g = two_sets(3, noise="gaussian", noise_sd=0.5)
    res = simulate(g, [make_policy("bgcts"), make_policy("escb")], T=200, R=10, seed=0)
    assert np.all(res.final >= 0)
    tm = top_m_bandit(np.linspace(0.1, 0.9, 8), 3)
    res = simulate(tm, [make_policy("bcts"), make_policy("bgcts"), make_policy("cucb")], T=400, R=10, seed=0)
    assert np.all(res.final >= 0) and np.all(res.final <= tm.linear_regret(400) + 1e-9)
    # regret is sublinear: the last 100 rounds cost less than the first 100
    c = res.cum_regret.mean(axis=1)
    i100, i300 = np.searchsorted(res.ts, 100), np.searchsorted(res.ts, 300)
    assert np.all(c[:, -1] - c[:, i300] < c[:, i100])


def test_seeds_reproduce_and_differ():
    b, pols = two_sets(3), [make_policy("bgcts")]
    a = simulate(b, pols, T=100, R=8, seed=7)
    np.testing.assert_array_equal(a.final, simulate(b, pols, T=100, R=8, seed=7).final)
    assert not np.array_equal(a.final, simulate(b, pols, T=100, R=8, seed=8).final)
    fresh = simulate(b, pols, T=100, R=8, seed=None)                   # fresh entropy, recorded
    np.testing.assert_array_equal(fresh.final, simulate(b, pols, T=100, R=8, seed=fresh.seed).final)


def test_seed_streams():
    seeds, used = seed_streams(3, 4)
    assert used == 3 and len(set(seeds)) == 4
    assert seeds == [int(c.generate_state(1, np.uint64)[0]) for c in np.random.SeedSequence(3).spawn(4)]
    _, drawn = seed_streams(None, 2)
    assert drawn > 2 ** 64                                             # OS entropy, 128 bits


@pytest.mark.parametrize("seed", [2.5, -1, True, "0"])
def test_bad_seed(seed):
    with pytest.raises(ValueError, match="seed must be an integer >= 0, or None"):
        simulate(two_sets(2), [make_policy("bgcts")], T=5, R=2, seed=seed)


@pytest.mark.parametrize(("kwargs", "err", "msg"), [
    (dict(T=0), ValueError, "T must be"), (dict(R=0), ValueError, "R must be"),
    (dict(checkpoints=0), ValueError, "checkpoints must be"),
    (dict(policies=[]), ValueError, "policies must be"),
    (dict(policies=["bcts"]), TypeError, "policies must hold Policy"),
    (dict(bandit="two_sets"), TypeError, "bandit must be a SemiBandit"),
])
def test_simulate_bad_input(kwargs, err, msg):
    args = dict(bandit=two_sets(2), policies=[make_policy("bgcts")], T=10, R=2)
    args.update(kwargs)
    with pytest.raises(err, match=msg):
        simulate(**args)


def test_simulate_policy_mismatch():
    with pytest.raises(ValueError, match="Bernoulli"):
        simulate(two_sets(2, noise="gaussian"), [make_policy("bcts")], T=5, R=2)
    with pytest.raises(ValueError, match="explicit action matrix"):
        simulate(top_m_bandit([0.2, 0.5, 0.7], 2), [make_policy("escb")], T=5, R=2)
    with pytest.raises(ValueError, match="as-written ESCB model"):
        simulate(two_sets(3), [make_policy("escb_code")], T=5, R=2)


def test_b_cts_small_m_learns():
    # at m = 2 the exact posterior finds A* quickly: regret far below linear
    res = simulate(two_sets(2), [make_policy("bcts", "uniform")], T=500, R=50, seed=0)
    assert res.mean()[0] < 0.05 * res.linear and res.stuck_share()[0] == 0.0


def test_regret_distribution_is_heavy_tailed_for_b_cts():
    # B-CTS at moderate m: median tiny, mean dominated by stuck runs (the paradox lives in a tail)
    res = simulate(two_sets(20), [make_policy("bcts", "uniform")], T=600, R=100, seed=11)
    f = res.final[0]
    assert np.median(f) < 0.05 * res.linear
    assert stats.skew(f) > 1.0 or f.max() > 0.5 * res.linear


def test_simresult_summaries_hand_case():
    final = np.array([[0.0, 10.0, 60.0, 100.0], [1.0, 2.0, 3.0, 4.0]])
    res = SimResult(labels=["a", "b"], ts=np.array([1, 2]), cum_regret=np.stack([final / 2, final], axis=2),
                    final=final, linear=100.0, m=1, T=2, seed=0, first_optimal=np.array([[1, 2, 3, 3], [1, 1, 1, 1]]))
    np.testing.assert_array_equal(res.stuck_counts(), [2, 0])          # 60 and 100 exceed 50
    np.testing.assert_allclose(res.stuck_share(), [0.5, 0.0])
    np.testing.assert_allclose(res.mean(), [42.5, 2.5])
    np.testing.assert_array_equal(res.of("b"), [1, 2, 3, 4])
    np.testing.assert_array_equal(res.first_of("a"), [1, 2, 3, 3])
    with pytest.raises(ValueError, match="label must be one of"):
        res.of("c")
