"""Planted bugs in the iteration-heads chapter: each must make one of its claims fail.

Small size: the chapter's polynomial iteration (L <= 4) for 60 epochs (the chapter: 100) on 3 seeds (1, 2, 3 of the
chapter's 5; each model has its own dropout stream, so a seed trains as in the chapter), trained once (module
fixture) with and without CoT on 2 layers and with CoT on 1 layer; each mutant re-scores the trained models with the
chapter's own evaluation (``train.evaluate``) and rules (``reproduction.checks``).
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

import neurips24
from neurips24.iteration_heads import experiment as ex
from neurips24.iteration_heads import metrics, reproduction, train
from neurips24.iteration_heads.tasks import make_dataset

from .harness import assert_caught, outcomes

CHAPTER = "iteration_heads"
L_MAX, EPOCHS, N_SEEDS = 4, 60, 3


@pytest.fixture(scope="module")
def trained():
    torch.set_num_threads(1)
    cfg = ex._settings("fast", L_max=L_MAX, epochs=EPOCHS)
    cfg["seeds"] = neurips24.seeds(N_SEEDS, start=1)
    seeds = list(cfg["seeds"])
    data2 = [make_dataset("polynomial", L_MAX, cfg["n_per_len"], cot, seed=s) for cot in (True, False) for s in seeds]
    two, _ = ex._train(2, seeds + seeds, data2, cfg)
    one, _ = ex._train(1, seeds, data2[:N_SEEDS], cfg)
    return cfg, two, data2, one, data2[:N_SEEDS]


def run_small(trained) -> dict:
    cfg, two, data2, one, data1 = trained

    def final(model, data, rows):
        _, _, test, test_len = ex._stack(data)
        f = train.evaluate(model, test, test_len)
        empty = np.zeros((len(range(*rows.indices(model.n_models))), 1))
        return train.History(loss=empty, test_acc=empty, peaky0=empty, peaky1=empty,
                             extra={"final_acc": f["acc"][rows], "final_peaky1": f["peaky1"][rows],
                                    "final_acc_by_len": f["acc_by_len"][rows]})

    S = N_SEEDS
    em = ex.Emergence(cot=final(two, data2, slice(0, S)), no_cot=final(two, data2, slice(S, 2 * S)),
                      maps=None, probe=None, model=two, config=cfg)
    return outcomes(reproduction.checks(em, final(one, data1, slice(0, S))))


@pytest.fixture(scope="module")
def base(trained):
    return run_small(trained)


def _attention_scores_next(maps, lengths):
    """metrics.attention_scores with attn1 read at x_{t+1} instead of x_t (the off-by-one)."""
    out = metrics.attention_scores(maps, lengths)
    L_max = int(lengths.max())
    t = torch.arange(1, L_max + 1, device=lengths.device)
    valid = t[None, :] <= lengths[:, None]
    n = torch.arange(len(lengths), device=lengths.device)[:, None]
    row1, col1 = torch.where(valid, lengths[:, None] + t, 0), torch.where(valid, t + 1, 0)
    out["attn1"] = torch.where(valid, maps[1, :, n, 0, row1, col1], torch.tensor(float("nan")))
    return out


def test_attn1_reads_the_next_input(monkeypatch, trained, base):
    monkeypatch.setattr(train, "attention_scores", _attention_scores_next)
    assert_caught(CHAPTER, "attn1_off_by_one", "the iteration-head score reads the layer-2 attention to x_{t+1} "
                  "instead of x_t (an off-by-one in the column)", run_small(trained), base)


def test_any_target_right(monkeypatch, trained, base):
    def any_right(logits, seqs):
        targets = seqs[..., 1:]
        from neurips24.iteration_heads.tasks import cot_mask
        return ((logits.argmax(-1) == targets) & cot_mask(targets)).any(dim=-1)

    monkeypatch.setattr(train, "sequence_correct", any_right)
    assert_caught(CHAPTER, "any_target_right", "a sequence counts as correct when any target after EoI is right "
                  "(any instead of all)", run_small(trained), base)


def test_accuracy_without_the_mask(monkeypatch, trained, base):
    def unmasked(logits, seqs):
        return ~(logits.argmax(-1) != seqs[..., 1:]).any(dim=-1)

    monkeypatch.setattr(train, "sequence_correct", unmasked)
    assert_caught(CHAPTER, "accuracy_without_mask", "the accuracy forgets the CoT mask and scores every position, "
                  "the random inputs included", run_small(trained), base)
