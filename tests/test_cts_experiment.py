"""The chapter's experiments: sizes, results containers, comparison with the paper, the recorded full-scale run
(cts.experiment)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.cts import experiment as ex
from neurips24.cts.runs import SimResult


def _result(finals: dict, m: int = 5, T: int = 100, labels=None) -> SimResult:
    labels = labels or list(finals)
    final = np.array([finals[lab] for lab in labels], dtype=float)
    return SimResult(labels=labels, ts=np.array([T]), cum_regret=final[:, :, None], final=final,
                     linear=0.2 * m * T, m=m, T=T, seed=0, first_optimal=np.ones_like(final, dtype=np.int64))


def test_regret_vs_m_pooling_hand_case():
    res = ex.RegretVsM(m_values=(5, 9), seeds=(0, 1), T=100, R=3)
    res.runs[(5, 0)] = _result({"a": [0, 1, 2]}, m=5)
    res.runs[(9, 0)] = _result({"a": [0, 100, 200]}, m=9)
    res.runs[(9, 1)] = _result({"a": [150, 10, 0]}, m=9)
    assert res.seeds_at(5) == [0] and res.seeds_at(9) == [0, 1]
    np.testing.assert_array_equal(res.pooled(9, "a"), [0, 100, 200, 150, 10, 0])
    assert res.stuck(9, "a") == (3, 6)                      # linear = 0.2·9·100 = 180: 100, 200, 150 exceed 90
    assert res.table()[9]["a"] == (100.0, 2 / 3)
    assert res.curve() is res.runs[(9, 0)]
    np.testing.assert_array_equal(res.pooled_first(9, "a"), np.ones(6))


def test_run_regret_vs_m_structure(monkeypatch):
    small = dict(m_values=(2, 3, 4), T=60, runs=6, n_seeds=3, checkpoints=5, curve=dict(m=4, T=60, runs=6))
    monkeypatch.setitem(ex.CONFIG, "fast", small)
    res = ex.run_regret_vs_m("fast")
    # every m with the first seed, the smallest and the largest m with the other seeds
    assert set(res.runs) == {(2, 0), (3, 0), (4, 0), (2, 1), (2, 2), (4, 1), (4, 2)}
    assert res.labels == ["B-CTS-Uniform", "B-CTS-Jeffreys", "BG-CTS"]
    assert res.curve().cum_regret.shape == (3, 6, 5)
    arm, decision = ex.run_curve("fast", res)
    assert arm is res.runs[(4, 0)]                                         # reused, not re-run
    assert decision.labels == ["ESCB", "ESCB (as written)"] and decision.T == 60 and decision.m == 4
    monkeypatch.setitem(ex.CONFIG, "fast", {**small, "curve": dict(m=3, T=40, runs=5)})
    arm, _ = ex.run_curve("fast", res)
    assert arm.m == 3 and arm.T == 40 and arm.final.shape == (3, 5)


def test_run_paper_setup_structure(monkeypatch):
    monkeypatch.setitem(ex.PAPER_SETUP, "fast", dict(m_values=(5, 25), T=30, runs=4, n_seeds=2, checkpoints=3))
    out = ex.run_paper_setup("fast")
    assert set(out) == {0, 1} and set(out[0]) == {5, 25}
    assert out[1][25].labels == [p.label for p in ex.setup_policies()]
    assert not np.array_equal(out[0][25].final, out[1][25].final)


@pytest.mark.parametrize("fn", [ex.run_regret_vs_m, ex.run_paper_setup, ex.run_curve])
def test_bad_scale(fn):
    with pytest.raises(ValueError, match="run scale"):
        fn("medium")


def test_explore_run_and_bad_prior():
    r = ex.explore_run(3, "jeffreys", 50, 5)
    assert r.labels == ["B-CTS-Jeffreys", "BG-CTS"] and r.final.shape == (2, 5)
    with pytest.raises(ValueError, match="prior must be one of"):
        ex.explore_run(3, "beta", 50, 5)
    with pytest.raises(ValueError, match="m must be"):
        ex.explore_run(0, "uniform", 50, 5)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    (dict(runs=[1]), TypeError, "runs must be an int"),
    (dict(T=2.5), TypeError, "T must be an int"),
    (dict(m=1), ValueError, "m must be an int >= 2"),
    (dict(runs=0), ValueError, "runs must be"),
    (dict(seed=-1), ValueError, "seed must be"),
    (dict(m=True), TypeError, "m must be an int"),
])
def test_explore_run_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        ex.explore_run(**{"m": 3, "T": 20, "runs": 2, **kwargs})


def test_seeds_follow_the_offset(monkeypatch):
    monkeypatch.setenv("NEURIPS24_SEED_OFFSET", "1000")
    monkeypatch.setitem(ex.PAPER_SETUP, "fast", dict(m_values=(5,), T=10, runs=2, n_seeds=3, checkpoints=2))
    assert set(ex.run_paper_setup("fast")) == {1000, 1001, 1002}
    assert ex.explore_run(3, "uniform", 10, 2).seed == ex.explore_run(3, "uniform", 10, 2, seed=1000).seed


def test_the_recorded_full_scale_run():
    rec = ex.load_full_record()
    if rec is None:
        pytest.skip("no recorded full-scale run in the package")
    # the record was made with this code's full-scale configuration, and says how
    assert rec["config"]["sweep"]["m_values"] == list(ex.CONFIG["full"]["m_values"])
    assert rec["config"]["paper_setup"]["T"] == ex.PAPER_SETUP["full"]["T"]
    assert "neurips24.cts.full_run" in rec["command"] and rec["seeds"]["sweep"]
    # its numbers are consistent with each other: means between 0 and the linear regret, stuck counts ≤ runs
    for m, by_seed in rec["sweep"].items():
        for summary in by_seed.values():
            for s in summary.values():
                assert 0 <= s["mean"] <= 0.2 * int(m) * rec["config"]["sweep"]["T"] and s["stuck"] <= s["runs"]
    assert {c["claim_id"] for c in rec["claims"]} >= {"cts.paradox_ratio", "cts.stuck_runs", "cts.bgcts_vs_paper"}


def test_record_means_hand_case():
    rec = {"sweep": {"65": {"0": {"a": {"mean": 10.0}}, "1": {"a": {"mean": 20.0}}}, "5": {"0": {"a": {"mean": 1.0}}}}}
    assert ex.record_means(rec) == {65: {"a": 15.0}, 5: {"a": 1.0}}
