"""Paired perplexity ratios and the chapter's checks on a hand-made result (cherryq.reproduction)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24 import claims
from neurips24.cherryq.experiment import TrainableResult
from neurips24.cherryq.real import RealResult
from neurips24.cherryq.reproduction import checks, paired_ratio


def test_paired_ratio_is_exp_of_the_mean_difference():
    a = np.tile([2.0, 2.5, 3.0, 2.2], 5)                            # 20 windows: a bootstrap needs >= 20
    b = np.tile([2.1, 2.9, 3.1, 2.4], 5)
    iv = paired_ratio(a, b)
    assert iv.estimate == pytest.approx(np.exp(np.mean(a) - np.mean(b)))
    assert iv.low <= iv.estimate <= iv.high < 1                    # a is lower on every window
    two = paired_ratio(np.stack([a, a + 0.1]), np.stack([b, b + 0.1]))   # seeds: averaged per window first
    assert two.estimate == pytest.approx(iv.estimate)
    with pytest.raises(ValueError, match="same shape"):
        paired_ratio(a, b[:3])
    with pytest.raises(ValueError, match="20"):
        paired_ratio(a[:4], b[:4])                                   # 4 windows: no interval
    with pytest.raises(ValueError, match="N >= 2"):
        paired_ratio(a[:1], b[:1])
    with pytest.raises(ValueError, match="finite"):
        paired_ratio(np.array([1.0, np.nan]), np.array([1.0, 2.0]))


def _fake(impact_gain: float, tail_gain: float):
    rng = np.random.default_rng(0)
    base = 3.0 + 0.3 * rng.standard_normal(24)
    f = "1/256"
    nll = {"reference": base, "RTN, official grid (no zero)": base + 5, "RTN, symmetric grid with zero": base + 2,
           "RTN, zero-point (asymmetric)": base + 1, f"impact {f}": base + 1 - impact_gain,
           f"magnitude {f}": base + 3, f"activation {f}": base + 1 - impact_gain / 2, f"random {f}": base + 5}
    tail = {("QAT", "PTQ"): base + 0.5, ("CherryQ (impact)", "PTQ"): base + 0.45,
            ("CherryQ (random)", "PTQ"): base + 0.5}
    for s in (0, 1, 2):
        tail[("QAT", s)] = base + 0.3
        tail[("CherryQ (impact)", s)] = base + 0.3 - tail_gain
        tail[("CherryQ (random)", s)] = base + 0.3 + 0.01 * rng.standard_normal(24)
    cfg = dict(fractions=(1 / 256,), tail_seeds=(0, 1, 2), tail_blocks=1, tail_steps=200)
    real = RealResult(names=["m"] * 24, hs_impact=np.tile([3.0, 5.0, 8.0, 40.0], 6), hs_magnitude=np.full(24, 1.2),
                      nll=nll, k={}, outlier={}, tail=tail, seconds={}, config=cfg)
    toy = TrainableResult(ppl={}, seeds=(0, 1, 2), bits=(2,), config=dict(n_fisher=4096, pretrain_steps=400),
                          hs={(s, n): (1.3 + 0.1 * s, 1.5, 1.1) for s in (0, 1, 2) for n in ("fc1", "fc2")})
    return real, toy


def test_checks_pass_when_the_claims_hold_and_fail_when_they_do_not(tmp_path, monkeypatch):
    monkeypatch.setenv("NEURIPS24_CLAIMS_DIR", str(tmp_path))
    real, toy = _fake(impact_gain=0.4, tail_gain=0.1)
    for claim_id, kwargs in checks(real, toy).items():
        if claim_id in ("cherryq.cherries_vs_rtn", "cherryq.impact_vs_activation",
                        "cherryq.cherryq_vs_qat"):                   # not reproduced: strict
            assert claims.outcome(claim_id, **kwargs) == "unexpected pass"
            continue
        claims.check(claim_id, **kwargs)                              # none raises
    real, toy = _fake(impact_gain=-0.2, tail_gain=-0.1)              # impact cherries worse than the baselines
    kw = checks(real, toy)
    assert claims.outcome("cherryq.cherryq_vs_qat", **kw["cherryq.cherryq_vs_qat"]) == "not reproduced"


def test_cherryq_vs_qat_fails_without_training(tmp_path, monkeypatch):
    """CherryQ ahead of QAT from the start, but no training gain: the check must not pass on the start alone."""
    monkeypatch.setenv("NEURIPS24_CLAIMS_DIR", str(tmp_path))
    real, _ = _fake(impact_gain=0.4, tail_gain=0.1)
    for m in ("QAT", "CherryQ (impact)", "CherryQ (random)"):
        for s in (0, 1, 2):
            real.tail[(m, s)] = real.tail[(m, "PTQ")]                    # zero steps: the start, unchanged
    kw = checks(real)["cherryq.cherryq_vs_qat"]
    assert kw["measured"]["95% high"] < 1                             # the ratio alone would pass
    assert claims.outcome("cherryq.cherryq_vs_qat", **kw) == "not reproduced"   # the rule does not hold


def _with_all_criteria(real, impact_shift: float):
    """Add activation and magnitude tail runs: each trained from a start above impact's; impact ends
    ``impact_shift`` nats per token below them after training (negative: above)."""
    for c, start in (("activation", 0.47), ("magnitude", 0.48)):
        real.tail[(f"CherryQ ({c})", "PTQ")] = real.tail[("QAT", "PTQ")] - 0.5 + start
        for s in (0, 1, 2):
            real.tail[(f"CherryQ ({c})", s)] = real.tail[("CherryQ (impact)", s)] + impact_shift
    return real


def test_criterion_in_training_is_not_run_without_the_other_criteria():
    real, _ = _fake(impact_gain=0.4, tail_gain=0.1)
    kw = checks(real)["cherryq.criterion_in_training"]
    assert kw["expect"] == "needs full scale" and "cherryq_tail_ablation.py" in kw["command"]


def test_criterion_in_training_judges_impact_against_both_criteria(tmp_path, monkeypatch):
    """Impact below both after training: the rule holds (an unexpected pass for a claim recorded as not
    reproduced); below one only, or with a run that never trained, it does not."""
    from neurips24.cherryq.reproduction import beats_both, criterion_in_training_check
    monkeypatch.setenv("NEURIPS24_CLAIMS_DIR", str(tmp_path))
    real = _with_all_criteria(_fake(impact_gain=0.4, tail_gain=0.1)[0], impact_shift=0.05)
    kw = criterion_in_training_check(real)
    assert beats_both(kw["measured"]) and not beats_both(kw["control"]["measured"])
    assert set(kw["per_seed"]) == {0, 1, 2}
    assert kw["per_seed"][0]["vs activation"] == pytest.approx(np.exp(-0.05), abs=1e-4)
    assert claims.outcome("cherryq.criterion_in_training", **kw) == "unexpected pass"
    real = _with_all_criteria(_fake(impact_gain=0.4, tail_gain=0.1)[0], impact_shift=-0.05)
    assert claims.outcome("cherryq.criterion_in_training", **criterion_in_training_check(real)) == "not reproduced"
    real = _with_all_criteria(_fake(impact_gain=0.4, tail_gain=0.1)[0], impact_shift=0.05)
    for s in (0, 1, 2):                                              # magnitude's run never trained
        real.tail[("CherryQ (magnitude)", s)] = real.tail[("CherryQ (magnitude)", "PTQ")]
    kw = criterion_in_training_check(real)
    assert kw["measured"]["vs magnitude"]["95% high"] < 1 and kw["measured"]["min training gain"] <= 0
    assert not beats_both(kw["measured"])
