"""Planted bugs in the sparse-function-queries chapter: each must make one of its claims fail.

Small size: the query tables at d = 16 with 2^16 Monte Carlo samples (8 chunks), and online SGD at d = 32 for
40 d steps on 3 seeds (the chapter's recovery claims); the scaling runs are left out (too slow for a mutant).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from neurips24.dlq import experiment, network, reproduction, tables

from .harness import assert_caught, outcomes

CHAPTER = "sparse_function_queries"


def run_small() -> dict:
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(experiment.CONFIG, "fast", dict(experiment.CONFIG["fast"], chunk=2 ** 13, recovery_d=(32,)))
        det = experiment.run_detectability("fast", d=16, n_samples=2 ** 16, seed=0)
        rec = experiment.run_recovery("fast", seeds=(0, 1, 2))
    return {**reproduction.query_checks(det), **reproduction.recovery_checks(rec)}


@pytest.fixture(scope="module")
def base():
    return outcomes(run_small())


def test_he2_without_minus_one(monkeypatch, base):
    real = tables.features

    def features(junta, x):
        F = real(junta, x)
        if junta.inputs == "gaussian":
            F[:, 1] = np.asarray(x, dtype=np.float64) ** 2 / math.sqrt(2.0)   # He2 written as x²/√2
        return F

    monkeypatch.setattr(tables, "features", features)
    assert_caught(CHAPTER, "he2_without_minus_one", "the second Hermite function is written x²/√2, without its −1 "
                  "(not zero-mean: every coordinate correlates with any non-centred T(y))", outcomes(run_small()), base)


def test_l1_sign_flipped(monkeypatch, base):
    real = network.loss_grad
    monkeypatch.setattr(network, "loss_grad", lambda loss, f, y, delta=1.0:
                        -real(loss, f, y, delta) if loss == "l1" else real(loss, f, y, delta))
    assert_caught(CHAPTER, "l1_sign_flipped", "the ℓ1 derivative is sign(y − f) instead of sign(f − y): SGD climbs "
                  "the ℓ1 loss", outcomes(run_small()), base)


def test_loss_ignored(monkeypatch, base):
    monkeypatch.setattr(network, "loss_grad", lambda loss, f, y, delta=1.0: torch.sign(f - y))
    assert_caught(CHAPTER, "loss_ignored", "the SGD step uses the ℓ1 derivative whatever the loss (the squared-loss "
                  "runs train on ℓ1)", outcomes(run_small()), base)
