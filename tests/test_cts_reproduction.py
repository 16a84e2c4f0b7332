"""The chapter's checks on synthetic results whose answers are known: each passes when its claim holds, fails when
it does not, and fails when its control holds too (cts.reproduction)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24 import claims
from neurips24.cts import reproduction as rp
from neurips24.cts.escb_replay import Replay
from neurips24.cts.experiment import PAPER_FIG_B, RegretVsM, setup_policies
from neurips24.cts.runs import SimResult

rng = np.random.default_rng(0)
T = 2000


def _result(finals: dict, m: int) -> SimResult:
    labels = list(finals)
    final = np.array([finals[lab] for lab in labels], dtype=float)
    return SimResult(labels=labels, ts=np.array([T]), cum_regret=final[:, :, None], final=final,
                     linear=0.2 * m * T, m=m, T=T, seed=0, first_optimal=np.ones_like(final, dtype=np.int64))


def _bcts(m, stuck_share, R=100):
    stuck = rng.random(R) < stuck_share
    return np.where(stuck, 0.8 * 0.2 * m * T, rng.exponential(5.0 * m, R))


def _sweep(stuck_share=0.4, bg_stuck=0.0):
    res = RegretVsM(m_values=(5, 45), seeds=(0, 1, 2), T=T, R=100)
    for s in (0, 1, 2):
        res.runs[(5, s)] = _result({"B-CTS-Uniform": rng.normal(8, 2, 100), "B-CTS-Jeffreys": rng.normal(8, 2, 100),
                                    "BG-CTS": rng.normal(50, 5, 100)}, 5)
        bg = np.where(rng.random(100) < bg_stuck, 15000.0, rng.normal(280, 20, 100))
        res.runs[(45, s)] = _result({"B-CTS-Uniform": _bcts(45, stuck_share), "B-CTS-Jeffreys": _bcts(45, stuck_share),
                                     "BG-CTS": bg}, 45)
    return res


def _setup(as_written=None, bg_scale=1.0):
    labels = [p.label for p in setup_policies()]
    setup = {}
    for s in (0, 1, 2):
        out = {}
        for m in sorted(PAPER_FIG_B):
            bg = PAPER_FIG_B[m]["BG-CTS"] * bg_scale
            paper_escb = PAPER_FIG_B[m]["ESCB"] if as_written is None else as_written[m]
            values = {"BG-CTS": bg, "G-CTS": 0.3 * bg, "BG-CTS (λ=1)": 2 * bg, "ESCB": 0.8 * bg,
                      "ESCB (as written)": paper_escb}
            out[m] = _result({lab: rng.normal(values[lab], 0.05 * values[lab], 150) for lab in labels}, m)
        setup[s] = out
    return setup


def _replay(differ=0):
    """seed -> m -> Replay: the model identical to the class in every run but ``differ`` of seed 0's at m = 5;
    ESCB as intended never identical."""
    out = {}
    for s in (0, 1, 2):
        out[s] = {}
        for m in (5, 65):
            same = np.ones(30, dtype=bool)
            if s == 0 and m == 5:
                same[:differ] = False
            out[s][m] = Replay(m=m, T=300, R=30, seed=s, identical={"as written": same,
                                                                    "intended": np.zeros(30, dtype=bool)},
                               first_divergence={}, star_rounds=np.zeros(30, dtype=np.int64))
    return out


def test_every_check_passes_on_results_where_the_claims_hold():
    for claim_id, kwargs in rp.checks(_sweep(), _setup(), _replay()).items():
        assert claims.check(claim_id, **kwargs)["outcome"] == "pass"


def test_stuck_runs_fails_without_stuck_runs():
    with pytest.raises(AssertionError, match="did not reproduce"):
        claims.check("cts.stuck_runs", **rp.stuck_runs(_sweep(stuck_share=0.1)))


def test_stuck_runs_fails_when_its_control_holds_too():
    with pytest.raises(AssertionError, match="does not discriminate"):
        claims.check("cts.stuck_runs", **rp.stuck_runs(_sweep(bg_stuck=0.5)))


def test_stuck_share_interval_is_wilson_over_pooled_seeds():
    sweep = _sweep()
    kw = rp.stuck_runs(sweep)
    k, n = sweep.stuck(45, "B-CTS-Uniform")
    kj, _ = sweep.stuck(45, "B-CTS-Jeffreys")
    assert n == 300
    worst = claims.binomial_interval(min(k, kj), n)
    assert kw["interval"].low == pytest.approx(worst.low) and kw["measured"]["lower bound"] == pytest.approx(
        worst.low, rel=1e-2)


def test_bgcts_vs_paper_fails_when_off_by_a_fifth():
    with pytest.raises(AssertionError, match="did not reproduce"):
        claims.check("cts.bgcts_vs_paper", **rp.bgcts_vs_paper(_setup(bg_scale=1.2)))


def test_escb_claims_fail_when_the_bug_model_is_the_intended_index():
    # if the "as written" curve were the intended one, the paper's ESCB would not be matched ...
    intended_like = {m: 0.8 * PAPER_FIG_B[m]["BG-CTS"] for m in PAPER_FIG_B}
    with pytest.raises(AssertionError, match="did not reproduce"):
        claims.check("cts.escb_is_the_code", **rp.escb_is_the_code(_setup(as_written=intended_like)))
    # ... and as the intended index's control it would hold too
    with pytest.raises(AssertionError, match="does not discriminate"):
        claims.check("cts.escb_intended", **rp.escb_intended(_setup(as_written=intended_like)))


def test_escb_replay_fails_on_one_differing_run():
    kw = rp.escb_replay(_replay(differ=1))
    assert kw["per_seed"] == {0: pytest.approx(59 / 60, abs=1e-3), 1: 1.0, 2: 1.0}
    with pytest.raises(AssertionError, match="did not reproduce"):
        claims.check("cts.escb_replay", **kw)


def test_ratio_interval_covers_the_ratio_of_means():
    num, den = rng.normal(100, 10, 400), rng.normal(50, 5, 400)
    iv = rp.ratio_interval(num, den)
    assert iv.low < 2.0 < iv.high and iv.estimate == pytest.approx(num.mean() / den.mean())
    assert iv.high - iv.low < 0.1                                     # 400 runs with 10 % noise: a tight interval


def test_statistics_hand_values():
    assert rp.max_deviation(np.array([1.05, 0.9, 1.0])) == pytest.approx(0.1)
    assert rp.mean_log_error(np.array([np.e, 1 / np.e])) == pytest.approx(1.0)
