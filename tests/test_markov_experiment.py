"""Experiment driver: the configuration against the paper's script, the runner, the outcome table, the figures."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
from scipy.stats import binomtest

from neurips24 import claims
from neurips24.markov import experiment, plots
from neurips24.markov.train import TrainResult


@pytest.mark.parametrize("scale", ["fast", "full"])
def test_config_follows_the_papers_script(scale):
    # Markov-Simple/src/schedule2.sh at f3a2ec1: p = 0.5, q = 0.8, lr 1e-3, 5000 iterations; d = 8
    cfg = experiment.CONFIG[scale]["transformers"]
    simple, llm = cfg["simple"], cfg["llm"]
    assert simple["variant"] == "simple" and llm["variant"] == "llm"
    for c in (simple, llm):
        assert (c["p"], c["q"], c["lr"], c["d_model"]) == (0.5, 0.8, 1e-3, 8)
        assert c["schedule_steps"] == 5000 and c["steps"] <= c["schedule_steps"]
        assert c["length"] >= 128
    assert simple["n_seeds"] >= 16 and simple["steps"] >= 600          # the paper's figure shows 600 steps
    assert simple["batch"] == 16 and llm["batch"] == 16                 # the paper's batch
    assert experiment.REACHED == 0.9                                     # "reached the bigram loss": 90 % of the gap
    assert (0.5, 0.8) in experiment.CONFIG[scale]["portrait"]["settings"]


def test_full_scale_uses_the_papers_sizes_and_adds_high_switching():
    cfg = experiment.CONFIG["full"]["transformers"]
    assert all(c["batch"] == 16 and c["length"] == 1024 for c in cfg.values())
    high = [c for c in cfg.values() if (c["p"], c["q"]) == (0.9, 0.9)]
    assert high and high[0]["steps"] > cfg["simple"]["steps"]


def test_run_transformers_small(monkeypatch):
    small = {"a": dict(variant="simple", p=0.5, q=0.8, n_seeds=2, steps=4, schedule_steps=60, batch=2, length=8,
                       d_model=8, lr=1e-3, record_every=2, n_eval=4),
             "b": dict(variant="llm", p=0.5, q=0.8, n_seeds=1, steps=3, batch=2, length=8, d_model=8, lr=1e-3,
                       record_every=0, n_eval=4)}
    monkeypatch.setitem(experiment.CONFIG["fast"], "transformers", small)
    res = experiment.run_transformers("fast", progress=False)
    assert list(res) == ["a", "b"]
    a = res["a"]
    assert a.seeds == [0, 1, 0, 1] and a.inits == ["standard", "standard", "good", "good"]
    assert a.curves.shape == (4, 4) and a.e.shape == (4, 3) and a.variant == "simple"
    np.testing.assert_array_equal(a.oracle_curves[0], a.oracle_curves[2])   # a pair shares its data
    assert res["b"].e.shape == (2, 0) and res["b"].variant == "llm"
    with pytest.raises(ValueError, match="scale"):
        experiment.run_transformers("huge")


def _result(progress, inits, escape_at, steps=100, p=0.5, q=0.8):
    """A TrainResult whose held-out progress is ``progress`` and whose loss curve crosses half the gap at
    ``escape_at`` (None: never)."""
    bigram, unigram = 0.6, 0.7
    gap = unigram - bigram
    curves = np.full((len(progress), steps), unigram)
    for m, s in enumerate(escape_at):
        if s is not None:
            curves[m, s:] = bigram
    final = unigram - np.asarray(progress) * gap
    return TrainResult(p, q, list(range(len(progress))), list(inits), curves, np.full_like(curves, bigram),
                       final, np.full(len(progress), bigram), bigram, unigram, "simple")


def test_outcome_table_counts_and_intervals():
    r = _result([1.0, 0.95, 0.05, 0.3, 0.0, 0.7], ["good"] * 3 + ["standard"] * 3, [30, 40, None, None, None, 50])
    rows = {row["init"]: row for row in experiment.outcome_table({"x": r})}
    g, s = rows["good"], rows["standard"]
    assert (g["reached"], g["n"], g["at_unigram"], g["between"], g["closed_90"]) == (2, 3, 1, 0, 2)
    assert (s["reached"], s["at_unigram"], s["between"]) == (0, 1, 2)        # 0.7 is short of 90 % of the gap
    ci = binomtest(2, 3).proportion_ci(0.95, "wilson")
    assert g["low"] == pytest.approx(ci.low) and g["high"] == pytest.approx(ci.high)
    # escape = first step whose 25-step mean of the loss is past half the gap, counted at the window's end
    assert g["escaped"] == 2 and g["escape_median"] == pytest.approx(np.median([30 + 13, 40 + 13]))
    assert s["escaped"] == 1 and s["escape_q25"] == s["escape_q75"] == 50 + 13
    r_none = _result([0.0, 0.0], ["good", "good"], [None, None])
    row = experiment.outcome_table({"y": r_none})[0]
    assert row["escaped"] == 0 and np.isnan(row["escape_median"])


def test_figures_draw_from_hand_made_results():
    r = _result([1.0, 0.0, 0.9, 0.1], ["standard", "standard", "good", "good"], [30, None, 20, None])
    r.record_steps = np.array([0, 50, 100])
    r.e = np.array([[0.05, 0.1, 0.5], [0.06, 0.03, 0.02], [0.0, 0.002, 0.05], [0.0, 0.001, 0.001]])
    r.w = np.array([[0.0, 0.8, -1.7], [0.1, 1.2, 1.0], [np.nan, -23.0, -18.0], [np.nan, -25.0, -24.0]])
    for fig in (plots.plot_transformers({"x": r}, window=5), plots.plot_escapes({"x": r}),
                plots.plot_overlay(r).figure):
        assert fig.axes
        plt.close(fig)


@pytest.mark.slow
def test_the_chapters_reproduction_counts_at_fast_scale():
    res = experiment.run_transformers("fast", progress=False)
    rows = {(r["experiment"], r["init"]): r for r in experiment.outcome_table(res)}
    most = lambda k, n: claims.binomial_interval(k, n).low > 0.5          # noqa: E731
    good, std = rows[("simple", "good")], rows[("simple", "standard")]
    assert most(good["reached"], good["n"]) and not most(std["reached"], std["n"])
    assert most(std["n"] - std["reached"], std["n"])                     # at the paper's batch of 16
    ln_std, ln_good = rows[("llm", "standard")], rows[("llm", "good")]
    assert most(ln_std["reached"], ln_std["n"]) and most(ln_good["n"] - ln_good["reached"], ln_good["n"])


def test_reproduction_rules_on_hand_made_results():
    from neurips24.markov import reproduction
    good = [0.95] * 6
    std = [0.0] * 5 + [0.5]
    r = _result(std + good, ["standard"] * 6 + ["good"] * 6, [None] * 5 + [30] + [20] * 6)
    ln = _result(good + std, ["standard"] * 6 + ["good"] * 6, [20] * 6 + [None] * 5 + [30])
    out = reproduction.transformer_checks({"simple": r, "llm": ln})
    for cid, kw in out.items():
        assert claims.outcome(cid, **kw) == "pass", cid
        assert len(kw["per_seed"]) == 6 and "wilson" in kw["interval"].method
    assert out["markov.standard_init_at_unigram"]["measured"] == {"k": 6, "n": 6}
    assert reproduction.reached([0.9, 0.89]).tolist() == [True, False]
    with pytest.raises(ValueError, match="portraits"):
        reproduction.portrait_checks([])
