"""Planted bugs in the IMN chapter: each must make one of its claims fail.

Small size: the chapter's accuracy and faithfulness experiments (``imn.run_accuracy``, ``imn.run_faithfulness``)
on breast cancer and the logistic set, 3 seeds, 15 epochs, 300 synthetic instances, 30 trees, no EBM and no λ = 0
ablation; the claims judged on the shipped 500-epoch record are NOT RUN HERE without it (a mutant cannot reach a
record). An L1 term with the wrong sign was tried as a mutant and no claim caught it at this size.
"""
from __future__ import annotations

import pytest
import torch

import neurips24
from neurips24.imn import experiment, model, reproduction

from .harness import assert_caught, outcomes

CHAPTER = "mesomorphic_tabular"


def run_small():
    res = experiment.run_accuracy("fast", seeds=neurips24.seeds(3), ebm=False, epochs=15,
                                  sets=("breast_cancer",),
                                  config={"n_synthetic": 300, "rf_trees": 30, "l1_ablation": False})
    return reproduction.checks(experiment.run_faithfulness(res))


@pytest.fixture(scope="module")
def base():
    torch.set_num_threads(1)
    return outcomes(run_small())


def test_head_ignores_x(monkeypatch, base):
    def head(x, W):
        impacts = W[:, :-1, :]                  # the emitted weights, never multiplied by x
        return impacts.sum(dim=1) + W[:, -1, :], impacts

    monkeypatch.setattr(model, "linear_head", head)
    assert_caught(CHAPTER, "head_ignores_x", "the linear head sums the emitted weights without multiplying them "
                  "by x (an MLP whose output layer ignores the input)", outcomes(run_small()), base)


def test_proba_columns_swapped(monkeypatch, base):
    real = model.IMN.predict_proba
    monkeypatch.setattr(model.IMN, "predict_proba", lambda self, X: real(self, X)[:, ::-1])
    assert_caught(CHAPTER, "proba_columns_swapped", "predict_proba stacks the sigmoid's probabilities in the wrong "
                  "column order (class 0 gets sigma(z))", outcomes(run_small()), base)


def test_training_never_steps(monkeypatch, base):
    monkeypatch.setattr(torch.optim.Adam, "step", lambda self, closure=None: None)
    assert_caught(CHAPTER, "never_steps", "the optimiser never steps (the hypernetwork keeps its initial "
                  "weights)", outcomes(run_small()), base)
