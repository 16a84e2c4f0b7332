"""Planted bugs in the abrupt-learning chapter: each must make one of its claims fail.

Small size: no training. The plateau claim on the shipped 7 × 7 checkpoint (step 2000) on 32 held-out matrices,
the drop claim on the shipped logs, and the claims after the drop on the shipped 3 × 3 checkpoints of the first
training seed on 256 held-out matrices.
"""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.abrupt_learning import experiment, reproduction, train

from .harness import assert_caught, outcomes

CHAPTER = "abrupt_learning"
_RUNS: dict = {}


def _shipped(name):
    if name not in _RUNS:
        _RUNS[name] = experiment.shipped_run(name)
    return _RUNS[name]


def run_small() -> dict:
    seven = _shipped("plateau_7x7")
    cfg7 = experiment.Config(**seven["record"]["config"])
    test = experiment.held_out(cfg7, n_matrices=32)
    ev = experiment.evaluate(seven["checkpoints"][2000], test)
    nuc = experiment.nuclear_baseline(test)
    small = _shipped("drop_3x3")
    cfg3 = experiment.Config(**small["record"]["config"])
    probe = experiment.held_out(cfg3, n_matrices=256, seed=777)
    ck = sorted(small["checkpoints"])
    evs = {k: experiment.evaluate(small["checkpoints"][k], probe) for k in (ck[0], ck[1], ck[-1])}
    X, hid = probe.X.numpy(), ~probe.observed.numpy()
    nuc3 = experiment.nuclear_baseline(probe)
    err = {k: ((e["prediction"] - X) ** 2)[hid] for k, e in evs.items()}
    e_nuc = ((nuc3["completion"] - X) ** 2)[hid]
    logs = {s: reproduction.drop_log(s) for s in reproduction.DROP_RUNS if s == 0 or _has(reproduction.DROP_RUNS[s])}
    return {
        "abrupt_learning.plateau": reproduction.plateau_check(ev, nuc, experiment.variance(cfg7)),
        "abrupt_learning.drop_3x3": reproduction.drop_check(logs, reproduction.gradual_log()),
        "abrupt_learning.beats_nuclear_3x3": reproduction.beats_nuclear_check({0: err[ck[-1]]}, {0: err[ck[0]]},
                                                                              {0: e_nuc}),
        "abrupt_learning.attention_3x3": reproduction.attention_check(
            {0: reproduction.best_head_rise(evs[ck[0]], evs[ck[-1]])},
            {0: reproduction.best_head_rise(evs[ck[0]], evs[ck[1]])}, "two checkpoints before the drop"),
    }


def _has(name):
    return name in experiment.shipped_runs()


@pytest.fixture(scope="module")
def base():
    return outcomes(run_small())


def test_gradual_run_as_drop(monkeypatch, base):
    monkeypatch.setattr(reproduction, "drop_log", lambda seed: reproduction.gradual_log())
    assert_caught(CHAPTER, "gradual_run_as_drop", "the search's gradual 2×2 run is read as the drop run (a wrong "
                  "file name): it removes a quarter of its plateau error, but gradually", outcomes(run_small()), base)


def test_masked_observed_swapped(monkeypatch, base):
    real = train.masked_observed_mse
    monkeypatch.setattr(experiment, "masked_observed_mse", lambda pred, X, observed: real(pred, X, observed)[::-1])
    assert_caught(CHAPTER, "masked_observed_swapped", "masked and observed MSE are returned in swapped order",
                  outcomes(run_small()), base)


def test_nuclear_never_iterates(monkeypatch, base):
    monkeypatch.setattr(experiment, "nuclear_norm_complete",
                        lambda X, observed, **kw: np.where(observed, X, 0.0))
    assert_caught(CHAPTER, "nuclear_never_iterates", "the nuclear-norm ADMM loop never runs: the baseline returns the "
                  "observed entries with zeros at the hidden ones", outcomes(run_small()), base)

