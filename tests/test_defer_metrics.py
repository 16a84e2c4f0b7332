"""System accuracy, coverage, accepted accuracy against hand-worked cases and scikit-learn (defer.metrics)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from sklearn.metrics import accuracy_score

from neurips24.defer.metrics import deferral_metrics


def test_hand_worked_case():
    # n = 3 classes, defer = 3
    decision = torch.tensor([0, 3, 1, 3, 2, 2])
    y = torch.tensor([0, 1, 2, 2, 2, 1])
    g = torch.tensor([1, 1, 0, 0, 2, 1])
    m = deferral_metrics(decision, y, g, 3)
    # right: model 0=0 yes; defer g=1=y yes; model 1≠2 no; defer g=0≠2 no; model 2=2 yes; model 2≠1 no
    assert m["system_acc"] == pytest.approx(3 / 6)
    assert m["coverage"] == pytest.approx(4 / 6)
    assert m["accepted_acc"] == pytest.approx(2 / 4)
    assert m["expert_deferred_acc"] == pytest.approx(1 / 2)
    assert m["deferral_loss"] == pytest.approx(3 / 6)       # with c = 1{g ≠ y}, loss = 1 − system accuracy
    assert m["n"] == 6


def test_against_scikit_learn_as_in_the_baselines_code():
    rng = np.random.default_rng(0)
    n, N = 4, 500
    y, g = rng.integers(0, n, N), rng.integers(0, n, N)
    decision = rng.integers(0, n + 1, N)
    defers = decision == n
    preds = np.where(defers, 0, decision)
    m = deferral_metrics(decision, y, g, n)
    assert m["system_acc"] == pytest.approx(accuracy_score(y, np.where(defers, g, preds)))
    assert m["accepted_acc"] == pytest.approx(accuracy_score(y[~defers], preds[~defers]))
    assert m["coverage"] == pytest.approx(1 - defers.mean())


def test_general_cost_and_edge_cases():
    y, g = torch.tensor([0, 1]), torch.tensor([0, 0])
    m = deferral_metrics(torch.tensor([2, 2]), y, g, 2, cost=torch.tensor([0.3, 1.0]))
    assert m["deferral_loss"] == pytest.approx(0.65) and m["coverage"] == 0 and math.isnan(m["accepted_acc"])
    m = deferral_metrics(torch.tensor([0, 1]), y, g, 2)
    assert m["coverage"] == 1 and math.isnan(m["expert_deferred_acc"]) and m["system_acc"] == 1


def test_bad_input():
    y = torch.tensor([0, 1])
    with pytest.raises(ValueError, match="expert must have shape"):
        deferral_metrics(torch.tensor([0, 1]), y, torch.tensor([0]), 2)
    with pytest.raises(ValueError, match="decision must lie in"):
        deferral_metrics(torch.tensor([0, 5]), y, y, 2)
    with pytest.raises(ValueError, match="expert must lie in"):
        deferral_metrics(torch.tensor([0, 1]), y, torch.tensor([0, 2]), 2)
    with pytest.raises(ValueError, match="cost must lie in"):
        deferral_metrics(torch.tensor([0, 1]), y, y, 2, cost=torch.tensor([0.0, 2.0]))
    with pytest.raises(ValueError, match="n_classes"):
        deferral_metrics(torch.tensor([0, 1]), y, y, 1)
    with pytest.raises(ValueError, match="at least one"):
        deferral_metrics(torch.tensor([], dtype=torch.long), torch.tensor([], dtype=torch.long),
                         torch.tensor([], dtype=torch.long), 2)
