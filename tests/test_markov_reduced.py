"""The reduced (e, w, b) model: gradient, b*, energy, minima and basins, against independent values."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq, minimize_scalar

from neurips24.markov import chain, reduced
from neurips24.markov.flow import gradient_flow_reference

PQ = [(0.9, 0.9), (0.2, 0.3), (0.5, 0.8), (0.7, 0.1)]


def _h(x):
    return -x * np.log(x) - (1 - x) * np.log(1 - x)


@pytest.mark.parametrize(("p", "q"), PQ)
def test_gradient_matches_finite_differences(p, q):
    rng = np.random.default_rng(0)
    e, w, b = rng.uniform(-1.5, 1.5, 20), rng.uniform(-1.5, 1.5, 20), rng.uniform(-2, 2, 20)
    ge, gw, gb = reduced.gradient(e, w, b, p, q)
    h = 1e-6
    for g, shift in ((ge, (h, 0, 0)), (gw, (0, h, 0)), (gb, (0, 0, h))):
        plus = reduced.loss(e + shift[0], w + shift[1], b + shift[2], p, q)
        minus = reduced.loss(e - shift[0], w - shift[1], b - shift[2], p, q)
        np.testing.assert_allclose(g, (plus - minus) / (2 * h), rtol=1e-6, atol=1e-9)


def test_loss_matches_direct_cross_entropy():
    # L as an expectation over (x, y) written out by hand from the chain
    p, q, e, w, b = 0.3, 0.6, 0.8, -0.4, 0.2
    pi0, pi1 = q / (p + q), p / (p + q)
    sig = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    f = {x: e**2 * (1 + 2 * w * abs(w)) * x + b - e**2 / 2 for x in (0, 1)}
    prob_one = {0: p, 1: 1 - q}
    expected = -sum(pi * (prob_one[x] * np.log(sig(f[x])) + (1 - prob_one[x]) * np.log(1 - sig(f[x])))
                    for x, pi in ((0, pi0), (1, pi1)))
    assert reduced.loss(e, w, b, p, q) == pytest.approx(expected, rel=1e-13)


@pytest.mark.parametrize(("p", "q"), PQ)
def test_optimal_bias_is_the_root_of_dL_db(p, q):
    for e, w in [(0.0, 0.3), (0.7, -0.2), (1.5, 1.1), (1.9, -1.8), (1.2, 0.0)]:
        root = brentq(lambda b, e=e, w=w: reduced.gradient(e, w, b, p, q)[2], -50, 50, xtol=1e-14)
        assert reduced.optimal_bias(e, w, p, q) == pytest.approx(root, abs=1e-9)
        best = minimize_scalar(lambda b, e=e, w=w: reduced.loss(e, w, b, p, q), bracket=(-5, 5), tol=1e-12).x
        assert reduced.optimal_bias(e, w, p, q) == pytest.approx(best, abs=1e-5)


def test_optimal_bias_is_finite_where_the_naive_form_overflows():
    p, q = 0.9, 0.2
    e, w = 6.0, 3.0                                       # a = (1 + 18)·36 = 684: e^a overflows
    b = reduced.optimal_bias(e, w, p, q)
    assert np.isfinite(b)
    assert abs(reduced.gradient(e, w, b, p, q)[2]) < 1e-12
    b_neg = reduced.optimal_bias(6.0, -3.0, 0.2, 0.9)      # a = −612 and p < q: cancellation case
    assert np.isfinite(b_neg) and abs(reduced.gradient(6.0, -3.0, b_neg, 0.2, 0.9)[2]) < 1e-12


@pytest.mark.parametrize(("p", "q"), PQ)
def test_losses_at_the_two_minima_match_closed_forms(p, q):
    pi0, pi1 = q / (p + q), p / (p + q)
    bigram, unigram = pi0 * _h(p) + pi1 * _h(q), _h(pi1)
    assert chain.bigram_loss(p, q) == pytest.approx(bigram, rel=1e-14)
    assert chain.unigram_loss(p, q) == pytest.approx(unigram, rel=1e-14)
    # local minimum: e = 0, b = logit π₁
    assert reduced.loss(0.0, 0.3, np.log(p / q), p, q) == pytest.approx(unigram, rel=1e-13)
    assert reduced.reduced_loss(0.0, -1.3, p, q) == pytest.approx(unigram, rel=1e-13)
    # global minimum: any (e, w) on the locus, with b at b*
    w = -1.2 if p + q > 1 else 0.4
    e = reduced.global_minimum_e(w, p, q)
    assert reduced.reduced_loss(e, w, p, q) == pytest.approx(bigram, rel=1e-12)
    np.testing.assert_allclose(reduced.gradient(e, w, reduced.optimal_bias(e, w, p, q), p, q), 0, atol=1e-12)


def test_reference_values_from_the_brief():
    assert chain.bigram_loss(0.9, 0.9) == pytest.approx(0.3251, abs=1e-4)
    assert chain.unigram_loss(0.9, 0.9) == pytest.approx(np.log(2), abs=1e-12)
    assert chain.bigram_loss(0.2, 0.3) == pytest.approx(0.5446, abs=1e-4)


def test_energy_derivative_is_2e2_dLdb():
    rng = np.random.default_rng(1)
    e, w, b = rng.uniform(-1.5, 1.5, 10), rng.uniform(0.1, 1.5, 10) * rng.choice([-1, 1], 10), rng.normal(size=10)
    p, q = 0.6, 0.7
    ge, gw, gb = reduced.gradient(e, w, b, p, q)
    h = 1e-7   # dE/dt along ė = −∂L/∂e, ẇ = −∂L/∂w, by a finite difference of E
    dE = (reduced.energy(e - h * ge, w - h * gw) - reduced.energy(e + h * ge, w + h * gw)) / (2 * h)
    np.testing.assert_allclose(dE, 2 * e**2 * gb, rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize(("p", "q"), [(0.9, 0.9), (0.2, 0.3)])
def test_energy_is_conserved_along_the_flow_with_b_at_b_star(p, q):
    e0, w0 = np.array([1.5, 0.8, 1.2, 0.5]), np.array([-0.3, 0.9, -1.6, -1.0])
    E0 = reduced.energy(e0, w0)
    E_end = []
    for lr in (0.02, 0.01):
        out = gradient_flow_reference(e0, w0, p, q, lr=lr, steps=int(20 / lr))     # same time t = 20
        E_end.append(reduced.energy(out["e"], out["w"]))
        assert np.all(np.abs(out["w"] - w0) + np.abs(out["e"] - e0) > 0.1)           # it did move
    drift = np.abs(E_end[1] - E0)
    assert drift.max() < 0.02
    # the drift is the O(lr) error of the Euler scheme: Richardson extrapolation to lr → 0 removes it
    np.testing.assert_allclose(2 * E_end[1] - E_end[0], E0, atol=2e-4)
    free = gradient_flow_reference(e0, w0, p, q, lr=0.01, steps=2000, bias="free", b0=np.zeros(4) + 3.0)
    assert np.abs(reduced.energy(free["e"], free["w"]) - E0).max() > 10 * drift.max()   # b off b*: E drifts


def test_minima_locus_and_saddle():
    assert reduced.global_minimum_a(0.9, 0.9) < 0 < reduced.global_minimum_a(0.2, 0.3)
    assert np.isnan(reduced.global_minimum_e(0.0, 0.9, 0.9))                      # p + q > 1: needs w < −1/√2
    assert np.isfinite(reduced.global_minimum_e(-1.0, 0.9, 0.9))
    assert reduced.energy(0.0, reduced.W_SADDLE) == pytest.approx(reduced.SEPARATRIX_ENERGY, abs=1e-14)
    assert reduced.separatrix_e(reduced.W_SADDLE) == pytest.approx(0.0, abs=1e-7)
    w = np.array([-1.5, -0.3])
    np.testing.assert_allclose(reduced.energy(reduced.separatrix_e(w), w), reduced.SEPARATRIX_ENERGY, atol=1e-12)
    # on e = 0 the Hessian in e changes sign at the saddle: local minima on one side, maxima on the other
    def curv(w, p, q, h=1e-4):
        return (reduced.reduced_loss(h, w, p, q) - reduced.reduced_loss(0.0, w, p, q)) / h**2
    assert curv(-0.5, 0.9, 0.9) > 0 > curv(-1.0, 0.9, 0.9)
    assert curv(-1.0, 0.2, 0.3) > 0 > curv(-0.5, 0.2, 0.3)


def test_predict_basin_on_hand_picked_points():
    # p + q > 1: global basin I* = {w < 0, E > E_sep} ∪ {w < −1/√2}
    pts = {(0.1, 0.1): False, (1.0, 0.5): False, (2.0, -1.0): True, (0.1, -1.2): True,
           (1.5, -0.3): True, (0.2, -0.3): False, (1.0, 1e-3): False}
    for (e, w), want in pts.items():
        assert bool(reduced.predict_basin(e, w, 0.9, 0.9)) is want, (e, w)
    # p + q < 1: local basin I_min = {w < −1/√2, E < E_sep}
    pts = {(0.1, 0.1): True, (0.3, -1.5): False, (1.8, -1.5): True, (0.5, -0.5): True, (0.1, -0.9): False}
    for (e, w), want in pts.items():
        assert bool(reduced.predict_basin(e, w, 0.2, 0.3)) is want, (e, w)
    # w = 0 is invariant: local for p + q > 1, global for p + q < 1
    assert not reduced.predict_basin(1.0, 0.0, 0.9, 0.9) and reduced.predict_basin(1.0, 0.0, 0.2, 0.3)


@pytest.mark.parametrize(("p", "q", "e", "w"), [(0.9, 0.9, 1.5, -0.3), (0.9, 0.9, 0.4, -0.3),
                                                 (0.2, 0.3, 1.8, -1.5), (0.2, 0.3, 0.3, -1.5)])
def test_predict_basin_agrees_with_the_flow_on_both_sides(p, q, e, w):
    out = gradient_flow_reference(e, w, p, q, lr=0.02, steps=4000)
    reached = out["loss"] < 0.5 * (chain.bigram_loss(p, q) + chain.unigram_loss(p, q))
    assert bool(reached) is bool(reduced.predict_basin(e, w, p, q))
    target = chain.bigram_loss(p, q) if reached else chain.unigram_loss(p, q)
    assert out["loss"] == pytest.approx(target, abs=1e-3)


@pytest.mark.parametrize("fn", [lambda p, q: reduced.loss(0.1, 0.1, 0.0, p, q),
                                lambda p, q: reduced.gradient(0.1, 0.1, 0.0, p, q),
                                lambda p, q: reduced.optimal_bias(0.1, 0.1, p, q),
                                lambda p, q: reduced.predict_basin(0.1, 0.1, p, q),
                                lambda p, q: chain.stationary(p, q)])
@pytest.mark.parametrize(("p", "q", "bad"), [(0.0, 0.5, "p"), (1.0, 0.5, "p"), (0.5, 1.2, "q"), (0.5, -0.1, "q")])
def test_bad_p_q_raise(fn, p, q, bad):
    with pytest.raises(ValueError, match=f"^{bad} must lie"):
        fn(p, q)


@pytest.mark.parametrize(("e", "w", "bad"), [(np.nan, 0.3, "e"), (0.5, np.nan, "w"),
                                             (np.array([0.1, np.inf]), 0.2, "e"), (0.2, -np.inf, "w")])
def test_predict_basin_refuses_non_finite_points(e, w, bad):
    # a NaN has no basin: it must not come back as "local" (False)
    with pytest.raises(ValueError, match=f"^{bad} must be finite"):
        reduced.predict_basin(e, w, 0.9, 0.9)


def test_non_number_p_raises_type_error():
    with pytest.raises(TypeError, match="p must be"):
        chain.check_pq("0.5", 0.5)
