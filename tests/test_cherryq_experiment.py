"""Experiment entry points: the scales' set-up, the widget's PTQ against an independent path (cherryq.experiment)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.cherryq import experiment
from neurips24.cherryq.charlm import CharMLP, char_perplexity, load_chars
from neurips24.cherryq.quantizer import num_cherries, quantize_reference, select_cherries
from neurips24.cherryq.real import share_label


def test_scales_use_the_papers_share_without_the_rounding():
    for scale, cfg in experiment.CONFIG.items():
        real = cfg["real"]
        assert real["fractions"][0] == 1 / 256 and share_label(real["fractions"][0]) == "1/256", scale
        # without the official //8*8 rounding, SmolLM2's rows of 576 and 1536 get cherries at the paper's share
        assert num_cherries(576, real["fractions"][0], multiple=1) == 3
        assert num_cherries(1536, real["fractions"][0], multiple=1) == 6
        assert num_cherries(576, real["fractions"][0]) == 0                 # the official count: none
        assert "random" in real["criteria"] and "random" in real["tail_criteria"]   # the controls always run
        assert real["n_eval"] is None or real["n_eval"] >= 32                  # enough held-out windows
        assert real["tail_steps"] >= 200 and real["n_tail_seeds"] >= 3
        assert cfg["toy"]["n_fisher"] >= 4096 and cfg["toy"]["n_seeds"] >= 3
    with pytest.raises(ValueError, match="run scale"):
        experiment.run_trainable("medium")
    with pytest.raises(ValueError, match="run scale"):
        experiment.run_real_model("medium")


def test_text_split_is_disjoint():
    data = load_chars()
    assert len(data.train) > 8 * len(data.test) > 0 and data.vocab[0] == "\0"


@pytest.fixture(scope="module")
def toy_result():
    torch.manual_seed(0)
    data = load_chars()
    model = CharMLP(len(data.vocab), context=8, d_emb=32, hidden=256)
    X, Y = data.windows("test", 8, 500, torch.Generator().manual_seed(0))
    fisher = {"fc1": torch.rand(256, 256), "fc2": torch.rand(256, 256)}
    return experiment.TrainableResult(ppl={}, seeds=(0,), bits=(2,), config={}, fp_model=model, fisher=fisher,
                                      eval_windows=(X, Y))


@pytest.mark.parametrize("grid", ["official", "zero-point"])
def test_explore_ptq_matches_quantizing_with_numpy(toy_result, grid):
    out = experiment.explore_ptq(toy_result, bits=2, group_size=64, cherry_fraction=1 / 32, grid=grid)
    assert out["k"] == 8
    model = toy_result.fp_model
    X, Y = toy_result.eval_windows
    w0 = {n: getattr(model, n).weight.detach().clone() for n in ("fc1", "fc2")}
    try:
        for label, pick in (("RTN", None), ("cherry PTQ (impact)", "impact")):
            with torch.no_grad():
                for n in ("fc1", "fc2"):
                    idx = None if pick is None else select_cherries(toy_result.fisher[n], 8)
                    q = quantize_reference(w0[n].double().numpy(), 2, 64, idx, grid=grid).weight
                    getattr(model, n).weight.copy_(torch.as_tensor(q, dtype=torch.float32))
            assert out[label] == pytest.approx(char_perplexity(model, X, Y), rel=1e-5)
    finally:
        with torch.no_grad():
            for n in ("fc1", "fc2"):
                getattr(model, n).weight.copy_(w0[n])
    assert out["FP"] == pytest.approx(char_perplexity(model, X, Y), rel=1e-6)     # weights restored


def test_explore_ptq_errors(toy_result):
    with pytest.raises(ValueError, match="bits must be in 2..8"):
        experiment.explore_ptq(toy_result, bits=9)
    with pytest.raises(ValueError, match="group_size"):
        experiment.explore_ptq(toy_result, group_size=48)
    with pytest.raises(ValueError, match="cherry_fraction"):
        experiment.explore_ptq(toy_result, cherry_fraction=1.0)
    with pytest.raises(TypeError, match="cherry_fraction"):
        experiment.explore_ptq(toy_result, cherry_fraction="1/32")
    with pytest.raises(ValueError, match="grid must be one of"):
        experiment.explore_ptq(toy_result, grid="int2")


def test_toy_experiment_tiny(monkeypatch):
    cfg = dict(experiment.CONFIG["fast"]["toy"], seeds=(0,), pretrain_steps=20, n_fisher=64, n_fisher_small=16,
               eval_stride=50, qat_steps=3)
    monkeypatch.setitem(experiment.CONFIG["fast"], "toy", cfg)
    res = experiment.run_trainable("fast", progress=False)
    assert {("QAT", 2, 0), ("CherryQ (random)", 2, 0), ("cherries (activation)", 2, 0)} <= set(res.ppl)
    assert all(np.isfinite(v) and v > 1 for v in res.ppl.values())
    # magnitude cherries remove each row's largest weights: no group scale can grow, most shrink
    assert res.scale_ratio[("magnitude", 0)] < res.scale_ratio[("random", 0)]
    assert 0 <= res.overlap[(0, "fc1")] <= 1
