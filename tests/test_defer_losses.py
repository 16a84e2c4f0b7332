"""Deferral loss, costs and surrogates: hand-worked values, library references, identities, bad input
(defer.losses)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from neurips24.defer import losses as L

SURROGATE_CASES = [("ce", None), ("ova", None), ("rs", None), ("general", None), ("general", 0.7),
                   ("general", 1.0), ("rl2d", None), ("rl2d", 0.7), ("rl2d", 1.0)]


def _random_case(seed=0, N=9, n=4, lead=()):
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(*lead, N, n + 1, generator=g, dtype=torch.float64) * 2
    y = torch.randint(0, n, (N,), generator=g)
    c = torch.rand(*lead, N, generator=g, dtype=torch.float64)
    c[..., 0], c[..., 1] = 0.0, 1.0
    return h, y, c


@pytest.mark.parametrize("w", [0.0, 0.3, 1.0])
def test_hand_worked_values_at_equal_scores(w):
    # h = 0: s = 1/3 for n = 2 classes + defer; t = (1 + w)/3
    h, y, c = torch.zeros(1, 3, dtype=torch.float64), torch.tensor([1]), torch.tensor([1 - w], dtype=torch.float64)
    t = (1 + w) / 3
    assert float(L.ce_surrogate(h, y, c)) == pytest.approx((1 + w) * math.log(3))
    assert float(L.rs_surrogate(h, y, c)) == pytest.approx(-2 * math.log(t))
    assert float(L.rl2d_surrogate(h, y, c, q=None)) == pytest.approx(-math.log(t))
    assert float(L.rl2d_surrogate(h, y, c, q=1.0)) == pytest.approx(1 - t)
    assert float(L.rl2d_surrogate(h, y, c, q=0.7)) == pytest.approx((1 - t ** 0.7) / 0.7)
    psi = (1 - (1 / 3) ** 0.7) / 0.7
    assert float(L.general_surrogate(h, y, c, q=0.7)) == pytest.approx(psi * (1 + w))
    assert float(L.ova_surrogate(h, y, c)) == pytest.approx(3 * math.log(2))     # φ(0) = log 2 on each output


def test_ce_with_zero_credit_is_torch_cross_entropy():
    h, y, _ = _random_case()
    ref = F.cross_entropy(h, y, reduction="none")
    torch.testing.assert_close(L.ce_surrogate(h, y, torch.ones(len(y), dtype=torch.float64)), ref)
    # and the full loss adds −w log s_⊥, torch's cross-entropy on the defer target
    c = torch.full((len(y),), 0.25, dtype=torch.float64)
    full = ref + 0.75 * F.cross_entropy(h, torch.full_like(y, h.shape[-1] - 1), reduction="none")
    torch.testing.assert_close(L.ce_surrogate(h, y, c), full)


def test_ova_is_a_sum_of_torch_binary_cross_entropies():
    h, y, c = _random_case(1)
    n = h.shape[-1] - 1
    target = F.one_hot(y, n + 1).to(h.dtype)
    bce = F.binary_cross_entropy_with_logits
    ref = bce(h[:, :-1], target[:, :-1], reduction="none").sum(-1)
    w = 1 - c
    ref = ref + w * bce(h[:, -1], torch.ones_like(w), reduction="none") \
        + (1 - w) * bce(h[:, -1], torch.zeros_like(w), reduction="none")
    torch.testing.assert_close(L.ova_surrogate(h, y, c), ref)


def test_family_identities():
    h, y, c = _random_case(2, lead=(3,))
    torch.testing.assert_close(L.rs_surrogate(h, y, c), 2 * L.rl2d_surrogate(h, y, c, q=None))
    torch.testing.assert_close(L.general_surrogate(h, y, c, q=None), L.ce_surrogate(h, y, c))
    torch.testing.assert_close(L.general_surrogate(h, y, c, q=1.0), L.rl2d_surrogate(h, y, c, q=1.0) + (1 - c))
    # Ψ_q → −log as q → 0
    torch.testing.assert_close(L.rl2d_surrogate(h, y, c, q=1e-7), L.rl2d_surrogate(h, y, c, q=None),
                               rtol=1e-5, atol=1e-5)


def test_rl2d_matches_the_direct_formula():
    h, y, c = _random_case(3)
    e = torch.exp(h)
    t = (e[torch.arange(len(y)), y] + (1 - c) * e[:, -1]) / e.sum(-1)
    torch.testing.assert_close(L.rl2d_surrogate(h, y, c, q=0.7), (1 - t ** 0.7) / 0.7)
    torch.testing.assert_close(L.rl2d_surrogate(h, y, c, q=None), -torch.log(t))


def test_psi():
    t = torch.tensor([1.0, 0.5, 0.1], dtype=torch.float64)
    torch.testing.assert_close(L.psi(t), -torch.log(t))
    torch.testing.assert_close(L.psi(t, 1.0), 1 - t)
    assert float(L.psi(torch.tensor(1.0), 0.3)) == 0.0
    assert torch.all(torch.diff(L.psi(torch.linspace(0.01, 1, 50), 0.5)) < 0)   # non-increasing


@pytest.mark.parametrize("name,q", SURROGATE_CASES)
def test_gradients_by_finite_differences(name, q):
    h, y, c = _random_case(4, N=5, n=3)
    h.requires_grad_(True)
    assert torch.autograd.gradcheck(lambda z: L.surrogate(name, z, y, c, q=q), (h,), eps=1e-6, atol=1e-6)


@pytest.mark.parametrize("name,q", SURROGATE_CASES)
def test_extreme_scores_stay_finite(name, q):
    h = torch.tensor([[800.0, -800.0, 0.0], [-900.0, -900.0, 900.0], [0.0, 1000.0, -1000.0]],
                     dtype=torch.float64, requires_grad=True)
    y, c = torch.tensor([1, 0, 0]), torch.tensor([0.0, 1.0, 0.5], dtype=torch.float64)
    loss = L.surrogate(name, h, y, c, q=q)
    (grad,) = torch.autograd.grad(loss.sum(), h)
    assert torch.isfinite(loss).all() and torch.isfinite(grad).all()


def test_costs():
    y, g = torch.tensor([0, 1, 2]), torch.tensor([0, 2, 2])
    torch.testing.assert_close(L.expert_error_cost(y, g), torch.tensor([0.0, 1.0, 0.0], dtype=torch.float64))
    torch.testing.assert_close(L.inference_cost(y, g, 0.3), torch.tensor([0.3, 1.0, 0.3], dtype=torch.float64))
    torch.testing.assert_close(L.inference_cost(y, g, 0.0), L.expert_error_cost(y, g))


def test_decide_and_deferral_loss_by_hand():
    h = torch.tensor([[2.0, 1.0, 0.0], [0.0, 1.0, 1.0], [0.0, 0.0, 3.0], [0.5, 0.2, 0.1]])
    d = L.decide(h)
    assert d.tolist() == [0, 2, 2, 0]                       # a tie with the defer output defers
    y = torch.tensor([1, 1, 0, 0])
    c = torch.tensor([0.0, 0.2, 1.0, 0.7])
    # wrong class: 1; defer: c = 0.2; defer: c = 1; right class: 0
    assert L.deferral_loss(d, y, c, 2).tolist() == pytest.approx([1.0, 0.2, 1.0, 0.0])


# ------------------------------------------------------------------------------------------- bad input
def test_bad_inputs_raise_clear_errors():
    h, y, c = _random_case(5, N=4, n=3)
    with pytest.raises(ValueError, match="y must lie in"):
        L.rl2d_surrogate(h, torch.tensor([0, 1, 3, 0]), c)             # label n = 3 is "defer", not a class
    with pytest.raises(ValueError, match="y must lie in"):
        L.ce_surrogate(h, torch.tensor([0, -1, 2, 0]), c)
    with pytest.raises(ValueError, match="y must have shape"):
        L.ce_surrogate(h, torch.tensor([0, 1, 2]), c)
    with pytest.raises(TypeError, match="y must hold integers"):
        L.ce_surrogate(h, y.double(), c)
    for q in (0, 0.0, -0.5, 1.5, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="q must lie in"):
            L.rl2d_surrogate(h, y, c, q=q)
    with pytest.raises(TypeError, match="q must be"):
        L.rl2d_surrogate(h, y, c, q="1")
    with pytest.raises(ValueError, match="cost must lie in"):
        L.rl2d_surrogate(h, y, c + 0.5)
    with pytest.raises(ValueError, match="cost must lie in"):
        L.ova_surrogate(h, y, -c - 0.1)
    with pytest.raises(ValueError, match="cost must have shape"):
        L.rs_surrogate(h, y, c[:3])
    with pytest.raises(ValueError, match="finite"):
        L.rl2d_surrogate(h, y, torch.full((4,), float("nan")))
    bad = h.clone()
    bad[0, 0] = float("inf")
    with pytest.raises(ValueError, match="logits must be finite"):
        L.ce_surrogate(bad, y, c)
    with pytest.raises(ValueError, match="n >= 2 classes"):
        L.ce_surrogate(h[:, :2], torch.zeros(4, dtype=torch.long), c)
    with pytest.raises(TypeError, match="logits must hold real"):
        L.ce_surrogate(h > 0, y, c)
    with pytest.raises(ValueError, match="surrogate must be one of"):
        L.surrogate("hinge", h, y, c)


def test_bad_expert_predictions_and_costs():
    y = torch.tensor([0, 1, 2])
    with pytest.raises(ValueError, match="same|shape"):
        L.expert_error_cost(y, torch.tensor([0, 1]))                     # expert predictions of the wrong shape
    with pytest.raises(ValueError, match=">= 0"):
        L.expert_error_cost(y, torch.tensor([0, -1, 2]))
    with pytest.raises(TypeError, match="integers"):
        L.expert_error_cost(y, np.array([0.0, 1.0, 2.0]))
    for beta in (-0.1, 1.1, float("nan"), True):
        with pytest.raises(ValueError, match="beta"):
            L.inference_cost(y, y, beta)
    with pytest.raises(ValueError, match="decision must lie in"):
        L.deferral_loss(torch.tensor([0, 3, 1]), y, torch.zeros(3), 2)
    with pytest.raises(ValueError, match="n_classes"):
        L.deferral_loss(torch.tensor([0, 1, 1]), y, torch.zeros(3), 1)


@pytest.mark.parametrize("z", [-745.0, -40.0, -24.0, -20.5, -1.0, 0.0, 1e-3, 1.0, 20.5, 24.0, 32.0, 40.0, 700.0, 1e4])
def test_softplus_and_its_derivative_are_exact_beyond_torchs_threshold(z):
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    x = torch.tensor(z, dtype=torch.float64, requires_grad=True)
    value = L.softplus(x)
    (slope,) = torch.autograd.grad(value, x)
    exact = mpmath.log1p(mpmath.exp(mpmath.mpf(z)))
    exact_slope = 1 / (1 + mpmath.exp(-mpmath.mpf(z)))
    assert float(value) == pytest.approx(float(exact), rel=4e-16, abs=1e-300)
    assert float(slope) == pytest.approx(float(exact_slope), rel=4e-16, abs=1e-300)
    if 20.0 < z < 36.0:          # torch's softplus is z itself there: off by e^{-z}, slope exactly 1
        y = torch.tensor(z, dtype=torch.float64, requires_grad=True)
        (torch_slope,) = torch.autograd.grad(F.softplus(y), y)
        assert float(torch_slope) == 1.0 != float(slope)


def test_ova_autograd_gradient_is_exact_in_the_far_tails():
    # one point with scores far beyond ±20: dL/dh_k = σ(h_k) − [k = y] − w [k = ⊥], exactly (mpmath)
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    h = torch.linspace(-40, 40, 11, dtype=torch.float64).unsqueeze(0).requires_grad_(True)
    y, c = torch.tensor([2]), torch.tensor([0.25], dtype=torch.float64)
    (grad,) = torch.autograd.grad(L.ova_surrogate(h, y, c).sum(), h)
    for k, hk in enumerate(h.detach()[0].tolist()):
        exact = 1 / (1 + mpmath.exp(-mpmath.mpf(hk))) - (k == 2) - 0.75 * (k == 10)
        assert float(grad[0, k]) == pytest.approx(float(exact), rel=1e-15, abs=1e-300), k
