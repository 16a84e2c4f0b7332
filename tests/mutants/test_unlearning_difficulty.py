"""Planted bugs in the unlearning chapter: each must make one of its claims fail.

Small size: the chapter's experiment (``unlearning.run_unlearning``) on 400 of the digits (280 training points),
3 seeds, a 24-unit MLP trained 100 steps, 6 memorization models, forget sets of 15 points, 15 unlearning steps, no
RUM; the claims judged are those that hold at this size (memorization, ToW by memorization, the forget-targeted
methods); the ES and RUM claims need the chapter's 6 seeds and sizes.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import neurips24
from neurips24.unlearning import algorithms, experiment, reproduction

from .harness import assert_caught, outcomes

CHAPTER = "unlearning_difficulty"
SMALL = dict(n_points=400, hidden=24, steps=100, mem_runs=6, k=15, unlearn_steps=15, rum=False)
JUDGED = ("unlearning.memorization_noise", "unlearning.tow_memorization_nothing", "unlearning.tow_memorization_ft",
          "unlearning.forget_targeted")


def run_small():
    checks = reproduction.checks(experiment.run_unlearning("fast", seeds=neurips24.seeds(3), config=SMALL))
    return {cid: checks[cid] for cid in JUDGED}


@pytest.fixture(scope="module")
def base():
    torch.set_num_threads(1)
    return outcomes(run_small())


def _patched_rows(monkeypatch, algorithm, fix):
    real = algorithms._rows

    def rows(phase, done, y, n_classes, rng, hyper):
        out = real(phase, done, y, n_classes, rng, hyper)
        return fix(out) if phase.algorithm == algorithm else out

    monkeypatch.setattr(algorithms, "_rows", rows)


def test_neggrad_descends_forget_loss(monkeypatch, base):
    _patched_rows(monkeypatch, "NegGrad+", lambda r: {**r, "ce": r["ce"].abs()})     # α·CE_R + (1 − α)·CE_S
    assert_caught(CHAPTER, "neggrad_descends_forget", "NegGrad+ descends the forget-set loss instead of ascending "
                  "it (+(1 - α) CE_S)", outcomes(run_small()), base)


def test_scrub_minimises_kl_in_max_steps(monkeypatch, base):
    _patched_rows(monkeypatch, "SCRUB", lambda r: {**r, "kl_max": -r["kl_max"]})
    assert_caught(CHAPTER, "scrub_max_steps_minimise", "SCRUB's max-steps minimise the KL to the teacher on the "
                  "forget set instead of maximising it", outcomes(run_small()), base)


def test_oracle_trained_on_forget_set(monkeypatch, base):
    real = experiment.fit_from_scratch

    def fit(x, y, masks, **kw):
        masks = np.asarray(masks, bool)
        return real(x, y, ~masks if masks.shape[0] > 1 else masks, **kw)      # the oracles see only S

    monkeypatch.setattr(experiment, "fit_from_scratch", fit)
    assert_caught(CHAPTER, "oracle_on_forget_set", "the retrained oracle is trained on the forget set S instead "
                  "of the retain set R", outcomes(run_small()), base)
