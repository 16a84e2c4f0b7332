"""The mutant harness itself (tests/mutants/harness.py): what counts as caught, what it records."""
from __future__ import annotations

import json

import pytest
from mutants.harness import assert_caught, caught_by, outcomes


def _checks(value):
    return {"demo.a": dict(claim="c", measured=value, paper=1, test=lambda v: v > 0.5,
                           control={"name": "untrained", "measured": 0.1}),
            "demo.b": dict(claim="c", measured=value, paper=1, test=lambda v: v > 2, expect="not reproduced",
                           tried="the paper's setting")}


def test_outcomes_and_caught_by():
    base, mutated = outcomes(_checks(1.0)), outcomes(_checks(0.2))
    assert base == {"demo.a": "pass", "demo.b": "not reproduced"}
    assert caught_by(mutated, base) == ["demo.a"]
    assert caught_by(outcomes(_checks(3.0)), base) == ["demo.b"]          # a 'not reproduced' that now holds
    assert caught_by({"demo.b": "not reproduced"}, base) == ["demo.a"]     # a claim that is gone


def test_assert_caught_records_and_refuses_an_uncaught_mutant(tmp_path, monkeypatch):
    monkeypatch.setenv("NEURIPS24_MUTANTS_DIR", str(tmp_path))
    base = outcomes(_checks(1.0))
    assert assert_caught("demo", "weak", "a weaker model", outcomes(_checks(0.2)), base) == ["demo.a"]
    rec = json.loads((tmp_path / "demo.weak.json").read_text())
    assert rec["caught_by"] == ["demo.a"] and rec["outcomes"]["demo.a"] == ["pass", "fail"]
    with pytest.raises(AssertionError, match="caught by no claim"):
        assert_caught("demo", "same", "no change", outcomes(_checks(0.9)), base)
    with pytest.raises(AssertionError, match="unmutated run"):
        assert_caught("demo", "x", "x", base, outcomes(_checks(0.2)))


def test_a_mutant_that_makes_the_run_stop_is_recorded_as_refused(tmp_path, monkeypatch):
    from mutants.harness import assert_refused

    monkeypatch.setenv("NEURIPS24_MUTANTS_DIR", str(tmp_path))

    def run():
        raise ValueError("alpha overflowed")

    assert assert_refused("demo", "sign", "the regulariser's sign flipped", run) == "ValueError: alpha overflowed"
    rec = json.loads((tmp_path / "demo.sign.json").read_text())
    assert rec["refused"].startswith("ValueError") and rec["caught_by"] == []
    with pytest.raises(pytest.fail.Exception):
        assert_refused("demo", "none", "no bug", lambda: None)
