"""Experiment entry points: configuration, the paper's table, the widget's checks (cherryq.experiment)."""
from __future__ import annotations

import pytest
import torch

from neurips24.cherryq import experiment
from neurips24.cherryq.charlm import CharMLP, load_chars


def test_scales_and_paper_table():
    assert set(experiment.CONFIG) == {"fast", "full"}
    for cfg in experiment.CONFIG.values():
        assert len(cfg["toy"]["seeds"]) >= 3 and 2 in cfg["toy"]["bits"] and cfg["real"]["bits"] == 3
    assert experiment.PAPER_LLAMA2_7B["CherryQ"]["3-bit g128"] == (7.39, 5.92)
    with pytest.raises(ValueError, match="run scale"):
        experiment.run_trainable("medium")
    with pytest.raises(ValueError, match="run scale"):
        experiment.run_real_model("medium")


def test_text_split_is_disjoint():
    data = load_chars()
    assert len(data.train) > 8 * len(data.test) > 0 and data.vocab[0] == "\0"


def test_explore_ptq_and_its_errors():
    torch.manual_seed(0)
    data = load_chars()
    model = CharMLP(len(data.vocab), context=8, d_emb=32, hidden=256)
    X, Y = data.windows("test", 8, 500, torch.Generator().manual_seed(0))
    res = experiment.TrainableResult(ppl={}, seeds=(0,), bits=(2,), config={}, fp_model=model,
                                     fisher={"fc1": torch.rand(256, 256), "fc2": torch.rand(256, 256)},
                                     eval_windows=(X, Y))
    out = experiment.explore_ptq(res, bits=2, group_size=64, cherry_fraction=1 / 32)
    assert out["k"] == 8 and all(v > 1 for k, v in out.items() if k != "k")
    with pytest.raises(ValueError, match="bits must be in 2..8"):
        experiment.explore_ptq(res, bits=9)
    with pytest.raises(ValueError, match="group_size"):
        experiment.explore_ptq(res, group_size=48)
    with pytest.raises(ValueError, match="cherry_fraction"):
        experiment.explore_ptq(res, cherry_fraction=1.0)
