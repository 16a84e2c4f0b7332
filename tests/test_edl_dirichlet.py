"""The Dirichlet uncertainty decomposition and KL divergence (edl.dirichlet), against independent references:
Monte Carlo with scipy.stats.dirichlet, torch.distributions' Dirichlet KL, closed forms and hand-worked cases."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy import stats
from scipy.special import entr

from neurips24.edl import dirichlet as D

ALPHAS = [np.array([1.0, 1.0, 1.0]), np.array([11.0, 1.0, 1.0]), np.array([0.4, 2.5, 7.0, 1.2]),
          np.array([60.0, 30.0, 13.0])]


@pytest.mark.parametrize("alpha", ALPHAS, ids=lambda a: str(a.tolist()))
def test_decomposition_matches_monte_carlo(alpha):
    rng = np.random.default_rng(0)
    pi = stats.dirichlet(alpha).rvs(size=200_000, random_state=rng)
    h = entr(pi).sum(-1)                                       # H(π) for each draw
    u = D.uncertainties(alpha[None])
    se = h.std() / np.sqrt(h.size)
    assert abs(u["aleatoric"][0] - h.mean()) < 5 * se + 1e-6
    p_bar = alpha / alpha.sum()
    assert u["total"][0] == pytest.approx(stats.entropy(p_bar))
    assert u["epistemic"][0] == pytest.approx(stats.entropy(p_bar) - u["aleatoric"][0])
    assert u["alpha0"][0] == pytest.approx(alpha.sum())


def test_epistemic_is_nonnegative_and_decays_like_the_large_alpha0_expansion():
    # MI ≈ (C - 1) / (2 (α₀ + 1)) for a concentrated Dirichlet (second-order expansion of E H(π))
    p = np.array([0.5, 0.3, 0.2])
    for a0 in (1e3, 1e4, 1e5):
        mi = D.epistemic_uncertainty(p * a0)
        assert mi == pytest.approx(2 / (2 * (a0 + 1)), rel=5e3 / a0 + 1e-3)
    a = np.random.default_rng(1).gamma(0.7, size=(500, 5)) + 1e-3
    assert np.all(D.epistemic_uncertainty(a) >= -1e-12)


def test_uniform_dirichlet_by_hand():
    # Dir(1, 1): π₁ ~ U(0, 1); E H = E[-π ln π - (1-π) ln(1-π)] = 2 · 1/4 = 1/2 nat; total ln 2
    u = D.uncertainties(np.array([[1.0, 1.0]]))
    assert u["aleatoric"][0] == pytest.approx(0.5)
    assert u["total"][0] == pytest.approx(np.log(2))
    assert u["epistemic"][0] == pytest.approx(np.log(2) - 0.5)


def test_kl_matches_torch_distributions_and_monte_carlo():
    rng = np.random.default_rng(2)
    a = rng.gamma(2.0, size=(6, 4)) + 0.2
    b = rng.gamma(2.0, size=(6, 4)) + 0.2
    ref = torch.distributions.kl_divergence(torch.distributions.Dirichlet(torch.tensor(a)),
                                            torch.distributions.Dirichlet(torch.tensor(b))).numpy()
    np.testing.assert_allclose(D.kl_dirichlet(a, b), ref, rtol=1e-10)
    pi = stats.dirichlet(a[0]).rvs(size=100_000, random_state=rng)
    mc = stats.dirichlet(a[0]).logpdf(pi.T) - stats.dirichlet(b[0]).logpdf(pi.T)
    assert abs(D.kl_dirichlet(a[0], b[0]) - mc.mean()) < 5 * mc.std() / np.sqrt(mc.size)
    np.testing.assert_allclose(D.kl_dirichlet(a, a), 0.0, atol=1e-12)


def test_numpy_in_numpy_out_tensor_in_tensor_out_and_differentiable():
    a = np.array([[2.0, 3.0, 4.0]])
    assert isinstance(D.epistemic_uncertainty(a), np.ndarray)
    t = torch.tensor(a, requires_grad=True)
    mi = D.epistemic_uncertainty(t)
    assert isinstance(mi, torch.Tensor)
    mi.sum().backward()
    assert torch.isfinite(t.grad).all()
    assert torch.autograd.gradcheck(lambda x: D.aleatoric_uncertainty(x), (t,))


def test_ensemble_decomposition_by_hand():
    # two members, each certain, of different classes: total ln 2, aleatoric 0, epistemic ln 2
    probs = np.array([[[1.0, 0.0]], [[0.0, 1.0]]])
    u = D.ensemble_uncertainties(probs)
    assert u["total"][0] == pytest.approx(np.log(2))
    assert u["aleatoric"][0] == pytest.approx(0.0)
    assert u["epistemic"][0] == pytest.approx(np.log(2))
    same = D.ensemble_uncertainties(np.array([[[0.3, 0.7]], [[0.3, 0.7]]]))
    assert same["epistemic"][0] == pytest.approx(0.0, abs=1e-12)


def test_ensemble_of_dirichlet_draws_approaches_the_dirichlet_decomposition():
    alpha = np.array([4.0, 2.0, 1.0])
    pi = stats.dirichlet(alpha).rvs(size=100_000, random_state=np.random.default_rng(3))
    u = D.ensemble_uncertainties(pi[:, None, :])
    v = D.uncertainties(alpha[None])
    assert u["epistemic"][0] == pytest.approx(v["epistemic"][0], rel=0.02)


@pytest.mark.parametrize(("alpha", "err", "msg"), [
    (np.array([1.0, 0.0, 2.0]), ValueError, "> 0"),
    (np.array([1.0, -1.0]), ValueError, "> 0"),
    (np.array([1.0, np.nan]), ValueError, "finite"),
    (np.array([1.0, np.inf]), ValueError, "finite"),
    (np.array([3.0]), ValueError, "C >= 2"),
    (np.array(2.0), ValueError, "C >= 2"),
    (torch.tensor([1, 2, 3]), TypeError, "floating"),
    (np.array(["a", "b"]), TypeError, "real"),
    (np.array([1 + 1j, 2]), TypeError, "real"),
])
def test_bad_alpha_raises(alpha, err, msg):
    for fn in (D.total_evidence, D.total_uncertainty, D.aleatoric_uncertainty, D.epistemic_uncertainty,
               D.uncertainties):
        with pytest.raises(err, match=msg):
            fn(alpha)


def test_kl_bad_inputs():
    with pytest.raises(ValueError, match="same number of classes"):
        D.kl_dirichlet(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="beta must be > 0"):
        D.kl_dirichlet(np.ones(3), np.array([1.0, 0.0, 1.0]))


@pytest.mark.parametrize(("probs", "msg"), [
    (np.ones((1, 2, 3)) / 3, "M >= 2"),
    (np.ones((2, 4, 1)), "C >= 2"),
    (np.full((2, 4, 3), 0.5), "probability"),
    (np.array([[[np.nan, 1.0]], [[0.5, 0.5]]]), "probability"),
])
def test_ensemble_bad_inputs(probs, msg):
    with pytest.raises(ValueError, match=msg):
        D.ensemble_uncertainties(probs)
