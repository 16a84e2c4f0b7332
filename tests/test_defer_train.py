"""Batched training of K surrogates: parameters, forward pass, independence of the K trainings, warm starts,
bad input (defer.train)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.defer.data import mixture_data
from neurips24.defer.train import Spec, forward, init_params, train_specs


def test_init_params_are_nn_linear_like_and_shared():
    p = init_params(3, 5, 4, None, seed=0)
    assert [tuple(t.shape) for t in p] == [(3, 4, 5), (3, 4)]
    assert torch.equal(p[0][0], p[0][2]) and p[0].abs().max() <= 1 / np.sqrt(5)
    m = init_params(2, 5, 4, 7, seed=0)
    assert [tuple(t.shape) for t in m] == [(2, 7, 5), (2, 7), (2, 4, 7), (2, 4)]
    assert m[2].abs().max() <= 1 / np.sqrt(7)


def test_forward_matches_per_model_linear_layers():
    torch.manual_seed(0)
    params = [torch.randn(2, 6, 3), torch.randn(2, 6), torch.randn(2, 4, 6), torch.randn(2, 4)]
    x = torch.randn(10, 3)
    out = forward(params, x.T.contiguous())                      # (K, n_out, N)
    for k in range(2):
        hid = torch.relu(torch.nn.functional.linear(x, params[0][k], params[1][k]))
        ref = torch.nn.functional.linear(hid, params[2][k], params[3][k])
        torch.testing.assert_close(out[k].T, ref)


def test_batched_training_equals_separate_trainings():
    # Adam is per coordinate and each model's weights only see its own loss: K runs in one graph are K runs
    data = mixture_data(200, 100, seed=3)
    specs = [Spec("a", "rl2d", 0.7), Spec("b", "ova"), Spec("c", "ce", beta=0.2)]
    together = train_specs(data, specs, steps=30, lr=0.05, seed=1)
    for s in specs:
        alone = train_specs(data, [s], steps=30, lr=0.05, seed=1)
        k = [t.label for t in together.specs].index(s.label)
        np.testing.assert_allclose(together.test_logits[k], alone.test_logits[0], rtol=1e-4, atol=1e-5)
        assert together.get(s.label) == alone.metrics[0]


def test_results_keep_the_callers_order_and_learn_a_realizable_problem():
    data = mixture_data(1000, 1000, seed=0)
    specs = [Spec("OvA", "ova"), Spec("RL2D", "rl2d", 1.0), Spec("CE", "ce")]
    res = train_specs(data, specs, steps=300, lr=0.1, seed=0)
    assert [s.label for s in res.specs] == ["OvA", "RL2D", "CE"]
    assert res.get("RL2D")["system_acc"] > 0.9                     # far above the expert or a coin
    assert res.test_logits.shape == (3, 1000, 3) and res.train_loss.shape == (3,)


def test_never_and_shuffled_costs():
    y, g = torch.tensor([0, 1, 1, 0]), torch.tensor([0, 0, 1, 1])
    assert Spec("n", "rs", cost="never").train_cost(y, g).tolist() == [1.0, 1.0, 1.0, 1.0]
    # a permutation keeps the expert's predictions, only moves them: with every label 0, the number of
    # points the shuffled expert gets wrong is the number of its non-zero predictions
    y0 = torch.zeros(200, dtype=torch.long)
    g0 = torch.cat([torch.zeros(120, dtype=torch.long), torch.ones(80, dtype=torch.long)])
    shuffled = Spec("s", "rs", cost="shuffled").train_cost(y0, g0)
    assert float(shuffled.sum()) == 80.0 and not torch.equal(shuffled, (g0 != y0).double())


def test_warm_start():
    data = mixture_data(300, 200, seed=4)
    first = train_specs(data, [Spec("rs", "rs")], steps=20, lr=0.1, seed=0)
    zero = train_specs(data, [Spec("a", "rl2d", 1.0), Spec("b", "ce")], steps=1, lr=1e-12, init=first.params)
    # one step at a negligible rate leaves the warm-start weights: both models reproduce the first run's scores
    for k in range(2):
        np.testing.assert_allclose(zero.test_logits[k], first.test_logits[0], atol=1e-5)
    with pytest.raises(ValueError, match="init must hold"):
        train_specs(data, [Spec("a", "ce")], steps=1, hidden=4, init=first.params)


def test_bad_input():
    data = mixture_data(20, 10)
    with pytest.raises(ValueError, match="name must be one of"):
        Spec("x", "hinge")
    with pytest.raises(ValueError, match="q must lie in"):
        Spec("x", "rl2d", q=2.0)
    with pytest.raises(ValueError, match="cost must be one of"):
        Spec("x", "rl2d", cost="random")
    with pytest.raises(ValueError, match="beta"):
        Spec("x", "ce", beta=1.5)
    with pytest.raises(ValueError, match="non-empty"):
        train_specs(data, [])
    with pytest.raises(ValueError, match="distinct"):
        train_specs(data, [Spec("x", "ce"), Spec("x", "ova")])
    with pytest.raises(ValueError, match="steps"):
        train_specs(data, [Spec("x", "ce")], steps=0)
    with pytest.raises(ValueError, match="lr"):
        train_specs(data, [Spec("x", "ce")], lr=-1.0)
    with pytest.raises(ValueError, match="hidden"):
        init_params(1, 2, 3, 0, 0)
