"""Why the exact posterior waits: the switch probability p_m and the first optimal play of B-CTS (Theory section).

On the two-set instance B-CTS leaves A_1 for the never-played A* only when the sum of m *prior* draws (A*'s sample)
beats A_1's sample sum (paper Sec. 6; Zhang & Combes 2021). Once A_1's posterior has concentrated that happens
with probability p_m = P(U_1 + … + U_m > μ_bad m) per round, so the wait is about 1/p_m rounds.

- :func:`irwin_hall_sf`: p_m exactly for the uniform prior (the Irwin–Hall tail, rational arithmetic).
- :func:`prior_sum_pmf`: the distribution of a sum of m prior draws on a grid (any Beta prior; SciPy's
  ``beta.cdf`` gives the bin masses, an FFT the m-fold convolution).
- :func:`chernoff_rate`: the Cramér rate I(x) with p_m ≈ e^{−m I(μ_bad)}.
- :func:`switch_probability`: p_m and 1/p_m for both priors.
- :func:`escape_estimate`: the chance that the first optimal play comes after round k, and the share of stuck
  runs it implies, from a mean-field model of A_1's posterior (stated in its docstring).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from .bandit import check_positive_int
from .policies import PRIORS


def _check_prior(prior) -> tuple[float, float]:
    if not isinstance(prior, str) or prior not in PRIORS:
        raise ValueError(f"prior must be one of {tuple(PRIORS)}, got {prior!r}")
    return PRIORS[prior]


def _check_unit(name: str, x) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float, np.integer, np.floating, Fraction)):
        raise TypeError(f"{name} must be a real number, got {type(x).__name__}")
    if not math.isfinite(x):
        raise ValueError(f"{name} must be finite, got {x!r}")
    return float(x)


def irwin_hall_sf(x, m: int) -> float:
    """P(U_1 + … + U_m > x) for i.i.d. U(0, 1), exactly (rational arithmetic on the Irwin–Hall CDF).

    Parameters
    ----------
    x : real number (a Fraction is used exactly).   m : number of terms ≥ 1.

    Raises
    ------
    ValueError if m < 1 or x is not finite; TypeError if x is not a real number.
    """
    m = check_positive_int("m", m)
    if not isinstance(x, Fraction):
        x = Fraction(_check_unit("x", x))
    if x <= 0:
        return 1.0
    if x >= m:
        return 0.0
    y = m - x                                            # P(sum > x) = P(sum < m - x) by symmetry
    total = sum((-1) ** k * math.comb(m, k) * (y - k) ** m for k in range(int(math.floor(y)) + 1))
    return float(total / math.factorial(m))


def prior_sum_pmf(m: int, prior: str, bins: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """The sum of m independent prior draws Beta(α₀, β₀), discretised: (x, w) with P(sum ≈ x_j) = w_j.

    One draw is binned into ``bins`` equal bins of [0, 1] (masses from ``scipy.stats.beta.cdf``, placed at the bin
    centres); the m-fold convolution is an FFT power. The sum's location error is at most m / (2 bins) and its
    sd error √(m/12) / bins, small against the sum's own sd √(m) / √(4(α₀ + β₀ + 1)).

    Returns
    -------
    x : (m (bins − 1) + 1,) float64 grid of [0, m].   w : same shape, float64 masses ≥ 0 summing to 1.

    Raises
    ------
    ValueError for m < 1, an unknown prior or bins < 10.
    """
    from scipy.stats import beta

    m = check_positive_int("m", m)
    a, b = _check_prior(prior)
    bins = check_positive_int("bins", bins, minimum=10)
    edges = np.linspace(0.0, 1.0, bins + 1)
    one = np.diff(beta.cdf(edges, a, b))
    n = m * (bins - 1) + 1
    size = 1 << int(math.ceil(math.log2(n)))
    w = np.fft.irfft(np.fft.rfft(one, size) ** m, size)[:n]
    w = np.clip(w, 0.0, None)
    w /= w.sum()
    x = (np.arange(n) + m / 2) / bins
    return x, w


def chernoff_rate(x, prior: str) -> float:
    """Cramér rate I(x) = sup_{s ≥ 0} [s x − ln E e^{s θ}] of one prior draw θ ~ Beta(α₀, β₀), x in (mean, 1).

    P(θ_1 + … + θ_m ≥ m x) ≤ exp(−m I(x)), and the exponent is exact as m → ∞ (Cramér). The moment generating
    function is Kummer's ₁F₁; it is evaluated as ln E e^{sθ} = s + ln ₁F₁(β₀; α₀ + β₀; −s) (θ = 1 − (1 − θ)),
    which stays finite for the large s that x near 1 needs (s* ≈ β₀ / (1 − x)). SciPy: ``special.hyp1f1``,
    ``optimize.minimize_scalar`` (bounded; the objective is concave in s).

    Raises
    ------
    ValueError for an unknown prior or x outside (prior mean, 1); TypeError if x is not a real number.
    """
    from scipy.optimize import minimize_scalar
    from scipy.special import hyp1f1

    a, b = _check_prior(prior)
    x = _check_unit("x", x)
    if not (a / (a + b) < x < 1):
        raise ValueError(f"x must lie in (prior mean {a / (a + b)}, 1), got {x!r}")
    s_max = 20.0 * max(b, 1.0) / (1.0 - x) + 20.0          # well past the maximiser b / (1 - x)

    def minus_objective(s):
        return -(s * x - (s + math.log(hyp1f1(b, a + b, -s))))

    res = minimize_scalar(minus_objective, bounds=(0.0, s_max), method="bounded",
                          options={"xatol": 1e-10 * s_max})
    return float(-res.fun)


def switch_probability(m: int, mu_bad: float = 0.7, bins: int = 200) -> dict:
    """Per-round chance p_m that B-CTS leaves a well-estimated A_1 (means ``mu_bad``) for the never-played A*.

    A_1's sample sum is then ≈ m · mu_bad and A*'s is a sum of m prior draws, so p_m = P(prior sum > m mu_bad).

    Returns
    -------
    dict: ``uniform_exact`` (Irwin–Hall), ``jeffreys`` (grid, :func:`prior_sum_pmf`), ``uniform_wait`` and
    ``jeffreys_wait`` (1/p_m, rounds), ``uniform_chernoff`` and ``jeffreys_chernoff`` (e^{−m I}), ``rate_uniform``,
    ``rate_jeffreys`` (I(mu_bad)), and ``m``.

    Raises
    ------
    ValueError if m < 1 or mu_bad is outside (1/2, 1).
    """
    m = check_positive_int("m", m)
    mu_bad = _check_unit("mu_bad", mu_bad)
    if not 0.5 < mu_bad < 1:
        raise ValueError(f"mu_bad must lie in (1/2, 1), got {mu_bad!r}")
    exact = irwin_hall_sf(Fraction(mu_bad).limit_denominator(10_000) * m, m)
    x, w = prior_sum_pmf(m, "jeffreys", bins)
    jeffreys = float(w[x > mu_bad * m].sum())
    rates = {p: chernoff_rate(mu_bad, p) for p in PRIORS}
    return {"m": m, "uniform_exact": exact, "uniform_wait": 1 / exact if exact > 0 else math.inf,
            "jeffreys": jeffreys, "jeffreys_wait": 1 / jeffreys if jeffreys > 0 else math.inf,
            "uniform_chernoff": math.exp(-m * rates["uniform"]),
            "jeffreys_chernoff": math.exp(-m * rates["jeffreys"]),
            "rate_uniform": rates["uniform"], "rate_jeffreys": rates["jeffreys"]}


def escape_estimate(m: int, prior: str, T: int, mu_bad: float = 0.7, bins: int = 200) -> dict:
    """Estimate of B-CTS's first optimal play τ on the two-set instance, and of its share of stuck runs.

    Model (the chapter's, an approximation): round 1 plays A_1 with probability ½ (both samples come from the
    prior); after n plays of A_1 its arms' posteriors sit at their expected counts, Beta(α₀ + μ n, β₀ + (1 − μ) n)
    with μ = ``mu_bad``, so A_1's sample sum is ≈ Normal with that mean and variance (m arms); A*'s sample is a
    sum of m prior draws (:func:`prior_sum_pmf`). Each round is an independent try with success probability

        p(n) = P(prior sum > A_1's sample sum after n plays),  p(n) → p_m as n → ∞,

    so P(τ > k) = ½ ∏_{n=1}^{k−1} (1 − p(n)). A run is stuck (regret > half of Δ T) when τ − 1 > T / 2. The model
    ignores the spread of A_1's empirical means (it uses their expectation), which makes early escapes a little
    rarer than in a real run.

    Parameters
    ----------
    m : decision size ≥ 1.   prior : 'uniform' or 'jeffreys'.   T : horizon ≥ 2.
    mu_bad : the means of A_1's arms, in (1/2, 1).   bins : grid resolution of one prior draw.

    Returns
    -------
    dict with ``p_m`` (the limit), ``wait`` (1 / p_m, rounds), ``p_n`` ((T,) p(n) for n = 1..T),
    ``survival`` ((T + 1,) P(τ > k) for k = 0..T), ``stuck_estimate`` (P(τ > T/2 + 1)), ``stuck_asymptotic``
    (½ (1 − p_m)^{T/2}, the same with p(n) replaced by its limit), ``m``, ``prior``, ``T``.

    Raises
    ------
    ValueError for m < 1, T < 2, an unknown prior or mu_bad outside (1/2, 1).
    """
    from scipy.special import ndtr

    m = check_positive_int("m", m)
    a, b = _check_prior(prior)
    T = check_positive_int("T", T, minimum=2)
    mu_bad = _check_unit("mu_bad", mu_bad)
    if not 0.5 < mu_bad < 1:
        raise ValueError(f"mu_bad must lie in (1/2, 1), got {mu_bad!r}")
    x, w = prior_sum_pmf(m, prior, bins)
    keep = w > 1e-300
    x, w = x[keep], w[keep]
    p_m = float(w[x > mu_bad * m].sum())
    # p(n) on a geometric grid of n (it varies slowly once n is large), interpolated in log-log
    grid = np.unique(np.geomspace(1, T, 160).round().astype(np.int64))
    al, be = a + mu_bad * grid, b + (1 - mu_bad) * grid
    mean = m * al / (al + be)
    sd = np.sqrt(m * al * be / ((al + be) ** 2 * (al + be + 1)))
    p_grid = (w[None, :] * ndtr((x[None, :] - mean[:, None]) / sd[:, None])).sum(axis=1)
    n = np.arange(1, T + 1)
    p_n = np.exp(np.interp(np.log(n), np.log(grid), np.log(np.maximum(p_grid, 1e-300))))
    survival = np.concatenate([[1.0], 0.5 * np.exp(np.concatenate([[0.0], np.cumsum(np.log1p(-p_n[:-1]))]))])
    half = T // 2 + 1
    return {"m": m, "prior": prior, "T": T, "p_m": p_m, "wait": 1 / p_m if p_m > 0 else math.inf,
            "p_n": p_n, "survival": survival, "stuck_estimate": float(survival[min(half, T)]),
            "stuck_asymptotic": 0.5 * (1 - p_m) ** (T / 2)}
