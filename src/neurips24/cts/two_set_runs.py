"""The two-set instance simulated one decision at a time: the paper's set-up (T = 10⁴, 150 runs) in seconds.

On the paper's instance (two disjoint decisions of m arms, Bernoulli rewards, Sec. 6) the arms of a decision are
always played together, so every arm of decision k has the same count n_k, and every policy here except B-CTS
depends on the arms only through n_k and the decision's reward total S_k:

- BG-CTS / G-CTS: Σ_{i∈A_k} θ_i = S_k / n_k + c_t Σ_i Z_i / √n_k, and Σ_i Z_i ~ N(0, m) is one draw √m Z_k;
- ESCB: Σ_{i∈A_k} μ̂_i + coef √(Σ_i 1/N_i) = S_k / n_k + coef √(m / n_k);
- CUCB: S_k / n_k + m c_t / √n_k;
- the authors' ESCB as written (:mod:`~neurips24.cts.escb_code`) reads only arms 0 and 1 (both in A_1).

So each round draws, per run, the rewards of arms 0 and 1, the total of the other m − 2 arms of A_1
(Binomial(m − 2, μ_low)) and the total of A* (Binomial(m, μ_high)): the same distribution as the arm-level
simulation of :func:`~neurips24.cts.experiment.simulate` (a test compares the two), at O(R) cost per round
instead of O(R d), for all values of m at once. B-CTS needs one Beta draw per arm and is not reduced; it runs
in :func:`~neurips24.cts.experiment.simulate`.
"""
from __future__ import annotations

import math

import numpy as np
from tqdm.auto import tqdm

from .bandit import check_positive_int
from .escb_code import code_sums, f_code, initial_state, update_as_written, value_as_written
from .policies import CUCB_C, Policy, f_bonus, g_scale
from .runs import SimResult, checkpoints_for, seed_streams

KINDS = ("bgcts", "gcts", "escb", "escb_code", "cucb")


def _scale_table(policy: Policy, T: int, m_values: tuple) -> np.ndarray:
    """(T, M) float64: the factor a_t multiplying √(m / n_k) (times Z_k for the samplers) in a decision's index.

    BG-CTS: σ √(2 g(t)) (sample sum S_k/n_k + a_t √(m/n_k) Z_k, with Σ_{i∈A_k} Z_i = √m Z_k);
    G-CTS: σ; ESCB: σ √(2 f(t, m, λ)); CUCB: σ √(1.5 ln t) √m (its bonus is m c_t / √n_k = a_t √(m / n_k)).
    """
    t = np.arange(1, T + 1, dtype=np.float64)
    cols = []
    for m in m_values:
        if policy.kind == "bgcts":
            cols.append(policy.sigma * np.sqrt(2.0 * g_scale(t, m, policy.lam)))
        elif policy.kind == "gcts":
            cols.append(np.full(T, policy.sigma))
        elif policy.kind == "escb":
            cols.append(policy.sigma * np.sqrt(2.0 * f_bonus(t, m, policy.lam)))
        else:                                                   # CUCB
            cols.append(policy.sigma * np.sqrt(CUCB_C * np.log(t)) * math.sqrt(m))
    return np.stack(cols, axis=1)


