"""Planted bugs in the test-time fusion chapter: each must make one of its claims fail.

Small size: 3 training seeds of a shorter training (150 steps, one crop per training photograph and kind) and
4 held-out crops per kind. At that size the networks are too weakly trained for the direction claims (they fail
there), so the claims judged are the covariance term of Theorem 3.1 at both γ. The bugs are in TTD's test-time
step, so the networks are trained once and each mutant re-evaluates them.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.ttd import experiment, reproduction, weights

from .harness import assert_caught, outcomes

CHAPTER = "test_time_image_fusion"
SMALL = dict(train_crops=1, train_size=128, test_crops=4, test_size=128, steps=150, channels=8, n_seeds=3)
KEPT = ("ttd.covariance_negative", "ttd.covariance_negative_gamma1")


@pytest.fixture(scope="module")
def runs():
    torch.set_num_threads(1)
    old = experiment.SETTINGS["fast"]
    experiment.SETTINGS["fast"] = SMALL
    try:
        return [experiment.train_networks("fast", s) for s in experiment.training_seeds("fast")]
    finally:
        experiment.SETTINGS["fast"] = old


def judged(runs):
    for r in runs:
        experiment.evaluate(r)
    return outcomes({cid: kw for cid, kw in reproduction.checks(runs).items() if cid in KEPT})


@pytest.fixture(scope="module")
def base(runs):
    return judged(runs)


def test_weights_increase_with_the_loss(monkeypatch, runs, base):
    def rising(loss, gamma=weights.GAMMA_CODE, form="exp"):
        z = np.exp(gamma * np.asarray(loss, dtype=np.float64))          # e^{+γℓ}: more weight where ℓ is high
        z = z - z.max(0)
        return z.shape[0] * np.exp(z) / np.exp(z).sum(0)

    monkeypatch.setattr(weights, "rd_weights", rising)
    assert_caught(CHAPTER, "weights_increase_with_loss", "relative dominability written as Softmax(exp(+γℓ)): "
                  "the weights rise with the uni-source loss", judged(runs), base)


def test_losses_of_the_sources_swapped(monkeypatch, runs, base):
    monkeypatch.setattr(weights, "component_loss",
                        lambda components, sources: ((np.asarray(components) - np.asarray(sources)) ** 2)[::-1])
    assert_caught(CHAPTER, "losses_swapped", "the uni-source losses are stacked in the other order, so ω_m is read "
                  "from ℓ_{m'}", judged(runs), base)


def test_loss_of_the_wrong_source(monkeypatch, runs, base):
    monkeypatch.setattr(weights, "component_loss",
                        lambda components, sources: (np.asarray(components) - np.asarray(sources)[::-1]) ** 2)
    assert_caught(CHAPTER, "wrong_source_loss", "each uni-source component is compared with the other source: "
                  "ℓ_m = (D(E(x_m)) − x_{m'})²", judged(runs), base)
