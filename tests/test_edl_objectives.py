"""The unified objective, its optimum, the energy identity and the Bootstrap-Distill loss (edl.objectives),
against torch.distributions, SciPy, finite differences and autograd stationarity."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.special import digamma, logsumexp

from neurips24.edl import objectives as O

TD = torch.distributions


def test_target_alpha_by_hand():
    t = O.target_alpha(torch.tensor([0, 2]), 3, lam=0.1, prior=1.0)
    np.testing.assert_allclose(t.numpy(), [[11, 1, 1], [1, 1, 11]])
    t = O.target_alpha(torch.tensor([[0.0, 1.0]]), 2, lam=0.5, prior=2.0)
    np.testing.assert_allclose(t.numpy(), [[2, 4]])


@pytest.mark.parametrize("divergence", ["reverse", "forward"])
def test_unified_loss_is_the_mean_dirichlet_kl(divergence):
    rng = np.random.default_rng(0)
    alpha = torch.tensor(rng.gamma(2.0, size=(7, 4)) + 0.1)
    y = torch.tensor(rng.integers(0, 4, 7))
    target = torch.ones(7, 4, dtype=torch.float64) + torch.nn.functional.one_hot(y, 4) / 0.05
    p, q = (TD.Dirichlet(alpha), TD.Dirichlet(target))
    ref = (TD.kl_divergence(p, q) if divergence == "reverse" else TD.kl_divergence(q, p)).mean()
    assert float(O.unified_loss(alpha, y, 0.05, divergence=divergence)) == pytest.approx(float(ref), rel=1e-10)


def test_ood_term_is_added():
    alpha = torch.tensor([[2.0, 3.0]], dtype=torch.float64)
    ood = torch.tensor([[5.0, 0.5]], dtype=torch.float64)
    base = O.unified_loss(alpha, torch.tensor([1]), 0.1)
    kl = TD.kl_divergence(TD.Dirichlet(ood), TD.Dirichlet(torch.ones(1, 2, dtype=torch.float64))).mean()
    assert float(O.unified_loss(alpha, torch.tensor([1]), 0.1, alpha_ood=ood, gamma_ood=2.0)) == \
        pytest.approx(float(base + 2.0 * kl))


def _expected_loss(alpha, eta, lam, divergence):
    """E_{y ~ η} D(target_y, Dir(α)) for one input, differentiable in α."""
    C = alpha.shape[-1]
    total = 0.0
    for y in range(C):
        loss = O.unified_loss(alpha[None], torch.tensor([y]), lam, divergence=divergence)
        total = total + eta[y] * loss
    return total


@pytest.mark.parametrize("divergence", ["reverse", "forward"])
@pytest.mark.parametrize("lam", [0.1, 0.01])
def test_optimal_alpha_is_a_stationary_minimum(divergence, lam):
    eta = np.array([0.6, 0.3, 0.1])
    a_star = O.optimal_alpha(eta, lam, divergence=divergence)
    a = torch.tensor(a_star, requires_grad=True)
    loss = _expected_loss(a, eta, lam, divergence)
    (g,) = torch.autograd.grad(loss, a)
    assert float(g.abs().max()) < 1e-6 * max(1.0, float(loss.detach()))
    rng = np.random.default_rng(1)
    for _ in range(20):                                        # any nearby α is worse
        b = torch.tensor(a_star * np.exp(0.05 * rng.standard_normal(3)))
        assert float(_expected_loss(b, eta, lam, divergence)) > float(loss.detach())


def test_reverse_optimum_total_evidence_is_C_plus_one_over_lambda():
    eta = np.random.default_rng(2).dirichlet(np.ones(4), size=50)
    for lam in (0.3, 0.01, 1e-4):
        np.testing.assert_allclose(O.optimal_alpha(eta, lam).sum(-1), 4 + 1 / lam)
        np.testing.assert_allclose(O.optimal_alpha(eta, lam, prior=2.0).sum(-1), 8 + 1 / lam)


def test_forward_optimum_matches_the_target_log_moments_and_one_hot_case():
    eta = np.array([0.5, 0.25, 0.25])
    lam, C = 0.1, 3
    a = O.optimal_alpha(eta, lam, divergence="forward")
    # ψ(α_c) − ψ(α₀) must equal Σ_y η_y (ψ(1 + ν[c=y]) − ψ(C + ν)), computed here with scipy.special
    nu = 1 / lam
    target = sum(eta[y] * (digamma(1 + nu * (np.arange(C) == y)) - digamma(C + nu)) for y in range(C))
    np.testing.assert_allclose(digamma(a) - digamma(a.sum()), target, atol=1e-7)
    # a certain label: the optimum is the target itself, α₀ = C + 1/λ as for the reverse KL
    np.testing.assert_allclose(O.optimal_alpha(np.array([0.0, 1.0, 0.0]), lam, divergence="forward"),
                               [1, 11, 1], rtol=1e-5)
    assert a.sum() < C + nu                                   # spread labels: less evidence than a certain one


def test_energy_identity_and_scipy_reference():
    f = np.random.default_rng(3).normal(size=(10, 5)) * 3
    e = O.energy_score(f)
    np.testing.assert_allclose(e, -logsumexp(f, axis=-1))
    alpha = O.evidential_alpha(torch.tensor(f))
    np.testing.assert_allclose(alpha.sum(-1).numpy(), np.exp(-e))       # α₀ = exp(−E(x))


def test_distill_loss_is_the_dirichlet_nll_and_has_correct_gradients():
    rng = np.random.default_rng(4)
    alpha = torch.tensor(rng.gamma(2.0, size=(5, 3)) + 0.5, requires_grad=True)
    p = torch.tensor(rng.dirichlet([2.0, 1.0, 3.0], size=(5, 6)))
    ref = -TD.Dirichlet(alpha[:, None, :]).log_prob(p).mean()
    assert float(O.distill_loss(alpha, p, smoothing=0.0).detach()) == pytest.approx(float(ref.detach()), rel=1e-10)
    assert torch.autograd.gradcheck(lambda a: O.distill_loss(a, p, temperature=2.5, smoothing=1e-3), (alpha,))
    assert torch.autograd.gradcheck(lambda a: O.unified_loss(a, torch.tensor([0, 1, 2, 0, 1]), 0.1), (alpha,))


def test_distill_minimiser_is_the_dirichlet_mle():
    # teachers drawn from Dir(α_true): minimising the NLL over α recovers α_true (up to sampling error)
    alpha_true = np.array([8.0, 3.0, 1.5])
    p = torch.tensor(np.random.default_rng(5).dirichlet(alpha_true, size=(1, 4000)))
    log_a = torch.zeros(1, 3, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.LBFGS([log_a], max_iter=200, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = O.distill_loss(torch.exp(log_a), p, smoothing=0.0)
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(torch.exp(log_a).detach().numpy()[0], alpha_true, rtol=0.1)


@pytest.mark.parametrize("lam", [0, -0.1, float("nan"), float("inf"), True, "0.1", None])
def test_bad_lambda_raises(lam):
    with pytest.raises(ValueError, match="lam"):
        O.target_alpha(torch.tensor([0]), 2, lam)
    with pytest.raises(ValueError, match="lam"):
        O.unified_loss(torch.ones(1, 2), torch.tensor([0]), lam)
    with pytest.raises(ValueError, match="lam"):
        O.optimal_alpha(np.array([0.5, 0.5]), lam)


def test_class_count_mismatch_and_other_bad_inputs():
    alpha = torch.ones(3, 3)
    with pytest.raises(ValueError, match="class count mismatch"):
        O.unified_loss(alpha, torch.tensor([0, 1, 3]), 0.1)
    with pytest.raises(ValueError, match="one-hot targets have 4 classes"):
        O.unified_loss(alpha, torch.eye(4)[:3], 0.1)
    with pytest.raises(ValueError, match="rows"):
        O.unified_loss(alpha, torch.tensor([0, 1]), 0.1)
    with pytest.raises(ValueError, match="> 0"):
        O.unified_loss(torch.tensor([[1.0, 0.0]]), torch.tensor([0]), 0.1)
    with pytest.raises(ValueError, match="divergence"):
        O.unified_loss(alpha, torch.tensor([0, 1, 2]), 0.1, divergence="symmetric")
    with pytest.raises(ValueError, match="prior"):
        O.target_alpha(torch.tensor([0]), 2, 0.1, prior=0.0)
    with pytest.raises(ValueError, match="n_classes"):
        O.target_alpha(torch.tensor([0]), 1, 0.1)
    with pytest.raises(ValueError, match="y must be integer labels"):
        O.unified_loss(alpha, torch.tensor([0.0, 1.0, 2.0]), 0.1)
    with pytest.raises(ValueError, match="gamma_ood"):
        O.unified_loss(alpha, torch.tensor([0, 1, 2]), 0.1, alpha_ood=alpha, gamma_ood=-1.0)
    with pytest.raises(ValueError, match="probability vectors"):
        O.optimal_alpha(np.array([0.5, 0.6]), 0.1)
    with pytest.raises(ValueError, match="probability vectors"):
        O.optimal_alpha(np.array([np.nan, 1.0]), 0.1)


@pytest.mark.parametrize("logits", [np.array([0.0, np.nan]), np.array([np.inf, 1.0]), np.array([1.0])])
def test_bad_logits_raise(logits):
    with pytest.raises(ValueError, match="logits"):
        O.energy_score(logits)
    with pytest.raises(ValueError, match="logits"):
        O.evidential_alpha(torch.tensor(logits))


def test_overflowing_logits_and_integer_logits():
    with pytest.raises(ValueError, match="overflows"):
        O.evidential_alpha(torch.tensor([100.0, 0.0], dtype=torch.float32))
    with pytest.raises(TypeError, match="floating"):
        O.evidential_alpha(torch.tensor([1, 2]))


@pytest.mark.parametrize(("kwargs", "msg"), [
    (dict(teacher_probs=np.full((2, 3, 3), 0.5)), "probability vectors"),
    (dict(teacher_probs=np.ones((2, 3, 4)) / 4), "shape"),
    (dict(teacher_probs=np.ones((3, 3, 3)) / 3), "shape"),
    (dict(temperature=0.5), "temperature"),
    (dict(smoothing=1.0), "smoothing"),
])
def test_distill_bad_inputs(kwargs, msg):
    args = dict(alpha=torch.ones(2, 3), teacher_probs=np.ones((2, 3, 3)) / 3)
    args.update(kwargs)
    with pytest.raises(ValueError, match=msg):
        O.distill_loss(**args)
