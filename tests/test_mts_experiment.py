"""Runs of the barely random MTS chapter: invariants, the offline optimum as a lower bound, the exact identity
between the agents' view and the barely fractional view, and (slow) the chapter's reproduction checks."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24 import mts


@pytest.fixture(scope="module")
def runs():
    return {kind: mts.simulate(mts.make_metric(kind, 5, seed=1), mts.players_for(5), T=300, eps=0.2, seed=2)
            for kind in mts.metric.KINDS}


def test_invariants_of_every_run(runs):
    for kind_runs in runs.values():
        for r in kind_runs:
            assert r.opt <= r.cost + 1e-9 and r.opt <= r.frac_cost + 1e-9       # OPT is a lower bound
            if r.player.rule == "capped":
                assert r.cap_excess <= 2 * mts.rounding.GUARD                   # m_t <= 2k p_t at every step
                assert r.service_excess <= 1e-9                                 # service <= 2 × fractional's
                assert r.final_counts.sum() == r.k
            # the cumulative curves end at the totals
            assert r.curves["cost"][-1] == pytest.approx(r.cost, rel=1e-9)
            assert r.curves["frac"][-1] == pytest.approx(r.frac_cost, rel=1e-12)
            assert r.curves["opt"][-1] == pytest.approx(r.opt, rel=1e-12)


def test_agents_view_equals_the_barely_fractional_view(runs):
    for kind_runs in runs.values():
        for r in kind_runs:
            assert r.cost == pytest.approx(r.config_cost, rel=1e-9)


def test_relabelled_agents_pay_more_for_the_same_configurations():
    plain, shuffled = (mts.simulate(mts.uniform_metric(4), [mts.Player("capped", 16, "crowded")], 200, relabel=flag)[0]
                       for flag in (False, True))
    assert shuffled.config_cost == pytest.approx(plain.config_cost, rel=1e-12)
    assert shuffled.cost > 2 * shuffled.config_cost


def test_random_adversary_players_share_one_sequence():
    # two identical random-adversary collectives see the same points, hence pay the same
    a, b = mts.simulate(mts.uniform_metric(4), [mts.Player("capped", 8, "random")] * 2, 100, seed=7)
    assert a.cost == b.cost and a.frac_cost == b.frac_cost


def test_random_bits_and_the_uniform_agent():
    assert [mts.random_bits(k) for k in (1, 2, 16, 17, 256)] == [0, 1, 4, 5, 8]
    cost = np.arange(8.0) ** 2
    assert mts.expected_cost_of_a_random_agent(cost) == pytest.approx(np.mean(cost))
    with pytest.raises(ValueError, match="power of 2"):
        mts.expected_cost_of_a_random_agent(np.ones(6))
    with pytest.raises(ValueError, match="k must be"):
        mts.random_bits(0)


def test_simulate_rejects_bad_input():
    m = mts.uniform_metric(4)
    ok = [mts.Player("capped", 4, "crowded")]
    with pytest.raises(ValueError, match="k >= n"):
        mts.simulate(m, [mts.Player("capped", 3, "crowded")], 10)
    with pytest.raises(ValueError, match="T must"):
        mts.simulate(m, ok, 0)
    with pytest.raises(ValueError, match="eps"):
        mts.simulate(m, ok, 10, eps=float("nan"))
    with pytest.raises(ValueError, match="players"):
        mts.simulate(m, [], 10)
    with pytest.raises(ValueError, match="triangle"):
        mts.simulate(np.array([[0, 1, 5], [1, 0, 1], [5, 1, 0]]), ok, 10)
    with pytest.raises(ValueError, match="k must be"):
        mts.Player("capped", 0, "crowded")
    with pytest.raises(ValueError, match="one agent"):
        mts.Player("wfa", 2, "crowded")
    with pytest.raises(ValueError, match="adversary"):
        mts.Player("capped", 4, "oblivious")
    with pytest.raises(ValueError, match="scale"):
        mts.run_sweep("huge")


@pytest.mark.slow
def test_the_chapters_reproduction_checks_hold_at_fast_scale():
    sweep = mts.run_sweep("fast")
    v = mts.reproduction_values(sweep, *mts.relabel_control("fast"))
    assert max(v["factor"]) <= 2 and min(v["mode"]) > 2
    limit = np.sqrt(max(sweep.config["n_values"]) / min(sweep.config["n_values"]))
    assert v["growth_collective"] < limit <= v["growth_wfa"]
    assert v["identity_gap"] <= 1e-9 < v["identity_control_gap"]
