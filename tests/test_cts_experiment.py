"""Simulation driver, common random numbers, theory helpers, experiment config, bad input (cts.experiment)."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from neurips24.cts import experiment as ex
from neurips24.cts.bandit import top_m_bandit, two_sets
from neurips24.cts.policies import make_policy, paper_policies


def test_simulate_shapes_and_bounds():
    b = two_sets(3)
    res = ex.simulate(b, paper_policies(), T=50, R=7, seed=0, checkpoints=10)
    assert res.cum_regret.shape == (5, 7, 10) and res.final.shape == (5, 7)
    assert res.ts[0] == 1 and res.ts[-1] == 50
    assert np.all(np.diff(res.cum_regret, axis=2) >= -1e-12)           # cumulative regret never decreases
    step = 0.2 * 3
    # every round costs 0 or Δ = 0.6: the regret is a multiple of 0.6, at most 0.6 T
    np.testing.assert_allclose(res.final / step, np.round(res.final / step), atol=1e-9)
    assert res.final.max() <= step * 50 + 1e-9 and res.linear == pytest.approx(step * 50)


def test_first_two_rounds_try_both_actions():
    # optimistic start: round 1 plays action 0 (tie at +inf -> lowest), round 2 the still-unplayed A*;
    # so after 2 rounds the regret is exactly Δ for the index/Gaussian policies
    b = two_sets(4)
    pols = [make_policy("bgcts"), make_policy("escb"), make_policy("cucb")]
    res = ex.simulate(b, pols, T=2, R=5, seed=3, checkpoints=2)
    np.testing.assert_allclose(res.cum_regret[:, :, 0], 0.8)
    np.testing.assert_allclose(res.cum_regret[:, :, 1], 0.8)


def test_common_random_numbers():
    # two copies of a deterministic policy see the same rewards, so their runs are identical
    b = two_sets(3)
    res = ex.simulate(b, [make_policy("cucb"), make_policy("escb"), make_policy("cucb")], T=300, R=20, seed=5)
    np.testing.assert_array_equal(res.cum_regret[0], res.cum_regret[2])
    assert res.final[0].std() > 0                                      # runs differ from each other


def test_gaussian_rewards_and_top_m():
    g = two_sets(3, noise="gaussian", noise_sd=0.5)
    res = ex.simulate(g, [make_policy("bgcts"), make_policy("escb")], T=200, R=10, seed=0)
    assert np.all(res.final >= 0)
    tm = top_m_bandit(np.linspace(0.1, 0.9, 8), 3)
    res = ex.simulate(tm, [make_policy("bcts"), make_policy("bgcts"), make_policy("cucb")], T=400, R=10, seed=0)
    assert np.all(res.final >= 0) and np.all(res.final <= tm.linear_regret(400) + 1e-9)
    # regret is sublinear: the last 100 rounds cost less per round than the first 100
    c = res.cum_regret.mean(axis=1)
    i100 = np.searchsorted(res.ts, 100)
    assert np.all(c[:, -1] - c[:, -2 - (len(res.ts) - 1 - np.searchsorted(res.ts, 300))] < c[:, i100])


@pytest.mark.parametrize(("kwargs", "msg"), [(dict(T=0), "T must be"), (dict(R=0), "R must be"),
                                             (dict(checkpoints=0), "checkpoints must be"),
                                             (dict(policies=[]), "policies must be"),
                                             (dict(policies=["bcts"]), "policies must be")])
def test_simulate_bad_input(kwargs, msg):
    args = dict(bandit=two_sets(2), policies=[make_policy("bgcts")], T=10, R=2)
    args.update(kwargs)
    with pytest.raises(ValueError, match=msg):
        ex.simulate(**args)


def test_simulate_policy_mismatch():
    with pytest.raises(ValueError, match="Bernoulli"):
        ex.simulate(two_sets(2, noise="gaussian"), [make_policy("bcts")], T=5, R=2)
    with pytest.raises(ValueError, match="explicit action matrix"):
        ex.simulate(top_m_bandit([0.2, 0.5, 0.7], 2), [make_policy("escb")], T=5, R=2)


def test_b_cts_small_m_learns():
    # at m = 2 the exact posterior finds A* quickly: regret far below linear
    res = ex.simulate(two_sets(2), [make_policy("bcts", "uniform")], T=500, R=50, seed=0)
    assert res.mean()[0] < 0.05 * res.linear and res.stuck_share()[0] == 0.0


def test_irwin_hall_hand_values():
    assert ex.irwin_hall_sf(0.25, 1) == pytest.approx(0.75)
    assert ex.irwin_hall_sf(Fraction(3, 2), 2) == pytest.approx(0.125)
    assert ex.irwin_hall_sf(1.5, 3) == pytest.approx(0.5)
    rng = np.random.default_rng(0)
    sums = rng.random((400_000, 10)).sum(axis=1)
    assert ex.irwin_hall_sf(Fraction(7), 10) == pytest.approx((sums > 7).mean(), abs=0.002)


def test_chernoff_rate():
    # uniform prior: MGF (e^s - 1)/s, so I(x) is the sup of s x - ln((e^s - 1)/s); check by brute force
    s = np.linspace(1e-6, 60, 200_001)
    brute = np.max(s * 0.7 - np.log(np.expm1(s) / s))
    assert ex.chernoff_rate(0.7, "uniform") == pytest.approx(brute, rel=1e-6)
    assert ex.chernoff_rate(0.7, "jeffreys") < ex.chernoff_rate(0.7, "uniform")     # heavier prior tails
    for m in (5, 20, 60):
        exact = ex.irwin_hall_sf(Fraction(7, 10) * m, m)
        assert exact <= math.exp(-m * ex.chernoff_rate(0.7, "uniform"))                 # Chernoff bound
    # the exponent is exact as m grows: -ln P / m - I is positive and O(ln m / m) (Bahadur-Rao prefactor)
    gap = -math.log(ex.irwin_hall_sf(Fraction(7, 10) * 400, 400)) / 400 - ex.chernoff_rate(0.7, "uniform")
    assert 0 < gap < math.log(400) / 400
    with pytest.raises(ValueError, match="prior must be one of"):
        ex.chernoff_rate(0.7, "flat")
    with pytest.raises(ValueError, match="x must lie"):
        ex.chernoff_rate(0.3, "uniform")


def test_switch_probability_grows_exponentially_rare():
    p = [ex.switch_probability(m)["uniform_exact"] for m in (5, 15, 25, 35)]
    assert all(a > b for a, b in zip(p[:-1], p[1:], strict=True))
    assert ex.switch_probability(35)["uniform_wait"] > 2000 > ex.switch_probability(5)["uniform_wait"]


def test_explore_run_and_bad_prior():
    r = ex.explore_run(3, "jeffreys", 50, 5)
    assert r.labels == ["B-CTS-Jeffreys", "BG-CTS"] and r.final.shape == (2, 5)
    with pytest.raises(ValueError, match="prior must be one of"):
        ex.explore_run(3, "beta", 50, 5)
    with pytest.raises(ValueError, match="m must be"):
        ex.explore_run(0, "uniform", 50, 5)


def test_config_matches_issue_and_paper():
    assert ex.CONFIG["fast"]["m_values"] == (5, 15, 25, 35)
    full = ex.CONFIG["full"]
    assert full["m_values"] == (5, 25, 45, 65) and full["T"] == 10_000 and full["runs"] >= 150
    assert all(len(c["seeds"]) >= 3 for c in ex.CONFIG.values())
    assert set(ex.PAPER_FIG_B) == {5, 25, 45, 65}


def test_run_regret_vs_m_bad_scale():
    with pytest.raises(ValueError, match="run scale"):
        ex.run_regret_vs_m("medium")


def test_regret_distribution_is_heavy_tailed_for_b_cts():
    # B-CTS at moderate m: median tiny, mean dominated by stuck runs (the paradox lives in a tail)
    res = ex.simulate(two_sets(20), [make_policy("bcts", "uniform")], T=600, R=100, seed=11)
    f = res.final[0]
    assert np.median(f) < 0.05 * res.linear
    assert stats.skew(f) > 1.0 or f.max() > 0.5 * res.linear


def test_run_regret_vs_m_structure(monkeypatch):
    small = dict(m_values=(2, 4), T=60, runs=6, seeds=(0, 1, 2), checkpoints=5)
    monkeypatch.setitem(ex.CONFIG, "fast", small)
    res = ex.run_regret_vs_m("fast")
    # every m with the first seed, the smallest and largest m with the other seeds
    assert set(res.runs) == {(2, 0), (4, 0), (2, 1), (4, 1), (2, 2), (4, 2)}
    assert res.curve() is res.runs[(4, 0)] and res.curve().cum_regret.shape == (5, 6, 5)
    tab = res.table()
    assert set(tab) == {2, 4} and set(tab[2]) == set(res.labels)
    mean, stuck = tab[4]["BG-CTS"]
    assert mean == pytest.approx(res.runs[(4, 0)].of("BG-CTS").mean()) and 0.0 <= stuck <= 1.0
