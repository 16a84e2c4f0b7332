"""The linear combinatorial semi-bandit (Zhang & Combes 2024, Sec. 2).

d base arms with means μ ∈ ℝ^d; a decision is a 0/1 vector A ∈ 𝒜 ⊆ {0, 1}^d with |A| ≤ m; playing A earns
Aᵀμ in expectation and reveals the reward X_i of every arm i ∈ A (semi-bandit feedback). The pseudo-regret
after T rounds is Σ_t Δ_{A_t}, with Δ_A = max_{A'} A'ᵀμ − Aᵀμ.

The action set is either an explicit (K, d) 0/1 matrix — the paper's two-set instance is one — or the set of
all m-subsets of the arms, represented by its top-m oracle (never enumerated). Everything is batched over R
independent runs: a sample θ is an (R, d) array, and the oracle returns one decision per run.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..checks import check_count

NOISES = ("bernoulli", "gaussian")


def _xp(a):
    """The array module (NumPy or CuPy) that ``a`` belongs to."""
    if isinstance(a, np.ndarray) or np.isscalar(a):
        return np
    import cupy

    return cupy


# the shared check, under the name this chapter's modules import
check_positive_int = check_count


@dataclass(frozen=True)
class SemiBandit:
    """A linear combinatorial semi-bandit instance (paper Sec. 2), checked on construction.

    :func:`two_sets`, :func:`explicit_bandit` and :func:`top_m_bandit` build the usual ones; constructing it
    directly runs the same checks (``__post_init__``), so an instance that exists is a valid one.

    Attributes
    ----------
    mu : (d,) float64, the arm means μ, finite; in [0, 1] for Bernoulli rewards.
    m : int, the largest decision size max_A |A|: 1 ≤ m ≤ d, and for an explicit action set exactly the
        largest row sum of ``actions``.
    actions : (K, d) float64 0/1 matrix of the decisions (K ≥ 1, every row with at least one arm), or
        ``None`` for the top-m set (all m-subsets, never enumerated).
    noise : 'bernoulli' (X_i ~ Bernoulli(μ_i)) or 'gaussian' (X_i ~ N(μ_i, noise_sd²)).
    noise_sd : the Gaussian noise standard deviation, a finite number > 0 (unused for Bernoulli rewards).
    name : a short label (str).

    Raises
    ------
    TypeError if ``mu`` or ``actions`` is not numeric, or ``noise_sd``, ``noise`` or ``name`` has the wrong type;
    ValueError naming the argument for a wrong shape, a non-finite or out-of-range mean, an m outside
    [1, d] or inconsistent with ``actions``, non-0/1 actions, an empty action, an unknown noise or
    noise_sd ≤ 0.
    """

    mu: np.ndarray
    m: int
    actions: np.ndarray | None = None
    noise: str = "bernoulli"
    noise_sd: float = 0.5
    name: str = "bandit"

    def __post_init__(self):
        mu = _check_mu(self.mu, self.noise)
        m = check_positive_int("m", self.m)
        if m > mu.size:
            raise ValueError(f"m must be an integer in [1, d={mu.size}], got {m}")
        A = None if self.actions is None else _check_actions(self.actions, mu.size)
        if A is not None and m != int(A.sum(axis=1).max()):
            raise ValueError(f"m must equal the largest decision size of actions ({int(A.sum(axis=1).max())}), "
                             f"got {m}")
        if not isinstance(self.name, str):
            raise TypeError(f"name must be a str, got {type(self.name).__name__}")
        object.__setattr__(self, "mu", mu)
        object.__setattr__(self, "m", m)
        object.__setattr__(self, "actions", A)
        object.__setattr__(self, "noise_sd", _check_sd(self.noise_sd))

    @property
    def d(self) -> int:
        """Number of base arms."""
        return int(self.mu.shape[0])

    @property
    def n_actions(self) -> int | None:
        """K, the number of explicit decisions (``None`` for a top-m set)."""
        return None if self.actions is None else int(self.actions.shape[0])

    def action_values(self) -> np.ndarray:
        """(K,) float64, Aᵀμ of every explicit decision. ValueError for a top-m set."""
        if self.actions is None:
            raise ValueError("action_values needs an explicit action matrix; this bandit has a top-m oracle")
        return self.actions @ self.mu

    @property
    def best_value(self) -> float:
        """max_A Aᵀμ."""
        if self.actions is None:
            return float(np.sort(self.mu)[::-1][: self.m].sum())
        return float(self.action_values().max())

    def gaps(self) -> np.ndarray:
        """(K,) float64, Δ_A = max_A' A'ᵀμ − Aᵀμ of every explicit decision (≥ 0)."""
        values = self.action_values()
        return values.max() - values

    @property
    def delta_max(self) -> float:
        """Δ_max, the largest gap: the per-round regret of the worst decision."""
        if self.actions is None:
            s = np.sort(self.mu)
            return float(s[::-1][: self.m].sum() - s[: self.m].sum())
        return float(self.gaps().max())

    @property
    def delta_min(self) -> float:
        """Δ_min, the smallest positive gap (0.0 when every decision is optimal)."""
        if self.actions is None:
            s = np.sort(self.mu)[::-1]
            diffs = (s[: self.m, None] - s[None, self.m:]).ravel()
        else:
            diffs = self.gaps()
        diffs = diffs[diffs > 1e-12]
        return float(diffs.min()) if diffs.size else 0.0

    def linear_regret(self, T: int) -> float:
        """Δ_max · T: the regret of a run that plays the worst decision every round."""
        return self.delta_max * T

    def draw_rewards(self, rng, R: int):
        """One round of rewards for R runs: X, an (R, d) float64 array (on the array module of ``rng``).

        Bernoulli rewards are 1.0 where a uniform draw U < μ_i; Gaussian ones are μ_i + noise_sd · Z.
        """
        xp = _rng_xp(rng)
        mu = xp.asarray(self.mu)
        if self.noise == "bernoulli":
            return (rng.random((R, self.d)) < mu).astype(xp.float64)
        return mu + self.noise_sd * rng.standard_normal((R, self.d))

    def oracle(self, theta):
        """The decision maximising Aᵀθ, for each of R runs (paper Sec. 2, "oracle").

        Parameters
        ----------
        theta : (R, d) float64, one vector per run. +inf marks an arm never observed (its optimistic value):
            a decision that contains one scores +inf, so every arm is tried once before any index is
            compared (Alg. 2 of the paper: play decisions until every N_i > 0).

        Returns
        -------
        mask : (R, d) float64 0/1, the chosen decision of each run.
        index : (R,) int64, its row in ``actions`` (for a top-m set: ``None``).

        Ties go to the lowest action index (explicit set) or the lowest arm index (top-m). Sums over an
        action run over the arms in order 0..d−1, as in the CUDA kernel (``kernels.py``).
        """
        xp = _xp(theta)
        if self.actions is None:
            R = theta.shape[0]
            order = xp.argsort(-theta, axis=1, kind="stable") if xp is np else xp.argsort(-theta, axis=1)
            mask = xp.zeros((R, self.d))
            mask[xp.arange(R)[:, None], order[:, : self.m]] = 1.0
            return mask, None
        A = xp.asarray(self.actions)
        infinite = theta == xp.inf
        scores = sequential_action_sums(xp.where(infinite, 0.0, theta), A)
        scores = xp.where(infinite.astype(xp.float64) @ A.T > 0, xp.inf, scores)
        index = xp.argmax(scores, axis=1)
        return A[index], index

    def regret(self, mask):
        """(R,) float64, the per-round pseudo-regret Δ_A = max Aᵀμ − Aᵀμ of the decisions in ``mask`` (R, d)."""
        xp = _xp(mask)
        return self.best_value - mask @ xp.asarray(self.mu)


def sequential_action_sums(x, A):
    """Σ_{i∈A_k} x_i for every run and decision, summed over i = 0..d−1 in order.

    Parameters
    ----------
    x : (R, d) float64, finite.   A : (K, d) 0/1 float64.

    Returns
    -------
    (R, K) float64. The left-to-right order (``cumsum``) matches the CUDA kernel bit for bit, which a BLAS
    matrix product (pairwise/blocked sums) would not.
    """
    xp = _xp(x)
    return xp.cumsum(x[:, None, :] * A[None, :, :], axis=2)[:, :, -1]


def _rng_xp(rng):
    return np if isinstance(rng, np.random.Generator) else __import__("cupy")


def _check_mu(mu, noise) -> np.ndarray:
    if not isinstance(noise, str) or noise not in NOISES:
        raise ValueError(f"noise must be one of {NOISES}, got {noise!r}")
    raw = np.asarray(mu)
    if raw.dtype.kind not in "iuf":
        raise TypeError(f"mu must be an array of real numbers, got dtype {raw.dtype}")
    mu = raw.astype(np.float64)
    if mu.ndim != 1 or mu.size < 1:
        raise ValueError(f"mu must be a non-empty 1-D array of arm means, got shape {mu.shape}")
    if not np.all(np.isfinite(mu)):
        raise ValueError("mu must be finite (no NaN or inf)")
    if noise == "bernoulli" and (mu.min() < 0 or mu.max() > 1):
        raise ValueError(f"mu must lie in [0, 1] for Bernoulli rewards, got values in [{mu.min()}, {mu.max()}]")
    return mu


def _check_sd(noise_sd) -> float:
    if isinstance(noise_sd, bool) or not isinstance(noise_sd, (int, float, np.integer, np.floating)):
        raise TypeError(f"noise_sd must be a real number, got {type(noise_sd).__name__}")
    if not np.isfinite(noise_sd) or noise_sd <= 0:
        raise ValueError(f"noise_sd must be a finite number > 0, got {noise_sd!r}")
    return float(noise_sd)


def _check_actions(actions, d: int) -> np.ndarray:
    raw = np.asarray(actions)
    if raw.dtype.kind not in "biuf":
        raise TypeError(f"actions must be a numeric 0/1 matrix, got dtype {raw.dtype}")
    A = raw.astype(np.float64)
    if A.ndim != 2 or A.shape[1] != d or A.shape[0] < 1:
        raise ValueError(f"actions must be a (K, d={d}) 0/1 matrix with K >= 1, got shape {A.shape}")
    if not np.all((A == 0) | (A == 1)):
        raise ValueError("actions must contain only 0 and 1")
    if np.any(A.sum(axis=1) < 1):
        raise ValueError("every action (row of actions) must contain at least one arm")
    return A


def explicit_bandit(mu, actions, noise: str = "bernoulli", noise_sd: float = 0.5,
                    name: str = "explicit") -> SemiBandit:
    """A semi-bandit with an explicit action set.

    Parameters
    ----------
    mu : (d,) arm means; in [0, 1] for Bernoulli rewards.
    actions : (K, d) 0/1 matrix, K ≥ 1, every row with at least one arm.
    noise : 'bernoulli' or 'gaussian'.   noise_sd : Gaussian noise sd > 0.

    Raises
    ------
    ValueError for an unknown noise, means outside [0, 1] (Bernoulli), a wrong shape or non-0/1 entries.
    """
    A = _check_actions(actions, _check_mu(mu, noise).size)
    return SemiBandit(mu=mu, m=int(A.sum(axis=1).max()), actions=A, noise=noise, noise_sd=noise_sd, name=name)


def two_sets(m: int, mu_low: float = 0.7, mu_high: float = 0.9, noise: str = "bernoulli",
             noise_sd: float = 0.5) -> SemiBandit:
    """The paper's paradox instance (Sec. 6; Zhang & Combes 2021): d = 2m arms, two disjoint decisions.

    A_1 = arms 0..m−1 with mean ``mu_low`` each, A* = arms m..2m−1 with mean ``mu_high`` each, so
    Δ_min = Δ_max = (mu_high − mu_low) · m (0.2 m with the paper's 0.7 / 0.9).

    Raises
    ------
    ValueError if m < 1 or the means are outside [0, 1] for Bernoulli rewards; TypeError if a mean is not a
    real number.
    """
    m = check_positive_int("m", m)
    for name, value in (("mu_low", mu_low), ("mu_high", mu_high)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must be a real number, got {type(value).__name__}")
    mu = np.concatenate([np.full(m, float(mu_low)), np.full(m, float(mu_high))])
    A = np.zeros((2, 2 * m))
    A[0, :m] = 1.0
    A[1, m:] = 1.0
    return explicit_bandit(mu, A, noise=noise, noise_sd=noise_sd, name=f"two sets, m = {m}")


def top_m_bandit(mu, m: int, noise: str = "bernoulli", noise_sd: float = 0.5) -> SemiBandit:
    """All m-subsets of the d arms ("m-sets"), solved by the top-m oracle (the m largest θ_i).

    Raises
    ------
    ValueError if m < 1 or m > d, or for bad means / noise (see :func:`explicit_bandit`).
    """
    mu = _check_mu(mu, noise)
    return SemiBandit(mu=mu, m=check_positive_int("m", m), actions=None, noise=noise, noise_sd=noise_sd,
                      name=f"top-{m} of {mu.size}")
