"""R runs of several policies on one instance, advanced together as (R, d) arrays (paper Sec. 6, the shared loop).

- :class:`SimResult`: what a simulation returns (regret curves, final regret, first optimal play).
- :func:`simulate`: the arm-level simulation of any instance and policy, on NumPy or (for explicit action sets)
  the CUDA step (:mod:`~neurips24.cts.kernels`).
- :func:`seed_streams`: independent, reproducible random streams from one seed (NumPy's ``SeedSequence``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from tqdm.auto import tqdm

from ..backend import array_module, to_numpy
from .bandit import SemiBandit, check_positive_int
from .kernels import step
from .policies import Policy, draw_noise


@dataclass
class SimResult:
    """Regret of P policies on one instance, R runs each.

    labels : policy names, length P.   ts : (C,) int64 checkpoints in 1..T (the last is T).
    cum_regret : (P, R, C) float64 cumulative pseudo-regret at the checkpoints.
    final : (P, R) float64 regret at T.   linear : Δ_max · T (the regret of a run that never finds A*).
    m, T : decision size and horizon.   seed : the seed the streams came from (the drawn entropy if none was given).
    first_optimal : (P, R) int64, the first round t at which an optimal decision was played (T + 1 if never);
        ``None`` when not recorded.
    """

    labels: list
    ts: np.ndarray
    cum_regret: np.ndarray
    final: np.ndarray
    linear: float
    m: int
    T: int
    seed: int
    first_optimal: np.ndarray | None = None

    def stuck_counts(self) -> np.ndarray:
        """(P,) int64, the number of runs whose regret exceeds half the linear maximum Δ_max · T ("stuck")."""
        return (self.final > 0.5 * self.linear).sum(axis=1)

    def stuck_share(self) -> np.ndarray:
        """(P,) share of stuck runs (see :meth:`stuck_counts`)."""
        return self.stuck_counts() / self.final.shape[1]

    def mean(self) -> np.ndarray:
        """(P,) mean final regret."""
        return self.final.mean(axis=1)

    def of(self, label: str) -> np.ndarray:
        """(R,) final regret of the policy named ``label``. ValueError for an unknown label."""
        return self.final[self._row(label)]

    def first_of(self, label: str) -> np.ndarray:
        """(R,) round of the first optimal play of the policy named ``label``."""
        if self.first_optimal is None:
            raise ValueError("this result did not record the first optimal play")
        return self.first_optimal[self._row(label)]

    def _row(self, label: str) -> int:
        if label not in self.labels:
            raise ValueError(f"label must be one of {self.labels}, got {label!r}")
        return self.labels.index(label)


def seed_streams(seed, n: int) -> tuple[list[int], int]:
    """n independent integer seeds from ``seed`` (``numpy.random.SeedSequence(seed).spawn(n)``).

    Parameters
    ----------
    seed : int ≥ 0, or None for fresh entropy from the operating system.
    n : number of streams ≥ 1.

    Returns
    -------
    (seeds, used): ``seeds`` a list of n Python ints (64-bit), usable by NumPy's and CuPy's ``default_rng``;
    ``used`` the seed itself, or the drawn entropy when ``seed`` is None (pass it back to reproduce the run).

    Raises
    ------
    ValueError if seed is not None and not an integer ≥ 0 (a float or a bool included), or n < 1.
    """
    n = check_positive_int("n", n)
    if seed is None:
        ss = np.random.SeedSequence()
    elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, or None for fresh entropy, got {seed!r}")
    else:
        ss = np.random.SeedSequence(int(seed))
    return [int(c.generate_state(1, np.uint64)[0]) for c in ss.spawn(n)], int(ss.entropy)


def checkpoints_for(T: int, checkpoints: int) -> np.ndarray:
    """(C,) int64 recorded rounds: about ``checkpoints`` evenly spaced in 1..T, always including T."""
    return np.unique(np.linspace(1, T, min(checkpoints, T)).round().astype(np.int64))


def _check_simulation(bandit, policies, T, R, checkpoints) -> tuple[int, int, int]:
    """The checks of :func:`simulate`; returns T, R and checkpoints as ints."""
    if not isinstance(bandit, SemiBandit):
        raise TypeError(f"bandit must be a SemiBandit (see two_sets, explicit_bandit, top_m_bandit), "
                        f"got {type(bandit).__name__}")
    T, R = check_positive_int("T", T), check_positive_int("R", R)
    checkpoints = check_positive_int("checkpoints", checkpoints)
    if not isinstance(policies, (list, tuple)) or not policies:
        raise ValueError("policies must be a non-empty list of Policy objects (see make_policy)")
    for p in policies:
        if not isinstance(p, Policy):
            raise TypeError(f"policies must hold Policy objects (see make_policy), got {type(p).__name__}")
        if p.kind == "bcts" and bandit.noise != "bernoulli":
            raise ValueError("B-CTS (Beta posterior) needs Bernoulli rewards; use noise='bernoulli' or BG-CTS")
        if p.kind == "escb" and bandit.actions is None:
            raise ValueError("ESCB needs an explicit action matrix (actions); a top-m oracle cannot maximise it")
        if p.kind == "escb_code":
            raise ValueError("the as-written ESCB model runs in cts.two_set_runs.simulate_two_sets only")
    return T, R, checkpoints


def simulate(bandit: SemiBandit, policies: list[Policy], T: int, R: int, seed: int | None = 0,
             checkpoints: int = 100, device: str | None = None, progress: bool = False) -> SimResult:
    """Run R independent runs of every policy for T rounds, all advanced together as (R, d) arrays.

    Common random numbers: each round one reward array X (R, d) is drawn and every policy observes the
    entries of X on the arms it plays (as in the authors' experiments); each policy has its own stream for
    its posterior samples. Rounds are 1-based (t = 1..T).

    Parameters
    ----------
    bandit : the instance (:class:`~neurips24.cts.bandit.SemiBandit`).
    policies : list of :class:`~neurips24.cts.policies.Policy`, at least one (not 'escb_code', which models a
        two-set-only class: :func:`~neurips24.cts.two_set_runs.simulate_two_sets`).
    T : horizon ≥ 1.   R : runs ≥ 1.   checkpoints : number of recorded times ≥ 1.
    seed : int ≥ 0, or None for fresh entropy (the drawn entropy is recorded in ``SimResult.seed``).
    device : 'auto' | 'cpu' | 'gpu' (``neurips24.backend``); on a GPU explicit action sets use the CUDA step.

    Returns
    -------
    :class:`SimResult` (NumPy arrays).

    Raises
    ------
    TypeError if ``bandit`` is not a SemiBandit or a policy is not a Policy; ValueError if T < 1, R < 1,
    checkpoints < 1, the seed is not an integer ≥ 0 or None, no policy is given, or a policy does not fit the
    bandit (B-CTS with Gaussian rewards, ESCB with a top-m oracle, the as-written ESCB model).
    """
    T, R, checkpoints = _check_simulation(bandit, policies, T, R, checkpoints)
    seeds, used_seed = seed_streams(seed, len(policies) + 1)
    xp = array_module(device)
    ts = checkpoints_for(T, checkpoints)
    env_rng = xp.random.default_rng(seeds[0])
    rngs = [xp.random.default_rng(s) for s in seeds[1:]]
    P, d = len(policies), bandit.d
    N = [xp.zeros((R, d)) for _ in policies]
    S = [xp.zeros((R, d)) for _ in policies]
    cum = xp.zeros((P, R))
    first = xp.full((P, R), T + 1, dtype=xp.int64)
    tol = 1e-9 * max(1.0, abs(bandit.best_value))       # regret of an optimal decision: 0 up to rounding
    out = np.zeros((P, R, ts.size))
    c = 0
    for t in tqdm(range(1, T + 1), disable=None if progress else True, desc=bandit.name, leave=False):
        X = bandit.draw_rewards(env_rng, R)
        for j, pol in enumerate(policies):
            noise = draw_noise(pol, N[j], S[j], rngs[j])
            _, regret = step(pol, bandit, N[j], S[j], X, t, noise)
            cum[j] += regret
            first[j] = xp.where((regret <= tol) & (first[j] > T), t, first[j])
        if t == ts[c]:
            out[:, :, c] = to_numpy(cum)
            c += 1
    return SimResult(labels=[p.label for p in policies], ts=ts, cum_regret=out, final=out[:, :, -1].copy(),
                     linear=bandit.linear_regret(T), m=bandit.m, T=T, seed=used_seed,
                     first_optimal=to_numpy(first))
