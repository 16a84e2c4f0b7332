"""Experiment drivers: the settings against the official scripts, the drop statistic by hand, small runs, and the
figures (Cabannes et al. 2024; github.com/facebookresearch/pal, projects/cot/grid_run_pretrain.py)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

import neurips24
from neurips24 import claims
from neurips24.iteration_heads import experiment as ex
from neurips24.iteration_heads import plots, reproduction
from neurips24.iteration_heads.train import fit


def test_full_config_is_the_papers():
    cfg = ex.config("full")
    # grid_run_pretrain.py / train.py: n_len 16, 1024 per length, emb_dim 128, Adam 3e-4, batch 256, 1000 epochs
    assert (cfg["L_max"], cfg["n_per_len"], cfg["d"], cfg["lr"], cfg["batch_size"], cfg["epochs"]) == \
        (16, 1024, 128, 3e-4, 256, 1000)
    assert cfg["dropout"] == 0.1 and len(cfg["seeds"]) >= 3
    fast = ex.config("fast")
    assert len(fast["seeds"]) >= 3 and fast["d"] in (32, 64)
    assert fast["seeds"] == neurips24.seeds(fast["n_seeds"])
    with pytest.raises(ValueError, match="scale"):
        ex.config("huge")


def test_drop_ratio_by_hand():
    # plateau with changes of 0.01, then one drop of 0.5: ratio 0.5 / 0.01 = 50
    loss = [3.0, 1.0, 0.99, 0.98, 0.97, 0.47, 0.46, 0.45]
    assert ex.drop_ratio(loss, skip=1) == pytest.approx(50)
    # a straight line: every decrease equal, ratio 1; the first descent left out by skip
    assert ex.drop_ratio(np.linspace(1, 0, 11), skip=0) == pytest.approx(1)
    assert ex.drop_ratio([np.nan, 1.0, 1.0, 1.0], skip=0) == 0.0
    assert ex.drop_epochs(np.array([[np.nan, 3.0, 1.0, 0.99, 0.98, 0.48, 0.47]]), skip=1) == [5]
    assert ex.first_epoch_above(np.array([[0.1, 0.5, 0.96, 0.9], [0, 0, 0, 0]]), 0.95) == [2, -1]
    with pytest.raises(ValueError, match="skip"):
        ex.drop_ratio([1.0, 0.5, 0.4], skip=3)
    with pytest.raises(ValueError, match="finite"):
        ex.drop_ratio([1.0, np.inf, 0.4, 0.3])
    with pytest.raises(ValueError, match="1-d"):
        ex.drop_ratio(np.ones((2, 5)))


def test_small_runs_and_figures():
    em = ex.run_emergence("fast", L_max=3, d=8, epochs=2)
    S = len(em.config["seeds"])
    assert em.cot.loss.shape == (S, 3) and np.isnan(em.cot.loss[:, 0]).all()
    assert em.cot.extra["final_acc"].shape == (S,) and em.no_cot.test_acc.shape == (S, 3)
    T = 2 * 3 + 3
    assert em.maps.shape == (3, 2, T, T) and em.probe.shape == (T,) and em.probe[3 + 1] == 62
    np.testing.assert_allclose(em.maps.sum(-1), 1, atol=1e-5)
    one = ex.run_one_layer("fast", L_max=3, d=8, epochs=1)
    assert np.isnan(one.peaky1).all() and one.extra["final_acc"].shape == (S,)
    tr = ex.run_transfer(em, epochs=1)
    assert tr.finetuned.test_acc.shape == (S, 2) and tr.config["ft_epochs"] == 1
    for fig in (plots.plot_emergence({"CoT, 2 layers": em.cot, "CoT, 1 layer": one}, em.config),
                plots.plot_attention(em, [0, 2]), plots.plot_transfer(tr), plots.plot_grid(ex.run_grid("fast"))):
        assert fig.axes
        plt.close(fig)
    with pytest.raises(ValueError, match="epochs"):
        ex.run_emergence("fast", epochs=0)
    with pytest.raises(ValueError, match="L_max"):
        ex.run_one_layer("fast", L_max=0)


def test_fit_validates():
    from neurips24.iteration_heads.model import EnsembleTransformer
    m = EnsembleTransformer(1, 8, max_len=9)
    x = torch.zeros(1, 4, 9, dtype=torch.long)
    n = torch.ones(4, dtype=torch.long)
    with pytest.raises(ValueError, match="lr"):
        fit(m, x, n, x, n, 1, lr=0.0)
    with pytest.raises(ValueError, match="batch_size"):
        fit(m, x, n, x, n, 1, batch_size=0)
    with pytest.raises(ValueError, match="train"):
        fit(m, torch.zeros(2, 4, 9, dtype=torch.long), n, x, n, 1)


def test_rules_on_a_small_run():
    """reproduction.checks on a 3-epoch run: every claim has its per-seed values, a Wilson interval and a control;
    the transfer claim is NOT RUN HERE at fast scale; the outcome does not raise."""
    em = ex.run_emergence("fast", L_max=3, d=8, epochs=3)
    one = ex.run_one_layer("fast", L_max=3, d=8, epochs=3)
    out = reproduction.checks(em, one)
    assert set(out) == {"iteration_heads.cot_accuracy", "iteration_heads.two_layers", "iteration_heads.iteration_head",
                        "iteration_heads.transfer"}
    for cid, kw in out.items():
        assert claims.outcome(cid, **kw) in ("pass", "fail", "control holds", "not run here")
        if cid != "iteration_heads.transfer":
            assert set(kw["per_seed"]) == set(em.config["seeds"]) and "wilson" in kw["interval"].method
    assert claims.outcome("iteration_heads.transfer", **out["iteration_heads.transfer"]) == "not run here"
    assert reproduction.long_lengths(4) == [3, 4] and reproduction.long_lengths(8) == [5, 6, 7, 8]
    assert reproduction.count_above([0.96, 0.5, np.nan, 0.95], 0.95) == {"k": 2, "n": 4}
    assert reproduction.majority({"k": 3, "n": 5}) and not reproduction.majority({"k": 2, "n": 4})
    with pytest.raises(ValueError, match="values"):
        reproduction.count_above([], 0.5)
    with pytest.raises(ValueError, match="by_len"):
        reproduction.long_accuracy(np.ones((2, 3)), 4)


def test_a_model_trains_the_same_in_any_ensemble():
    """Each model has its own dropout stream: seed 3 alone and seed 3 beside seed 4 train to the same weights."""
    from neurips24.iteration_heads.model import EnsembleTransformer
    from neurips24.iteration_heads.tasks import make_dataset, width

    data = [make_dataset("polynomial", 2, 8, True, seed=s) for s in (3, 4)]
    runs = []
    for seeds in ([3], [3, 4]):
        m = EnsembleTransformer(len(seeds), 8, max_len=width(2), dropout=0.5, seeds=seeds)
        train = torch.stack([d.train for d in data[:len(seeds)]])
        fit(m, train, data[0].train_len, train, data[0].train_len, 2, lr=1e-2, batch_size=4)
        runs.append(m)
    torch.testing.assert_close(runs[0].qkv[:, 0], runs[1].qkv[:, 0], rtol=1e-5, atol=1e-6)
