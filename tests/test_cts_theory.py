"""Switch probability, Cramér rate, the prior-sum distribution and the escape estimate (cts.theory)."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, special, stats

from neurips24.cts import theory as th


def test_irwin_hall_hand_values():
    assert th.irwin_hall_sf(0.25, 1) == pytest.approx(0.75)
    assert th.irwin_hall_sf(Fraction(3, 2), 2) == pytest.approx(0.125)
    assert th.irwin_hall_sf(1.5, 3) == pytest.approx(0.5)
    assert th.irwin_hall_sf(-1.0, 3) == 1.0 and th.irwin_hall_sf(3.0, 3) == 0.0
    rng = np.random.default_rng(0)
    sums = rng.random((400_000, 10)).sum(axis=1)
    assert th.irwin_hall_sf(Fraction(7), 10) == pytest.approx((sums > 7).mean(), abs=0.002)


def test_irwin_hall_bad_input():
    with pytest.raises(TypeError, match="x must be a real number"):
        th.irwin_hall_sf("1", 3)
    with pytest.raises(ValueError, match="x must be finite"):
        th.irwin_hall_sf(math.nan, 3)
    with pytest.raises(ValueError, match="m must be"):
        th.irwin_hall_sf(1.0, 0)


def _brute_rate_uniform(x: float) -> float:
    # uniform prior: ln E e^{sU} = ln((e^s - 1)/s) = s + ln((1 - e^{-s})/s); a dense grid up to 50/(1 - x)
    s = np.linspace(1e-6, 50 / (1 - x), 2_000_001)
    return float(np.max(s * x - (s + np.log(-np.expm1(-s) / s))))


def _brute_rate_jeffreys(x: float) -> float:
    # Jeffreys prior, Beta(1/2, 1/2): E e^{sθ} = e^{s/2} I_0(s/2) (a modified Bessel function), so
    # ln E e^{sθ} = s + ln i0e(s/2) with SciPy's scaled i0e; a dense grid of s up to 50/(1 - x)
    s = np.linspace(1e-6, 50 / (1 - x), 2_000_001)
    return float(np.max(s * x - (s + np.log(special.i0e(s / 2)))))


@pytest.mark.parametrize("x", [0.6, 0.7, 0.9, 0.99, 0.999])
def test_chernoff_rate_uniform_against_brute_force(x):
    assert th.chernoff_rate(x, "uniform") == pytest.approx(_brute_rate_uniform(x), rel=1e-6)


def test_chernoff_rate_near_one():
    # the case: 5.91 by brute force (the old optimiser stopped at s = 200 and gave 5.10)
    assert th.chernoff_rate(0.999, "uniform") == pytest.approx(5.9078, abs=1e-3)
    # near 1 the rate of Beta(a, b) grows like b ln(1/(1 - x)): slope b between x = 0.999 and 0.9999
    slope = (th.chernoff_rate(0.9999, "jeffreys") - th.chernoff_rate(0.999, "jeffreys")) / math.log(10)
    assert slope == pytest.approx(0.5, abs=0.01)


@pytest.mark.parametrize("x", [0.6, 0.7, 0.95, 0.999])
def test_chernoff_rate_jeffreys_against_bessel_closed_form(x):
    assert th.chernoff_rate(x, "jeffreys") == pytest.approx(_brute_rate_jeffreys(x), rel=1e-6)


def test_chernoff_bound_and_exponent():
    assert th.chernoff_rate(0.7, "jeffreys") < th.chernoff_rate(0.7, "uniform")     # heavier prior tails
    for m in (5, 20, 60):
        exact = th.irwin_hall_sf(Fraction(7, 10) * m, m)
        assert exact <= math.exp(-m * th.chernoff_rate(0.7, "uniform"))               # Chernoff bound
    # the exponent is exact as m grows: -ln P / m - I is positive and O(ln m / m) (Bahadur-Rao prefactor)
    gap = -math.log(th.irwin_hall_sf(Fraction(7, 10) * 400, 400)) / 400 - th.chernoff_rate(0.7, "uniform")
    assert 0 < gap < math.log(400) / 400


@pytest.mark.parametrize(("args", "err", "msg"), [
    ((0.7, "flat"), ValueError, "prior must be one of"), ((0.3, "uniform"), ValueError, "x must lie"),
    ((1.0, "uniform"), ValueError, "x must lie"), (("0.7", "uniform"), TypeError, "x must be a real number"),
    ((math.inf, "uniform"), ValueError, "x must be finite"),
])
def test_chernoff_bad_input(args, err, msg):
    with pytest.raises(err, match=msg):
        th.chernoff_rate(*args)


@pytest.mark.parametrize("m", [1, 5, 35])
def test_prior_sum_pmf_against_irwin_hall(m):
    x, w = th.prior_sum_pmf(m, "uniform", bins=400)
    assert w.sum() == pytest.approx(1.0) and np.all(w >= 0) and x[0] >= 0 and x[-1] <= m
    for frac in (0.5, 0.6, 0.7):
        assert w[x > frac * m].sum() == pytest.approx(th.irwin_hall_sf(Fraction(frac).limit_denominator(10) * m, m),
                                                      rel=0.03, abs=1e-9)


def test_prior_sum_pmf_jeffreys_moments():
    # a sum of m arcsine draws: mean m/2, variance m/8
    x, w = th.prior_sum_pmf(12, "jeffreys", bins=400)
    mean = (x * w).sum()
    assert mean == pytest.approx(6.0, abs=1e-3)
    assert ((x - mean) ** 2 * w).sum() == pytest.approx(12 / 8, rel=0.01)


def test_switch_probability_grows_exponentially_rare():
    p = [th.switch_probability(m) for m in (5, 15, 25, 35)]
    assert all(a["uniform_exact"] > b["uniform_exact"] for a, b in zip(p[:-1], p[1:], strict=True))
    assert all(a["jeffreys"] > a["uniform_exact"] for a in p)                          # heavier tails
    assert p[3]["uniform_wait"] > 2000 > p[0]["uniform_wait"]
    with pytest.raises(ValueError, match="mu_bad must lie"):
        th.switch_probability(5, mu_bad=0.4)


def test_escape_estimate_structure_and_limits():
    e = th.escape_estimate(25, "uniform", 2000)
    s = e["survival"]
    assert s[0] == 1.0 and s[1] == 0.5 and np.all(np.diff(s) <= 0) and s.size == 2001
    # p(n) tends to the limit p_m (the Irwin–Hall tail) and exceeds it early on (A_1's posterior is still wide)
    exact = th.irwin_hall_sf(Fraction(7, 10) * 25, 25)
    assert e["p_m"] == pytest.approx(exact, rel=0.05)
    assert e["p_n"][-1] == pytest.approx(e["p_m"], rel=0.1) and e["p_n"][0] > 10 * e["p_m"]
    # the asymptotic estimate ignores early escapes: it is the larger one
    assert 0 < e["stuck_estimate"] < e["stuck_asymptotic"] <= 0.5
    assert e["stuck_asymptotic"] == pytest.approx(0.5 * (1 - e["p_m"]) ** 1000)
    # tiny m: escapes at once, nothing stuck
    assert th.escape_estimate(2, "jeffreys", 200)["stuck_estimate"] < 1e-6


def test_escape_estimate_hand_case_m1():
    # m = 1, uniform prior: A*'s sample is U(0, 1); after n plays A_1's sample is N(mean_n, var_n) with the
    # Beta(1 + 0.7 n, 1 + 0.3 n) moments, so p(1) = E[1 - Φ-weighted ...] = P(U > Y) computed by quadrature
    e = th.escape_estimate(1, "uniform", 10, bins=2000)
    a, b = 1.7, 1.3
    mean, sd = a / (a + b), math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    p1, _ = integrate.quad(lambda u: stats.norm.cdf((u - mean) / sd), 0, 1)
    assert e["p_n"][0] == pytest.approx(p1, rel=1e-3)
    assert e["survival"][2] == pytest.approx(0.5 * (1 - p1), rel=1e-3)


@pytest.mark.parametrize(("args", "msg"), [((0, "uniform", 10), "m must be"), ((5, "beta", 10), "prior must be"),
                                           ((5, "uniform", 1), "T must be"), ((5, "uniform", 10, 0.3), "mu_bad")])
def test_escape_estimate_bad_input(args, msg):
    with pytest.raises(ValueError, match=msg):
        th.escape_estimate(*args)
