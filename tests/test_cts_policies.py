"""B-CTS, BG-CTS, G-CTS, ESCB, CUCB: bonus function, posterior updates on hand cases, bad input (cts.policies)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from neurips24.cts.bandit import top_m_bandit, two_sets
from neurips24.cts.policies import (
    bcts_theta,
    beta_posterior,
    bgcts_theta,
    cucb_index,
    draw_noise,
    escb_coefficients,
    escb_scores,
    f_bonus,
    g_scale,
    gaussian_scale,
    make_policy,
    paper_policies,
    select,
    update,
)

E = math.e


def test_f_at_t_equal_e_to_the_e():
    # ln t = e, ln ln t = 1: f = (1+λ)(e + (m+2) + (m/2) ln(1 + e/λ))
    t = E ** E
    assert f_bonus(t, 2) == pytest.approx(E + 4)
    assert f_bonus(t, 2, lam=1.0) == pytest.approx(2 * (E + 4 + math.log(1 + E)))
    assert f_bonus(t, 4, lam=0.5) == pytest.approx(1.5 * (E + 6 + 2 * math.log(1 + 2 * E)))
    assert g_scale(t, 2) == pytest.approx((E + 4) / E)


def test_bonus_term_is_e_over_lambda_not_e_to_the_lambda():
    t, m, lam = E ** E, 2, 2.0
    assert f_bonus(t, m, lam) == pytest.approx(3 * (E + 4 + math.log(1 + E / 2)))
    assert f_bonus(t, m, lam) != pytest.approx(3 * (E + 4 + math.log(1 + E ** 2)))


@pytest.mark.parametrize("t", [1, 1.5, 2, 2.5])
def test_small_t_conventions(t):
    # t < e is read as t = e: ln t = 1, ln ln t = 0, so f = (1+λ)(1 + (m/2) ln(1+e/λ))
    assert f_bonus(t, 5) == pytest.approx(1.0)
    assert f_bonus(t, 5, lam=1.0) == pytest.approx(2 * (1 + 2.5 * math.log(1 + E)))
    # g: ln t read as 1 for t < 2; the true ln t from t = 2 on (f still clamped below e)
    expected = 1.0 if t < 2 else 1.0 / math.log(t)
    assert g_scale(t, 5) == pytest.approx(expected)


def test_g_tends_to_one_plus_lambda():
    for lam in (0.0, 1.0):
        big = [g_scale(10.0 ** k, 3, lam) for k in (10, 50, 300)]
        assert abs(big[-1] - (1 + lam)) < abs(big[0] - (1 + lam))
        assert big[-1] == pytest.approx((1 + lam) * (1 + (5 * math.log(300 * math.log(10))
                                                          + (1.5 * math.log1p(E / lam) if lam else 0))
                                                         / (300 * math.log(10))))


@pytest.mark.parametrize(("args", "name"), [((0, 3), "t"), ((-2.0, 3), "t"), ((float("nan"), 3), "t"),
                                            ((5, 0), "m"), ((5, 2.5), "m")])
def test_bonus_bad_input(args, name):
    with pytest.raises(ValueError, match=f"^{name} must"):
        f_bonus(*args)
    with pytest.raises(ValueError, match=f"^{name} must"):
        g_scale(*args)


def test_bonus_negative_lambda():
    with pytest.raises(ValueError, match="lam"):
        f_bonus(5, 2, lam=-0.1)


def test_beta_posterior_hand_case():
    N = np.array([[3.0, 0.0, 1.0]])
    S = np.array([[2.0, 0.0, 0.0]])
    a, b = beta_posterior(N, S, "uniform")
    np.testing.assert_array_equal(a, [[3.0, 1.0, 1.0]])
    np.testing.assert_array_equal(b, [[2.0, 1.0, 2.0]])
    a, b = beta_posterior(N, S, "jeffreys")
    np.testing.assert_array_equal(a, [[2.5, 0.5, 0.5]])
    np.testing.assert_array_equal(b, [[1.5, 0.5, 1.5]])
    with pytest.raises(ValueError, match="prior must be one of"):
        beta_posterior(N, S, "haldane")


def test_bcts_samples_are_beta_distributed():
    rng = np.random.default_rng(1)
    N = np.full((4000, 2), 5.0)
    S = np.tile([1.0, 4.0], (4000, 1))
    pol = make_policy("bcts", "jeffreys")
    g1, g2 = draw_noise(pol, N, S, rng)
    theta = bcts_theta(g1, g2)
    for i, (a, b) in enumerate([(1.5, 4.5), (4.5, 1.5)]):
        assert stats.kstest(theta[:, i], stats.beta(a, b).cdf).pvalue > 1e-3


def test_one_round_update_hand_case():
    b = two_sets(2)
    N = np.array([[1.0, 1.0, 0.0, 0.0]])
    S = np.array([[1.0, 0.0, 0.0, 0.0]])
    pol = make_policy("bcts", "uniform")
    # θ = Ga/(Ga+Gb): action 0 gets 0.9 + 0.1, action 1 gets 0.5 + 0.5 -> tie -> action 0; make action 1 win
    g1 = np.array([[0.9, 0.1, 0.6, 0.5]])
    g2 = np.array([[0.1, 0.9, 0.4, 0.5]])
    mask, index = select(pol, b, N, S, 3, (g1, g2))
    assert index.tolist() == [1]
    X = np.array([[0.0, 1.0, 1.0, 0.0]])
    update(N, S, mask, X)
    np.testing.assert_array_equal(N, [[1, 1, 1, 1]])
    np.testing.assert_array_equal(S, [[1, 0, 1, 0]])
    a, bb = beta_posterior(N, S, "uniform")                # α += X, β += 1 − X on the played arms
    np.testing.assert_array_equal(a, [[2, 1, 2, 1]])
    np.testing.assert_array_equal(bb, [[1, 2, 1, 2]])


def test_bgcts_hand_case_and_moments():
    t, m, sigma = E ** E, 2, 0.5
    pol = make_policy("bgcts", sigma=sigma)
    c_t = gaussian_scale(pol, t, m)
    assert c_t == pytest.approx(sigma * math.sqrt(2 * (E + 4) / E))
    N = np.array([[4.0, 0.0]])
    S = np.array([[3.0, 0.0]])
    theta = bgcts_theta(N, S, np.array([[1.0, 0.3]]), c_t)
    assert theta[0, 0] == pytest.approx(0.75 + c_t / 2)
    assert np.isposinf(theta[0, 1])                       # unplayed arm: optimistic
    # moments: N(μ̂, 2 g σ² / N)
    rng = np.random.default_rng(2)
    Nb, Sb = np.full((200_000, 1), 9.0), np.full((200_000, 1), 6.0)
    th = bgcts_theta(Nb, Sb, rng.standard_normal((200_000, 1)), c_t)
    assert th.mean() == pytest.approx(6 / 9, abs=0.005)
    assert th.var() == pytest.approx(2 * g_scale(t, m) * sigma ** 2 / 9, rel=0.02)


def test_escb_hand_case():
    b = two_sets(2)
    pol = make_policy("escb")
    t = E ** E
    coef = escb_coefficients(pol, b, t)
    np.testing.assert_allclose(coef, 0.5 * math.sqrt(2 * (E + 4)))     # |A| = 2 for both actions
    N = np.array([[1.0, 2.0, 4.0, 4.0], [1.0, 2.0, 0.0, 3.0]])
    S = np.array([[1.0, 1.0, 3.0, 2.0], [0.0, 2.0, 0.0, 3.0]])
    sc = escb_scores(N, S, b.actions, coef)
    assert sc[0, 0] == pytest.approx(1.5 + coef[0] * math.sqrt(1.5))
    assert sc[0, 1] == pytest.approx(1.25 + coef[0] * math.sqrt(0.5))
    assert sc[1, 0] == pytest.approx(1.0 + coef[0] * math.sqrt(1.5)) and np.isposinf(sc[1, 1])
    _, index = select(pol, b, N, S, t, (None, None))
    np.testing.assert_array_equal(index, [0, 1])


def test_cucb_hand_case():
    pol = make_policy("cucb")
    t = 100
    c_t = gaussian_scale(pol, t, 3)
    assert c_t == pytest.approx(0.5 * math.sqrt(1.5 * math.log(100)))
    idx = cucb_index(np.array([[4.0, 0.0]]), np.array([[1.0, 0.0]]), c_t)
    assert idx[0, 0] == pytest.approx(0.25 + c_t / 2) and np.isposinf(idx[0, 1])


def test_escb_code_runs_only_in_the_two_set_simulation():
    with pytest.raises(ValueError, match="runs only in cts.two_set_runs"):
        select(make_policy("escb_code"), two_sets(2), np.ones((1, 4)), np.ones((1, 4)), 1, (None, None))


def test_paper_policies_labels():
    assert [p.label for p in paper_policies()] == ["B-CTS-Uniform", "B-CTS-Jeffreys", "BG-CTS", "ESCB", "CUCB"]


@pytest.mark.parametrize(("kwargs", "err", "msg"), [
    (dict(kind="ucb"), ValueError, "policy must be one of"),
    (dict(kind=["bcts"]), ValueError, "policy must be one of"),
    (dict(kind="bcts", prior="gaussian"), ValueError, "prior must be one of"),
    (dict(kind="bgcts", prior="uniform"), ValueError, "prior applies only"),
    (dict(kind="bgcts", lam=-1.0), ValueError, "lam"),
    (dict(kind="bgcts", lam=float("nan")), ValueError, "lam"),
    (dict(kind="bgcts", lam="1"), TypeError, "lam"),
    (dict(kind="bcts", lam=1.0), ValueError, "lam applies only"),
    (dict(kind="gcts", lam=1.0), ValueError, "lam applies only"),
    (dict(kind="escb", sigma=0.0), ValueError, "sigma must be a finite number > 0"),
    (dict(kind="escb", sigma=float("inf")), ValueError, "sigma must be a finite number > 0"),
    (dict(kind="bgcts", sigma="0.5"), TypeError, "sigma must be a real number"),     # was a NumPy ufunc error
    (dict(kind="bgcts", sigma=True), TypeError, "sigma must be a real number"),
])
def test_make_policy_bad_input(kwargs, err, msg):
    with pytest.raises(err, match=msg):
        make_policy(**kwargs)


def test_labels_name_the_variant():
    assert make_policy("gcts").label == "G-CTS"
    assert make_policy("bgcts", lam=1.0).label == "BG-CTS (λ=1)"
    assert make_policy("escb_code").label == "ESCB (as written)"


def test_gcts_samples_the_unboosted_gaussian_posterior():
    # G-CTS (paper Sec. 3.3): θ_i ~ N(μ̂_i, σ² / N_i), at every t (no boost)
    pol = make_policy("gcts", sigma=0.5)
    for t in (1, 10, 1e6):
        assert gaussian_scale(pol, t, 7) == 0.5
    rng = np.random.default_rng(3)
    N, S = np.full((200_000, 1), 16.0), np.full((200_000, 1), 12.0)
    Z, _ = draw_noise(pol, N, S, rng)
    th = bgcts_theta(N, S, Z, gaussian_scale(pol, 5, 7))
    assert th.mean() == pytest.approx(0.75, abs=0.002)
    assert th.var() == pytest.approx(0.25 / 16, rel=0.02)
    # and select() plays the decision with the larger sample: a hand case
    b = two_sets(2)
    _, index = select(pol, b, np.ones((1, 4)), np.array([[1.0, 1.0, 0.0, 0.0]]),
                      3, (np.array([[0.0, 0.0, 0.0, 4.1]]), None))
    assert index.tolist() == [1]                 # A_1: 2; A*: 0 + 0 + 0.5·4.1 = 2.05


def test_bonus_on_arrays_matches_the_scalar_formula():
    t = np.array([1, 2, 3, 10, 1000])
    expected_f = [1.0, 1.0, math.log(3) + 5 * math.log(math.log(3)), math.log(10) + 5 * math.log(math.log(10)),
                  math.log(1000) + 5 * math.log(math.log(1000))]
    np.testing.assert_allclose(f_bonus(t, 3), expected_f, rtol=1e-14)
    np.testing.assert_allclose(g_scale(t, 3), np.array(expected_f) / [1, math.log(2), math.log(3),
                                                                       math.log(10), math.log(1000)], rtol=1e-14)
    with pytest.raises(ValueError, match="^t must"):
        f_bonus(np.array([1, 0]), 3)
    with pytest.raises(ValueError, match="^t must"):
        f_bonus(np.ones((2, 2)), 3)


def test_policy_bandit_mismatch():
    g = two_sets(2, noise="gaussian")
    N = S = np.zeros((1, 4))
    with pytest.raises(ValueError, match="needs Bernoulli rewards"):
        select(make_policy("bcts"), g, N, S, 1, (np.ones((1, 4)), np.ones((1, 4))))
    with pytest.raises(ValueError, match="explicit action matrix"):
        select(make_policy("escb"), top_m_bandit([0.1, 0.2, 0.3], 2), np.zeros((1, 3)), np.zeros((1, 3)), 1,
               (None, None))
