"""Planted bugs in the Markov chapter: each must make one of its claims fail.

Small size: the reduced model's flow (experiment A) on a 16 × 16 grid for 1500 steps at the chapter's two
regimes, judged by ``markov.reproduction.portrait_checks`` (under a second). The transformer claims (B, C) need
minutes of training and are not re-run here.
"""
from __future__ import annotations

import pytest

from neurips24.markov import chain, experiment, reduced, reproduction

from .harness import assert_caught, outcomes

CHAPTER = "markov_transformers"


def run_small() -> dict:
    portraits = [experiment.run_portrait(p, q, n=16, steps=1500) for p, q in ((0.5, 0.8), (0.2, 0.3))]
    return outcomes(reproduction.portrait_checks(portraits))


@pytest.fixture(scope="module")
def base():
    return run_small()


def test_flow_never_steps(monkeypatch, base):
    real = experiment.gradient_flow
    monkeypatch.setattr(experiment, "gradient_flow", lambda e, w, p, q, lr, steps, bias: real(e, w, p, q, lr=lr * 1e-9,
                                                                                              steps=steps, bias=bias))
    assert_caught(CHAPTER, "flow_never_steps", "the gradient flow's step is scaled to nothing (an optimiser that "
                  "never steps): every run ends where it starts", run_small(), base)


def test_loss_ignores_the_bigram(monkeypatch, base):
    monkeypatch.setattr(experiment, "bigram_loss", chain.unigram_loss)
    assert_caught(CHAPTER, "loss_ignores_bigram", "the reference loss of the bigram predictor is computed as the "
                  "unigram loss (a loss that ignores the current symbol)", run_small(), base)


def test_regime_test_flipped(monkeypatch, base):
    real = reduced.predict_basin
    # the basins depend on (p, q) only through the sign of p + q - 1: (1 - p, 1 - q) flips exactly that
    monkeypatch.setattr(reduced, "predict_basin", lambda e, w, p, q: real(e, w, 1 - p, 1 - q))
    monkeypatch.setattr(experiment, "predict_basin", reduced.predict_basin)
    monkeypatch.setattr(reproduction, "predict_basin", reduced.predict_basin)
    assert_caught(CHAPTER, "regime_flipped", "the basin predictor tests p + q < 1 where the theory says p + q > 1 "
                  "(the two regimes' basins swapped)", run_small(), base)
