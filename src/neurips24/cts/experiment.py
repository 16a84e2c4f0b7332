"""The chapter's experiments (paper Sec. 6), sized by the run scale, and the theory's small computations.

- :func:`simulate`: R runs of several policies on one instance, with common random numbers.
- :func:`run_regret_vs_m`: Fig. (a) (cumulative regret vs t at the largest m) and Fig. (b) (final regret
  vs m), with the extra seeds the reproduction check needs at the smallest and largest m.
- :func:`explore_run`: the small run behind the chapter's widget.
- :func:`switch_probability`, :func:`chernoff_rate`: why the exact posterior can wait exp(Ω(m)) rounds.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import numpy as np
from tqdm.auto import tqdm

from ..backend import array_module, to_numpy
from ..scale import check_scale
from .bandit import SemiBandit, check_positive_int, two_sets
from .kernels import step
from .policies import PRIORS, Policy, draw_noise, make_policy, paper_policies

CONFIG = {
    "fast": dict(m_values=(5, 15, 25, 35), T=2000, runs=100, seeds=(0, 1, 2), checkpoints=100),
    "full": dict(m_values=(5, 25, 45, 65), T=10_000, runs=150, seeds=(0, 1, 2), checkpoints=200),
}

# Fig. (b) of the paper: final mean regret at T = 10^4 over 150 runs, read off the log-scale figure
# ``finalmeanregret.png`` of the authors' repository (github.com/RaymZhang/CTS-Mismatched-Paradox), as recorded
# in this book's research brief; approximate (about ±10 % from reading a log axis).
PAPER_FIG_B = {
    5: {"B-CTS-Jeffreys": 13, "B-CTS-Uniform": 9, "ESCB": 115, "BG-CTS": 65},
    25: {"B-CTS-Jeffreys": 900, "B-CTS-Uniform": 4.2e3, "ESCB": 90, "BG-CTS": 210},
    45: {"B-CTS-Jeffreys": 2.2e4, "B-CTS-Uniform": 2.5e4, "ESCB": 150, "BG-CTS": 350},
    65: {"B-CTS-Jeffreys": 7e4, "B-CTS-Uniform": 5.5e4, "ESCB": 440, "BG-CTS": 480},
}


@dataclass
class SimResult:
    """Regret of several policies on one instance.

    labels : policy names, length P.   ts : (C,) int64 checkpoints 1..T.
    cum_regret : (P, R, C) float64 cumulative pseudo-regret at the checkpoints.
    final : (P, R) float64 regret at T.   linear : Δ_max · T (regret of a run that never finds A*).
    """

    labels: list
    ts: np.ndarray
    cum_regret: np.ndarray
    final: np.ndarray
    linear: float
    m: int
    T: int
    seed: int

    def stuck_share(self) -> np.ndarray:
        """(P,) share of runs whose regret exceeds half the linear maximum Δ_max · T."""
        return (self.final > 0.5 * self.linear).mean(axis=1)

    def mean(self) -> np.ndarray:
        """(P,) mean final regret."""
        return self.final.mean(axis=1)

    def of(self, label: str) -> np.ndarray:
        """(R,) final regret of the policy named ``label``."""
        return self.final[self.labels.index(label)]


def simulate(bandit: SemiBandit, policies: list[Policy], T: int, R: int, seed: int = 0,
             checkpoints: int = 100, device: str | None = None, progress: bool = False) -> SimResult:
    """Run R independent runs of every policy for T rounds, all advanced together as (R, d) arrays.

    Common random numbers: each round one reward array X (R, d) is drawn and every policy observes the
    entries of X on the arms it plays (as in the authors' experiments); each policy has its own stream for
    its posterior samples. Rounds are 1-based (t = 1..T).

    Parameters
    ----------
    bandit : the instance.   policies : list of :class:`Policy`, at least one.
    T : horizon ≥ 1.   R : runs ≥ 1.   seed : integer seed.   checkpoints : number of recorded times ≥ 1.
    device : 'auto' | 'cpu' | 'gpu' (``neurips24.backend``); on a GPU explicit action sets use the CUDA step.

    Returns
    -------
    :class:`SimResult` (NumPy arrays).

    Raises
    ------
    ValueError if T < 1, R < 1, checkpoints < 1, no policy is given, or a policy does not fit the bandit
    (B-CTS with Gaussian rewards, ESCB with a top-m oracle).
    """
    T = check_positive_int("T", T)
    R = check_positive_int("R", R)
    checkpoints = check_positive_int("checkpoints", checkpoints)
    if not policies or not all(isinstance(p, Policy) for p in policies):
        raise ValueError("policies must be a non-empty list of Policy objects (see make_policy)")
    for p in policies:
        if p.kind == "bcts" and bandit.noise != "bernoulli":
            raise ValueError("B-CTS (Beta posterior) needs Bernoulli rewards; use noise='bernoulli' or BG-CTS")
        if p.kind == "escb" and bandit.actions is None:
            raise ValueError("ESCB needs an explicit action matrix (actions); a top-m oracle cannot maximise it")
    xp = array_module(device)
    ts = np.unique(np.linspace(1, T, min(checkpoints, T)).round().astype(np.int64))
    env_rng = xp.random.default_rng(seed * 1000)
    rngs = [xp.random.default_rng(seed * 1000 + 1 + j) for j in range(len(policies))]
    P, d = len(policies), bandit.d
    N = [xp.zeros((R, d)) for _ in policies]
    S = [xp.zeros((R, d)) for _ in policies]
    cum = xp.zeros((P, R))
    out = np.zeros((P, R, ts.size))
    c = 0
    for t in tqdm(range(1, T + 1), disable=None if progress else True, desc=bandit.name, leave=False):
        X = bandit.draw_rewards(env_rng, R)
        for j, pol in enumerate(policies):
            noise = draw_noise(pol, N[j], S[j], rngs[j])
            _, regret = step(pol, bandit, N[j], S[j], X, t, noise)
            cum[j] += regret
        if t == ts[c]:
            out[:, :, c] = to_numpy(cum)
            c += 1
    return SimResult(labels=[p.label for p in policies], ts=ts, cum_regret=out, final=out[:, :, -1].copy(),
                     linear=bandit.linear_regret(T), m=bandit.m, T=T, seed=seed)


@dataclass
class RegretVsM:
    """Results of :func:`run_regret_vs_m`: runs[(m, seed)] -> :class:`SimResult`."""

    m_values: tuple
    seeds: tuple
    T: int
    R: int
    runs: dict = field(default_factory=dict)
    config: dict = field(default_factory=dict)

    @property
    def labels(self) -> list:
        return next(iter(self.runs.values())).labels

    def curve(self) -> SimResult:
        """Fig. (a): the seed-0 run at the largest m."""
        return self.runs[(max(self.m_values), self.seeds[0])]

    def table(self, seed: int | None = None) -> dict:
        """m -> {label: (mean final regret, stuck share)} for one seed (default: the first)."""
        seed = self.seeds[0] if seed is None else seed
        out = {}
        for m in self.m_values:
            r = self.runs[(m, seed)]
            out[m] = {lab: (float(mu), float(s)) for lab, mu, s in zip(r.labels, r.mean(), r.stuck_share(),
                                                                             strict=True)}
        return out


def run_regret_vs_m(scale: str, policies: list[Policy] | None = None, device: str | None = None) -> RegretVsM:
    """Paper Sec. 6, Fig. (a) and (b), on the two-set instance (μ = 0.7 / 0.9, Bernoulli), sized by ``scale``.

    Every m of ``CONFIG[scale]['m_values']`` is run with the first seed; the smallest and the largest m are
    also run with the other seeds (the reproduction check). Policies default to :func:`paper_policies`.

    Raises
    ------
    ValueError for an unknown scale.
    """
    cfg = CONFIG[check_scale(scale)]
    policies = paper_policies() if policies is None else policies
    res = RegretVsM(m_values=tuple(cfg["m_values"]), seeds=tuple(cfg["seeds"]), T=cfg["T"], R=cfg["runs"],
                    config=dict(cfg))
    jobs = [(m, cfg["seeds"][0]) for m in cfg["m_values"]]
    jobs += [(m, s) for s in cfg["seeds"][1:] for m in (min(cfg["m_values"]), max(cfg["m_values"]))]
    for m, s in tqdm(jobs, disable=None, desc="(m, seed)"):
        res.runs[(m, s)] = simulate(two_sets(m), policies, cfg["T"], cfg["runs"], seed=s,
                                    checkpoints=cfg["checkpoints"], device=device)
    return res


@lru_cache(maxsize=32)
def explore_run(m: int = 25, prior: str = "uniform", T: int = 1000, runs: int = 60, seed: int = 0) -> SimResult:
    """B-CTS with the chosen prior against BG-CTS on the two-set instance (the chapter's widget; cached).

    Raises
    ------
    ValueError for m < 1, T < 1, runs < 1 or an unknown prior.
    """
    if prior not in PRIORS:
        raise ValueError(f"prior must be one of {tuple(PRIORS)}, got {prior!r}")
    return simulate(two_sets(m), [make_policy("bcts", prior), make_policy("bgcts")], T, runs, seed=seed,
                    checkpoints=60)


def irwin_hall_sf(x: Fraction | float, m: int) -> float:
    """P(U_1 + … + U_m > x) for i.i.d. U(0, 1), exactly (rational arithmetic on the Irwin–Hall CDF).

    Used as the chance that a uniform-prior sample of the never-played optimal action beats a played
    action whose sample sits at ``x`` (Theory). Raises ValueError if m < 1.
    """
    m = check_positive_int("m", m)
    x = Fraction(x)
    if x <= 0:
        return 1.0
    if x >= m:
        return 0.0
    y = m - x                                            # P(sum > x) = P(sum < m - x) by symmetry
    total = sum((-1) ** k * math.comb(m, k) * (y - k) ** m for k in range(int(math.floor(y)) + 1))
    return float(total / math.factorial(m))


def chernoff_rate(x: float, prior: str) -> float:
    """Cramér rate I(x) = sup_s [s x − ln E e^{s θ}] of one prior draw θ ~ Beta(α₀, β₀), for x in (mean, 1).

    P(θ_1 + … + θ_m ≥ m x) ≤ exp(−m I(x)), and the exponent is exact as m → ∞ (Cramér). The moment
    generating function of Beta(a, b) is Kummer's ₁F₁(a; a + b; s).

    Raises
    ------
    ValueError for an unknown prior or x outside (prior mean, 1).
    """
    from scipy.optimize import minimize_scalar
    from scipy.special import hyp1f1

    if prior not in PRIORS:
        raise ValueError(f"prior must be one of {tuple(PRIORS)}, got {prior!r}")
    a, b = PRIORS[prior]
    if not (a / (a + b) < x < 1):
        raise ValueError(f"x must lie in (prior mean {a / (a + b)}, 1), got {x!r}")
    res = minimize_scalar(lambda s: -(s * x - math.log(hyp1f1(a, a + b, s))), bounds=(0.0, 200.0),
                          method="bounded", options={"xatol": 1e-10})
    return float(-res.fun)


def switch_probability(m: int, mu_bad: float = 0.7) -> dict:
    """Per-round chance that B-CTS leaves a well-estimated bad action for the never-played optimal one.

    Once A_1 (means ``mu_bad``) has been played often, its sample sum is ≈ m·mu_bad, while the optimal
    action's sample is still a sum of m prior draws. Returns the exact uniform-prior probability
    (Irwin–Hall), the Chernoff estimates exp(−m I) for both priors, and the expected wait 1/p (rounds).
    """
    m = check_positive_int("m", m)
    x = Fraction(mu_bad).limit_denominator(10_000) * m
    exact = irwin_hall_sf(x, m)
    rates = {p: chernoff_rate(float(mu_bad), p) for p in PRIORS}
    return {"m": m, "uniform_exact": exact, "uniform_wait": 1 / exact if exact > 0 else math.inf,
            "uniform_chernoff": math.exp(-m * rates["uniform"]),
            "jeffreys_chernoff": math.exp(-m * rates["jeffreys"]),
            "rate_uniform": rates["uniform"], "rate_jeffreys": rates["jeffreys"]}
