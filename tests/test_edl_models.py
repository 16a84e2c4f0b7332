"""Batched MLPs and the three trainers (edl.models): members are independent networks, and on problems with a
closed-form optimum the trainers reach it (the unified objective's α* = 1 + η/λ, softmax frequencies, the
Dirichlet MLE computed with SciPy)."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.optimize import minimize
from scipy.special import digamma, gammaln

from neurips24.edl import models as Mo
from neurips24.edl.objectives import optimal_alpha


def test_each_member_is_the_mlp_its_weights_describe():
    model = Mo.BatchedMLP((3, 8, 5, 2), init_group=[0, 1, 2], seed=4)
    x = torch.randn(6, 3)
    out = model(x)
    assert out.shape == (3, 6, 2)
    for b in range(3):
        layers = []
        for i, (W, bias) in enumerate(zip(model.weights, model.biases, strict=True)):
            lin = torch.nn.Linear(W.shape[1], W.shape[2])
            lin.weight.data = W[b].detach().T.clone()
            lin.bias.data = bias[b, 0].detach().clone()
            layers += [lin] + ([torch.nn.ReLU()] if i < len(model.weights) - 1 else [])
        torch.testing.assert_close(out[b], torch.nn.Sequential(*layers)(x))
    np.testing.assert_allclose(model.logits(x.numpy()), out.detach().double().numpy(), rtol=1e-6)


def test_init_groups_share_weights_and_bounds_follow_nn_linear():
    model = Mo.BatchedMLP((4, 16, 3), init_group=[7, 7, 8], seed=0)
    W = model.weights[0].detach()
    torch.testing.assert_close(W[0], W[1])
    assert not torch.allclose(W[0], W[2])
    assert float(W.abs().max()) <= 1 / np.sqrt(4)


def test_member_gradients_are_independent():
    model = Mo.BatchedMLP((2, 6, 3), init_group=[0, 1], seed=1)
    x = torch.randn(2, 5, 2)
    (model(x)[1] ** 2).sum().backward()                     # a loss on member 1 only
    for p in model.parameters():
        assert float(p.grad[0].abs().max()) == 0.0 and float(p.grad[1].abs().max()) > 0


def _constant_input_data(eta, n, B=1, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(len(eta), size=n, p=eta)
    return Mo.MemberData.stack([(np.zeros((n, 2)), y, None)] * B), y


def test_evidential_training_reaches_the_optimum_of_the_unified_objective():
    # one input, labels with frequencies η̂: the optimum is α* = 1 + η̂/λ (reverse KL), α₀* = C + 1/λ
    data, y = _constant_input_data([0.5, 0.3, 0.2], 2000)
    eta_hat = np.bincount(y, minlength=3) / len(y)
    for lam in (0.1, 0.02):
        model, _ = Mo.train_evidential(data, lam, hidden=(16,), n_classes=3, steps=600, batch_size=256, lr=1e-2)
        alpha = np.exp(model.logits(np.zeros((1, 2))))[0, 0]
        np.testing.assert_allclose(alpha, optimal_alpha(eta_hat, lam), rtol=0.05)


def test_forward_kl_training_reaches_its_optimum():
    data, y = _constant_input_data([0.6, 0.4], 2000)
    eta_hat = np.bincount(y, minlength=2) / len(y)
    model, _ = Mo.train_evidential(data, 0.1, hidden=(16,), n_classes=2, divergence="forward", steps=600,
                                   batch_size=256, lr=1e-2)
    alpha = np.exp(model.logits(np.zeros((1, 2))))[0, 0]
    np.testing.assert_allclose(alpha, optimal_alpha(eta_hat, 0.1, divergence="forward"), rtol=0.05)


def test_softmax_training_learns_the_label_frequencies():
    data, y = _constant_input_data([0.7, 0.2, 0.1], 3000, B=2)
    model, curve = Mo.train_softmax(data, hidden=(8,), n_classes=3, steps=400, batch_size=256, lr=1e-2,
                                    init_group=[0, 1])
    p = torch.softmax(torch.tensor(model.logits(np.zeros((1, 2)))), -1).numpy()[:, 0]
    np.testing.assert_allclose(p, np.tile(np.bincount(y) / len(y), (2, 1)), atol=0.03)
    assert curve[-1].shape == (2,)


def test_distill_training_finds_the_dirichlet_mle_of_its_teachers():
    alpha_true = np.array([6.0, 2.0, 1.0])
    t = np.random.default_rng(3).dirichlet(alpha_true, size=(500, 10))           # (n, M, C) teachers
    data = Mo.MemberData.stack([(np.zeros((500, 2)), None, t)])
    model, _ = Mo.train_distill(data, hidden=(16,), steps=800, batch_size=256, lr=1e-2, t0=1.0, smoothing=0.0)
    alpha = np.exp(model.logits(np.zeros((1, 2))))[0, 0]
    mean_log = np.log(t).reshape(-1, 3).mean(0)

    def nll(log_a):                                              # SciPy reference: the Dirichlet MLE
        a = np.exp(log_a)
        return gammaln(a).sum() - gammaln(a.sum()) - (a - 1) @ mean_log, a * (digamma(a) - digamma(a.sum())
                                                                               - mean_log)

    mle = np.exp(minimize(nll, np.zeros(3), jac=True).x)
    np.testing.assert_allclose(alpha, mle, rtol=0.05)


def test_temperature_schedule():
    assert Mo.temperature_schedule(0, 100) == 5.0
    assert Mo.temperature_schedule(15, 100) == 5.0
    assert Mo.temperature_schedule(22.5, 100) == pytest.approx(3.0)
    assert Mo.temperature_schedule(30, 100) == 1.0 and Mo.temperature_schedule(99, 100) == 1.0


def test_bad_inputs():
    with pytest.raises(ValueError, match="at least"):
        Mo.BatchedMLP((3,), [0])
    with pytest.raises(ValueError, match="layer size"):
        Mo.BatchedMLP((3, 0, 2), [0])
    with pytest.raises(ValueError, match="init_group"):
        Mo.BatchedMLP((3, 2), [])
    with pytest.raises(ValueError, match="one width"):
        Mo.MemberData.stack([(np.zeros((2, 3)), None, None), (np.zeros((2, 4)), None, None)])
    with pytest.raises(ValueError, match="at least one"):
        Mo.MemberData.stack([])
    data, _ = _constant_input_data([0.5, 0.5], 10)
    with pytest.raises(ValueError, match="lam"):
        Mo.train_evidential(data, 0.0, n_classes=2, steps=1)
    with pytest.raises(ValueError, match="labels"):
        Mo.train_softmax(Mo.MemberData.stack([(np.zeros((3, 2)), np.array([0, 1, 5]), None)]), n_classes=3,
                         steps=1)
    with pytest.raises(ValueError, match="labels"):
        Mo.train_evidential(Mo.MemberData.stack([(np.zeros((2, 2)), np.array([0, 2]), None)]), 0.1,
                            n_classes=2, steps=1)
    with pytest.raises(ValueError, match="steps"):
        Mo.train_evidential(data, 0.1, n_classes=2, steps=0)
    with pytest.raises(ValueError, match="lr"):
        Mo.train_evidential(data, 0.1, n_classes=2, steps=1, lr=-1.0)
    with pytest.raises(ValueError, match="teacher"):
        Mo.train_distill(data, steps=1)
