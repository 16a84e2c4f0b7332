"""The mean-field two-layer network and its online SGD (dlq.network), against torch autograd and hand cases."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from neurips24.dlq.junta import make_junta
from neurips24.dlq.network import Network, aligned_fraction, init_network, sgd_step, train_online


@pytest.mark.parametrize("loss", ["squared", "l1", "huber"])
def test_sgd_step_matches_autograd(loss):
    """The hand-written mean-field step equals θ − η m ∇θ (1/B) Σ ℓ, with the gradient from torch autograd."""
    torch.manual_seed(0)
    S, m, d, B, eta = 2, 6, 5, 4, 0.05
    a, W, b = torch.randn(S, m, dtype=torch.float64), torch.randn(S, m, d, dtype=torch.float64), \
        torch.randn(S, m, dtype=torch.float64)
    x, y = torch.randn(S, B, d, dtype=torch.float64), 3 * torch.randn(S, B, dtype=torch.float64)
    losses = {"squared": lambda f: 0.5 * torch.nn.functional.mse_loss(f, y, reduction="none"),
              "l1": lambda f: torch.nn.functional.l1_loss(f, y, reduction="none"),
              "huber": lambda f: torch.nn.functional.huber_loss(f, y, delta=1.0, reduction="none")}
    params = [p.clone().requires_grad_(True) for p in (a, W, b)]
    f = (torch.relu(x @ params[1].transpose(1, 2) + params[2][:, None, :]) @ params[0][:, :, None]).squeeze(-1) / m
    total = losses[loss](f).mean(dim=1).sum()            # each network's batch mean, summed over networks
    grads = torch.autograd.grad(total, params)
    net = Network(a=a.clone(), W=W.clone(), b=b.clone())
    sgd_step(net, loss, x, y, eta)
    for new, old, g in zip((net.a, net.W, net.b), (a, W, b), grads, strict=True):
        torch.testing.assert_close(new, old - eta * m * g)


def test_network_output_hand_case():
    net = Network(a=torch.tensor([[2.0, -1.0]]), W=torch.tensor([[[1.0, 0.0], [0.0, 1.0]]]),
                  b=torch.tensor([[0.0, -1.0]]))
    x = torch.tensor([[[3.0, 4.0], [-1.0, 0.5]]])
    # (2 relu(3) - relu(3)) / 2 = 1.5;  (2 relu(-1) - relu(-0.5)) / 2 = 0
    torch.testing.assert_close(net(x), torch.tensor([[1.5, 0.0]]))


def test_aligned_fraction_hand_case():
    W = np.array([[1.0, 1.0, 0.1, 0.1],      # 2 / 2.02 on S* = {0, 1}: aligned
                  [1.0, 0.0, 1.0, 0.5],      # 1 / 2.25: not aligned
                  [0.0, 0.0, 1.0, 0.0],      # 0: not aligned
                  [0.0, 2.0, 0.0, 1.9]])     # 4 / 7.61: aligned
    assert float(aligned_fraction(W, (0, 1))) == 0.5
    assert float(aligned_fraction(W, (0, 1), threshold=0.9)) == 0.25
    np.testing.assert_allclose(aligned_fraction(np.stack([W, W[::-1] * 0]), (0, 1)), [0.5, 0.0])


def test_init_network():
    net = init_network(64, 512, (3, 4))
    assert net.W.shape == (2, 512, 64) and net.a.shape == (2, 512) and torch.all(net.b == 0)
    assert torch.all(net.a.abs() == 1) and torch.all(net.a.sum(1) == 0)          # equal shares of ±1
    assert abs(net.W.var().item() * 64 - 1) < 0.05                                 # w ~ N(0, I/d)
    assert not torch.equal(net.W[0], net.W[1])
    torch.testing.assert_close(init_network(64, 512, (4,)).W[0], net.W[1])         # a seed is its own network
    biased = init_network(64, 512, (3,), bias_sd=0.5)
    torch.testing.assert_close(biased.W[0], net.W[0])                               # same weights, new biases
    assert abs(biased.b.std().item() - 0.5) < 0.05


def test_train_online_shapes_and_first_passage():
    j = make_junta(16, (0, 1, 2), "boolean")
    run = train_online(j, "l1", 160, seeds=(0, 1), record_every=4)
    assert run.aligned.shape == (2, 41) and run.steps[0] == 0 and run.steps[-1] == 160
    assert run.aligned[:, 0].max() < 0.2
    fp = run.first_passage(0.2)
    assert fp.shape == (2,) and np.all((fp % 4 == 0) | np.isinf(fp))
    assert np.all(run.first_passage(1.01) == math.inf)
    np.testing.assert_array_equal(run.final(), run.aligned[:, -1])


def test_batching_seeds_does_not_change_a_run():
    j = make_junta(12, (0, 1, 2), "gaussian")
    both = train_online(j, "l1", 96, seeds=(0, 1), record_every=8)
    one = train_online(j, "l1", 96, seeds=(1,), record_every=8)
    torch.testing.assert_close(both.net.W[1], one.net.W[0], rtol=1e-4, atol=1e-5)


def test_stop_at_ends_early():
    j = make_junta(16, (0, 1, 2), "boolean")
    run = train_online(j, "l1", 40 * 16, seeds=(0,), stop_at=0.2)
    assert run.steps[-1] < 40 * 16 and run.aligned[0].max() >= 0.2


@pytest.mark.parametrize("kwargs, match", [
    (dict(loss="hinge"), "loss must be one of"),
    (dict(steps=0), "steps must be"),
    (dict(batch=0), "batch must be"),
    (dict(m=7), "m must be even"),
    (dict(eta0=0.0), "eta0"),
    (dict(eta0=float("nan")), "eta0"),
    (dict(record_every=0), "record_every"),
    (dict(seeds=()), "at least one seed"),
    (dict(seeds=(-1,)), "seed must be"),
    (dict(bias_sd=-1.0), "bias_sd"),
    (dict(bias_sd=float("inf")), "bias_sd"),
])
def test_bad_arguments(kwargs, match):
    args = dict(loss="l1", steps=10)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        train_online(make_junta(8), args.pop("loss"), args.pop("steps"), **args)


def test_divergence_is_an_error():
    with pytest.raises(ValueError, match="diverged"):
        train_online(make_junta(8), "squared", 200, eta0=1e6)


def test_aligned_fraction_errors():
    with pytest.raises(ValueError, match="finite"):
        aligned_fraction(np.array([[np.nan, 1.0]]), (0,))
    with pytest.raises(ValueError, match="shape"):
        aligned_fraction(np.ones(3), (0,))
    with pytest.raises(ValueError, match="support"):
        aligned_fraction(np.ones((2, 3)), (3,))
    with pytest.raises(ValueError, match="threshold"):
        aligned_fraction(np.ones((2, 3)), (0,), threshold=1.0)
