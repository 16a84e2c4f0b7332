"""The linear-scaling claims (dlq.reproduction.scaling_checks): judged at full scale, NOT RUN HERE at fast with
the full-scale record beside them; the record's reader and its text summary."""
from __future__ import annotations

import json
import math
from types import SimpleNamespace

import numpy as np
import pytest

from neurips24 import claims
from neurips24.dlq import reproduction as R
from neurips24.dlq.experiment import SCALING_CASES, Scaling


def fake_scaling(scale: str, alpha: dict, d_values=(32, 64, 128, 256), seeds=(0, 1, 2, 3, 4)) -> Scaling:
    """Steps to recovery T = 2 d^α per case and seed (α: {(inputs, loss): exponent or None = never recovers})."""
    runs, n = {}, len(seeds)
    for case in SCALING_CASES:
        for d in d_values:
            a = alpha[case]
            t = np.full(n, math.inf if a is None else 2.0 * d ** a)
            runs[(*case, d)] = SimpleNamespace(first_passage=lambda level, t=t: t.copy())
    return Scaling(runs=runs, cases=SCALING_CASES, d_values=tuple(d_values), seeds=tuple(seeds), level=0.2,
                   horizon_per_d=40, scale=scale)


def alphas(boolean, gaussian):
    return {("boolean", "l1"): boolean, ("gaussian", "l1"): gaussian, ("boolean", "squared"): None}


def outcome(kw, cid="dlq.x"):
    return claims.outcome(cid, **kw)


def test_full_scale_judges_the_pm1_target_as_holding_and_the_gaussian_one_as_not():
    ok = R.scaling_checks(fake_scaling("full", alphas(1.0, 1.5)), tried="x")
    assert outcome(ok["dlq.linear_scaling"]) == "pass"
    assert outcome(ok["dlq.linear_scaling_gaussian"]) == "not reproduced"
    assert ok["dlq.linear_scaling"]["per_seed"] == {s: 1.0 for s in range(5)}
    bad = R.scaling_checks(fake_scaling("full", alphas(1.4, 1.0)), tried="x")
    assert outcome(bad["dlq.linear_scaling"]) == "fail"                      # superlinear: the claim fails at full
    assert outcome(bad["dlq.linear_scaling_gaussian"]) == "unexpected pass"  # linear: the text must be revisited


def test_fast_scale_is_not_run_here_with_the_command_and_the_full_record():
    full = {"claims": {"dlq.linear_scaling": {"measured": {"α": 1.2}, "per_seed": {"0": 1.2}, "holds": True}},
            "meta": {"gpu": "GPU X", "date_utc": "2026-01-01 00:00", "commit": "abc", "wall_s": 10.0}}
    sc = fake_scaling("fast", alphas(1.4, 1.6), d_values=(32, 64, 128), seeds=(0, 1, 2))
    ch = R.scaling_checks(sc, tried="x", full=full)
    for cid in ("dlq.linear_scaling", "dlq.linear_scaling_gaussian"):
        kw = ch[cid]
        assert outcome(kw) == "not run here" and kw["command"] == R.FULL_COMMAND
        assert "test" not in kw and "holds" not in kw          # nothing judged at fast
        a = 1.4 if cid == "dlq.linear_scaling" else 1.6
        assert kw["per_seed"] == {0: pytest.approx(a), 1: pytest.approx(a), 2: pytest.approx(a)}
        assert "32, 64, 128, 256" in kw["claim"]                 # the definition does not follow the scale
    assert ch["dlq.linear_scaling"]["measured"]["full scale"]["where"] == "GPU X, 2026-01-01 00:00 UTC, commit abc"
    assert ch["dlq.linear_scaling_gaussian"]["measured"]["full scale"] == "not measured at full scale yet"


def test_load_full_record(tmp_path):
    assert R.load_full_record(tmp_path) is None
    rec = {"claim_id": "dlq.linear_scaling", "holds": True}
    (tmp_path / f"{R.STEM}.jsonl").write_text(json.dumps(rec) + "\n\n", encoding="utf-8")
    got = R.load_full_record(tmp_path)
    assert got == {"claims": {"dlq.linear_scaling": rec}, "meta": {}}
    (tmp_path / f"{R.STEM}.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match="line 1 is not JSON"):
        R.load_full_record(tmp_path)


def test_full_summary_without_and_with_a_record():
    none = R.full_summary(None)
    assert none["bool_alpha"] == none["gauss_text"] == none["where"] == "not measured at full scale yet"
    assert none["stopped"] == "" and none["timing"] == "has no record in this copy of the book"
    full = R.load_full_record()
    if full is None:
        pytest.skip("no full-scale record in this tree")
    s = R.full_summary(full)
    rec = full["claims"]["dlq.linear_scaling"]
    assert s["bool_alpha"] == f"{rec['measured']['α (least squares, mean over seeds)']:.2f}"
    assert len(s["bool_seeds"].split(", ")) == len(rec["per_seed"]) >= 5
    assert s["wall_s"] == f"{full['meta']['wall_s']:.0f}"
    assert s["timing"].startswith(f"took {s['wall_s']} s on {s['where']}")


def test_the_committed_full_record_agrees_with_the_full_expectation():
    """The ±1 claim is expected to hold at full because the full-scale record measured it holding."""
    full = R.load_full_record()
    if full is None:
        pytest.skip("no full-scale record in this tree")
    rec = full["claims"]["dlq.linear_scaling"]
    assert rec["scale"] == "full" and rec["holds"] is True
    assert abs(rec["measured"]["α (least squares, mean over seeds)"] - 1) <= R.LINEAR_TOL


def test_the_control_decides_at_fast_too():
    """A squared loss that scaled linearly would make the fast record say the check does not discriminate."""
    sc = fake_scaling("fast", {("boolean", "l1"): 1.4, ("gaussian", "l1"): 1.6, ("boolean", "squared"): 1.0},
                      d_values=(32, 64, 128), seeds=(0, 1, 2))
    assert outcome(R.scaling_checks(sc, tried="x")["dlq.linear_scaling"]) == "control holds"