def simulate_two_sets(m_values, policies: list[Policy], T: int, R: int, seed: int | None = 0,
                      mu_low: float = 0.7, mu_high: float = 0.9, checkpoints: int = 100,
                      progress: bool = False) -> dict:
    """R runs of each policy on the two-set instance for every m in ``m_values`` at once (paper Sec. 6).

    Common random numbers: every policy sees the same rewards, as in :func:`~neurips24.cts.experiment.simulate`
    and the authors' experiments. Round 1 plays A_1 (both decisions unplayed: a tie, the lowest index wins),
    round 2 the still-unplayed A* (index +inf), except for the as-written ESCB model, which follows the code.

    Parameters
    ----------
    m_values : iterable of decision sizes m ≥ 2 (d = 2m arms).
    policies : list of :class:`~neurips24.cts.policies.Policy` of kinds 'bgcts', 'gcts', 'escb', 'escb_code',
        'cucb' (not B-CTS: see the module docstring).
    T : horizon ≥ 1.   R : runs per m ≥ 1.   seed : int ≥ 0, or None for fresh entropy (recorded in the result).
    mu_low, mu_high : Bernoulli means of A_1's and A*'s arms, in [0, 1], mu_low < mu_high.
    checkpoints : number of recorded times ≥ 1.

    Returns
    -------
    dict m -> :class:`~neurips24.cts.experiment.SimResult` (``cum_regret`` (P, R, C), ``final`` (P, R),
    ``first_optimal`` (P, R): the first round A* was played, T + 1 if never).

    Raises
    ------
    ValueError for m < 2, T < 1, R < 1, checkpoints < 1, a bad seed, means outside [0, 1] or not ordered, or
    an empty policy list; TypeError for a policy that is not a Policy; ValueError for B-CTS.
    """
    m_values = tuple(_check_m(m) for m in m_values)
    if not m_values:
        raise ValueError("m_values must hold at least one decision size m >= 2")
    T = check_positive_int("T", T)
    R = check_positive_int("R", R)
    checkpoints = check_positive_int("checkpoints", checkpoints)
    for name, value in (("mu_low", mu_low), ("mu_high", mu_high)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or not 0 <= value <= 1:
            raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    if not mu_low < mu_high:
        raise ValueError(f"need mu_low < mu_high (A* = the second half is optimal), got {mu_low}, {mu_high}")
    if not policies:
        raise ValueError("policies must be a non-empty list of Policy objects (see make_policy)")
    for p in policies:
        if not isinstance(p, Policy):
            raise TypeError(f"policies must hold Policy objects (see make_policy), got {type(p).__name__}")
        if p.kind not in KINDS:
            raise ValueError(f"simulate_two_sets runs the kinds {KINDS}; B-CTS needs one Beta draw per arm: "
                             f"use cts.simulate for {p.label}")
    seeds, used_seed = seed_streams(seed, len(policies) + 1)
    env = np.random.default_rng(seeds[0])
    rngs = [np.random.default_rng(s) for s in seeds[1:]]
    P, MR = len(policies), len(m_values) * R
    m_rows = np.repeat(np.asarray(m_values, dtype=np.float64), R)
    delta = (mu_high - mu_low) * m_rows                     # Δ = regret of a round on A_1
    ts = checkpoints_for(T, checkpoints)
    # the index policies (all but the as-written model) advance together as (G, M R, 2) arrays
    idx = [j for j, p in enumerate(policies) if p.kind != "escb_code"]
    samplers = [policies[j].kind in ("bgcts", "gcts") for j in idx]
    scale = np.stack([_scale_table(policies[j], T, m_values) for j in idx], axis=1) if idx else None  # (T, G, M)
    n = np.zeros((len(idx), MR, 2))                         # plays of A_1, A*
    S = np.zeros((len(idx), MR, 2))                         # reward totals of A_1, A*
    sqrt_m = np.sqrt(m_rows)[None, :, None]
    ones = np.ones((MR, 2))
    code = {}                                               # the as-written model: its state and its sums
    for j, p in enumerate(policies):
        if p.kind == "escb_code":
            mu01, N01, played = initial_state(MR)
            mean, inv = np.empty((MR, 2)), np.empty((MR, 2))
            for i, m in enumerate(m_values):
                mean[i * R:(i + 1) * R], inv[i * R:(i + 1) * R] = code_sums(mu01[:R], N01[:R], m)
            f = np.array([[f_code(t, m, p.lam) for m in m_values] for t in range(1, T + 1)])   # (T, M)
            code[j] = (mu01, N01, played, mean, inv, f)
    cum = np.zeros((P, MR))
    first = np.full((P, MR), T + 1, dtype=np.int64)
    out = np.zeros((P, MR, ts.size))
    c = 0
    for t in tqdm(range(1, T + 1), disable=None if progress else True, desc="two sets", leave=False):
        X01 = (env.random((MR, 2)) < mu_low).astype(np.float64)                # arms 0 and 1 (in A_1)
        total = np.empty((MR, 2))                   # reward totals of A_1 and A*, one m at a time (a scalar n is
        for i, m in enumerate(m_values):            # several times faster in NumPy's binomial sampler)
            sl = slice(i * R, (i + 1) * R)
            total[sl, 0] = X01[sl].sum(axis=1) + env.binomial(m - 2, mu_low, R)
            total[sl, 1] = env.binomial(m, mu_high, R)
        star = np.zeros((P, MR), dtype=bool)
        if idx:
            Z = np.stack([rngs[j].standard_normal((MR, 2)) if draw else ones for j, draw in zip(idx, samplers,
                                                                                               strict=True)])
            played = n > 0
            nn = np.where(played, n, 1.0)
            # a_t √(m / n_k) Z_k: BG-CTS's and G-CTS's sample noise, ESCB's and CUCB's bonus (Z = 1)
            a = np.repeat(scale[t - 1], R, axis=1)[:, :, None] / np.sqrt(nn) * sqrt_m * Z
            value = np.where(played, S / nn + a, np.inf)
            won = value[..., 1] > value[..., 0]                                  # ties -> A_1 (lowest index)
            n[..., 1] += won
            n[..., 0] += ~won
            S[..., 1] += np.where(won, total[:, 1], 0.0)
            S[..., 0] += np.where(won, 0.0, total[:, 0])
            star[idx] = won
        for j, (mu01, N01, played01, mean, inv, f) in code.items():
            value = value_as_written(mean, inv, np.repeat(f[t - 1], R)[:, None], policies[j].sigma)
            k = (value[:, 1] > value[:, 0]).astype(np.int64)                  # ties -> A_1, as np.argmax
            changed = (k == 0) | ~played01[:, 1]              # arms 0 and 1 move on A_1 and on A*'s first play
            update_as_written(mu01, N01, played01, k, X01)
            for i, m in enumerate(m_values):                  # the sums change only where arms 0, 1 moved
                rows = np.flatnonzero(changed[i * R:(i + 1) * R]) + i * R
                if rows.size:
                    mean[rows], inv[rows] = code_sums(mu01[rows], N01[rows], m)
            star[j] = k == 1
        cum += np.where(star, 0.0, delta)
        first = np.where(star & (first > T), t, first)
        if t == ts[c]:
            out[:, :, c] = cum
            c += 1
    labels = [p.label for p in policies]
    result = {}
    for i, m in enumerate(m_values):
        sl = slice(i * R, (i + 1) * R)
        result[m] = SimResult(labels=labels, ts=ts, cum_regret=out[:, sl].copy(), final=out[:, sl, -1].copy(),
                              linear=(mu_high - mu_low) * m * T, m=m, T=T, seed=used_seed,
                              first_optimal=first[:, sl].copy())
    return result


def _check_m(m) -> int:
    m = check_positive_int("m", m)
    if m < 2:
        raise ValueError(f"every m must be an integer >= 2 (arms 0 and 1 both in A_1), got {m}")
    return m
