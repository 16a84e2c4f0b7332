"""B-CTS, BG-CTS, G-CTS, ESCB and CUCB, advancing R independent runs at once (paper Sec. 3, Alg. 1–2).

Every policy keeps, per run and arm, the count N_i and the reward sum S_i (so μ̂_i = S_i / N_i), as (R, d)
float64 arrays. Each round it builds one vector per run — a posterior sample θ (the two Thompson samplings)
or an optimistic index (CUCB) — and hands it to the bandit's oracle; ESCB instead scores every decision.
An arm never observed gets θ_i = +inf, so every arm is tried before indices are compared (Alg. 2).

Conventions, checked against the paper (NeurIPS camera-ready, Sec. 3.4 and App. D) and the authors' code
(github.com/RaymZhang/CTS-Mismatched-Paradox, ``CTSCode.ipynb``, functions ``fbonuses``/``gbonuses``):

- f(t) = (1 + λ) [ln t + (m + 2) ln ln t + (m/2) ln(1 + e/λ)] — e *divided by* λ; the code drops the last
  term at λ = 0 (the value its experiments use), and reads t < e as t = e;
- g(t) = f(t) / ln t, with ln t read as 1 for t < 2 (the code's guard against ln 1 = 0);
- BG-CTS samples θ_i ~ N(μ̂_i, 2 g(t) σ² / N_i); the code computes 2f as one number, which is the same;
- G-CTS (Sec. 3.3, the Gaussian posterior without the boost) samples θ_i ~ N(μ̂_i, σ² / N_i).

The kind 'escb_code' is a model of the authors' ESCB *as written* (an indexing bug, see
:mod:`neurips24.cts.escb_code`); only the decision-level two-set simulator (:mod:`neurips24.cts.two_set_runs`)
runs it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .bandit import SemiBandit, _xp, check_positive_int, sequential_action_sums

POLICIES = ("bcts", "bgcts", "gcts", "escb", "escb_code", "cucb")
LAMBDA_KINDS = ("bgcts", "escb", "escb_code")     # the policies whose f(t) has a λ
PRIORS = {"uniform": (1.0, 1.0), "jeffreys": (0.5, 0.5)}
CUCB_C = 1.5        # the authors' CUCB index μ̂ + σ √(1.5 ln t / N)


def _is_real(x) -> bool:
    return not isinstance(x, bool) and isinstance(x, (int, float, np.integer, np.floating))


def _check_t(t) -> float:
    if not _is_real(t) or not np.isfinite(t) or t < 1:
        raise ValueError(f"t must be a round index >= 1 (a real number), got {t!r}")
    return float(t)


def _check_t_array(t):
    """t as a float or a 1-D float64 array (rounds ≥ 1, finite); ValueError naming t otherwise."""
    if np.ndim(t) == 0:
        return _check_t(t)
    arr = np.asarray(t)
    if arr.ndim != 1 or arr.dtype.kind not in "iuf" or arr.size < 1:
        raise ValueError(f"t must be a round index >= 1 or a 1-D array of them, got shape {arr.shape}, "
                         f"dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)) or arr.min() < 1:
        raise ValueError("t must hold finite round indices >= 1")
    return arr


def _check_lam(lam) -> float:
    if not _is_real(lam):
        raise TypeError(f"lam (λ) must be a real number >= 0, got {type(lam).__name__}")
    if not np.isfinite(lam) or lam < 0:
        raise ValueError(f"lam (λ) must be a finite number >= 0, got {lam!r}")
    return float(lam)


def f_bonus(t, m: int, lam: float = 0.0):
    """The exploration function f(t) of BG-CTS and ESCB (paper Sec. 3.4, eq. of g(t); App. D, Lemma F.1).

    f(t) = (1 + λ) (ln t + (m + 2) ln ln t + (m / 2) ln(1 + e / λ)),

    with t < e read as t = e (so ln ln t ≥ 0) and, at λ = 0, the λ-term dropped (it is +inf there); both
    conventions are the authors' code's.

    Parameters
    ----------
    t : round index, t ≥ 1 (1-based: the first round is t = 1), or a 1-D array of them.
    m : decision size m ≥ 1 (the largest |A|; for ESCB the size of the decision scored).
    lam : λ ≥ 0; the theorem uses λ = 1, the paper's experiments λ = 0.

    Returns
    -------
    float (or float64 array shaped like t), dimensionless, ≥ 1 + λ.

    Raises
    ------
    ValueError if t < 1, m < 1 or lam < 0 (naming the argument); TypeError if lam is not a real number.
    """
    t = np.maximum(_check_t_array(t), math.e)
    m = check_positive_int("m", m)
    lam = _check_lam(lam)
    extra = 0.0 if lam == 0 else (m / 2) * math.log1p(math.e / lam)
    f = (1 + lam) * (np.log(t) + (m + 2) * np.log(np.log(t)) + extra)
    return float(f) if np.ndim(f) == 0 else f


def g_scale(t, m: int, lam: float = 0.0):
    """The variance inflation g(t) = f(t) / ln t of BG-CTS (paper Sec. 3.4), ln t read as 1 for t < 2.

    g(t) → 1 + λ as t → ∞. Parameters, units and errors as for :func:`f_bonus` (t may be an array).
    """
    f = f_bonus(t, m, lam)
    t = _check_t_array(t)
    g = f / np.where(t < 2, 1.0, np.log(np.maximum(t, 2.0)))
    return float(g) if np.ndim(g) == 0 else g


@dataclass(frozen=True)
class Policy:
    """One algorithm with its parameters (build it with :func:`make_policy`).

    kind : one of POLICIES.   prior : 'uniform' | 'jeffreys' (B-CTS only).
    lam : λ of f(t) (BG-CTS, ESCB).   sigma : the σ the algorithm assumes (σ = 1/2 for Bernoulli rewards).
    """

    kind: str
    prior: str | None = None
    lam: float = 0.0
    sigma: float = 0.5

    @property
    def label(self) -> str:
        """The paper's name: 'B-CTS-Uniform', 'B-CTS-Jeffreys', 'BG-CTS', 'G-CTS', 'ESCB', 'CUCB'; a λ other than
        the experiments' 0 is appended ('BG-CTS (λ=1)'), and the model of the authors' code is 'ESCB (as written)'."""
        if self.kind == "bcts":
            return f"B-CTS-{self.prior.capitalize()}"
        name = {"bgcts": "BG-CTS", "gcts": "G-CTS", "escb": "ESCB", "escb_code": "ESCB (as written)",
                "cucb": "CUCB"}[self.kind]
        return name if self.lam == 0 else f"{name} (λ={self.lam:g})"


def make_policy(kind: str, prior: str | None = None, lam: float = 0.0, sigma: float = 0.5) -> Policy:
    """A checked :class:`Policy`.

    Parameters
    ----------
    kind : 'bcts' (Sec. 3.2), 'bgcts' (Sec. 3.4, Alg. 2), 'gcts' (Sec. 3.3), 'escb', 'escb_code' (the authors'
        ESCB as written, :mod:`~neurips24.cts.escb_code`) or 'cucb'.
    prior : B-CTS only: 'uniform' (default) or 'jeffreys'.
    lam : λ ≥ 0 of f(t); only for 'bgcts', 'escb', 'escb_code' (the others have no λ).
    sigma : σ > 0, the sub-Gaussian scale the algorithm assumes (1/2 for Bernoulli rewards).

    Raises
    ------
    ValueError for an unknown ``kind`` (accepted: POLICIES), an unknown ``prior`` for B-CTS (accepted:
    'uniform', 'jeffreys'), a prior for another kind, lam < 0 or a λ for a kind without one, sigma ≤ 0 or not
    finite; TypeError if lam or sigma is not a real number.
    """
    if not isinstance(kind, str) or kind not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, got {kind!r}")
    if kind == "bcts":
        prior = "uniform" if prior is None else prior
        if not isinstance(prior, str) or prior not in PRIORS:
            raise ValueError(f"prior must be one of {tuple(PRIORS)}, got {prior!r}")
    elif prior is not None:
        raise ValueError(f"prior applies only to 'bcts', got prior={prior!r} for {kind!r}")
    lam = _check_lam(lam)
    if lam != 0 and kind not in LAMBDA_KINDS:
        raise ValueError(f"lam applies only to {LAMBDA_KINDS}, got lam={lam!r} for {kind!r}")
    if not _is_real(sigma):
        raise TypeError(f"sigma must be a real number > 0, got {type(sigma).__name__}")
    if not np.isfinite(sigma) or sigma <= 0:
        raise ValueError(f"sigma must be a finite number > 0, got {sigma!r}")
    return Policy(kind=kind, prior=prior, lam=lam, sigma=float(sigma))


def paper_policies() -> list[Policy]:
    """The five policies of the experiments: B-CTS (uniform, Jeffreys), BG-CTS, ESCB (λ = 0, σ = 1/2), CUCB."""
    return [make_policy("bcts", "uniform"), make_policy("bcts", "jeffreys"), make_policy("bgcts"),
            make_policy("escb"), make_policy("cucb")]


def beta_posterior(N, S, prior: str):
    """Beta posterior of B-CTS: α = α₀ + S_i, β = β₀ + N_i − S_i (paper Sec. 3.2; Bernoulli rewards).

    Parameters
    ----------
    N, S : (R, d) float64 counts and reward sums.   prior : 'uniform' (α₀ = β₀ = 1) or 'jeffreys' (½, ½).

    Returns
    -------
    alpha, beta : (R, d) float64.
    """
    if prior not in PRIORS:
        raise ValueError(f"prior must be one of {tuple(PRIORS)}, got {prior!r}")
    a0, b0 = PRIORS[prior]
    return a0 + S, b0 + N - S


def draw_noise(policy: Policy, N, S, rng):
    """The randomness one round of ``policy`` consumes, for all runs: a pair (u1, u2) of (R, d) arrays or None.

    B-CTS: u1 ~ Gamma(α), u2 ~ Gamma(β) (so θ = u1 / (u1 + u2) ~ Beta(α, β)); BG-CTS and G-CTS: u1 ~ N(0, 1);
    ESCB and CUCB: none. Drawing it apart from the update lets the CUDA step and its NumPy reference share it.
    """
    if policy.kind == "bcts":
        alpha, beta = beta_posterior(N, S, policy.prior)
        return rng.standard_gamma(alpha), rng.standard_gamma(beta)
    if policy.kind in ("bgcts", "gcts"):
        return rng.standard_normal(N.shape), None
    return None, None


def bcts_theta(gamma_a, gamma_b):
    """B-CTS sample θ_i = G_a / (G_a + G_b) ~ Beta(α_i, β_i) from Gamma(α_i), Gamma(β_i) draws: (R, d)."""
    return gamma_a / (gamma_a + gamma_b)


def gaussian_scale(policy: Policy, t, m: int) -> float:
    """c_t, the per-round numerator of the sd: σ √(2 g(t)) (BG-CTS), σ (G-CTS) or σ √(1.5 ln t) (CUCB).

    Raises
    ------
    ValueError for another kind, t < 1 or m < 1.
    """
    if policy.kind == "bgcts":
        return policy.sigma * math.sqrt(2.0 * g_scale(t, m, policy.lam))
    if policy.kind == "gcts":
        _check_t(t)
        return policy.sigma
    if policy.kind == "cucb":
        return policy.sigma * math.sqrt(CUCB_C * math.log(_check_t(t)))
    raise ValueError(f"gaussian_scale applies to 'bgcts', 'gcts' and 'cucb', got {policy.kind!r}")


def bgcts_theta(N, S, Z, c_t: float):
    """BG-CTS sample θ_i = μ̂_i + (c_t / √N_i) Z_i, i.e. N(μ̂_i, 2 g(t) σ² / N_i) (Alg. 2), +inf where N_i = 0.

    N, S, Z : (R, d) float64; c_t = σ √(2 g(t)) (:func:`gaussian_scale`); with c_t = σ it is G-CTS's sample
    N(μ̂_i, σ² / N_i). Returns (R, d) float64.
    """
    xp = _xp(N)
    played = N > 0
    n = xp.where(played, N, 1.0)
    return xp.where(played, S / n + (c_t / xp.sqrt(n)) * Z, xp.inf)


def cucb_index(N, S, c_t: float):
    """CUCB index μ̂_i + c_t / √N_i with c_t = σ √(1.5 ln t), +inf where N_i = 0: (R, d) float64."""
    xp = _xp(N)
    played = N > 0
    n = xp.where(played, N, 1.0)
    return xp.where(played, S / n + c_t / xp.sqrt(n), xp.inf)


def escb_coefficients(policy: Policy, bandit: SemiBandit, t) -> np.ndarray:
    """(K,) float64, σ √(2 f(t, |A_k|, λ)) for every decision (the authors' ESCB: f is computed at m = |A|)."""
    sizes = bandit.actions.sum(axis=1).astype(int)
    return np.array([policy.sigma * math.sqrt(2.0 * f_bonus(t, int(s), policy.lam)) for s in sizes])


def escb_scores(N, S, actions, coef):
    """ESCB index of every decision, Σ_{i∈A} μ̂_i + coef_A √(Σ_{i∈A} 1/N_i) (Combes et al. 2015; paper Sec. 6).

    Parameters
    ----------
    N, S : (R, d) float64.   actions : (K, d) 0/1.   coef : (K,) float64 from :func:`escb_coefficients`.

    Returns
    -------
    (R, K) float64; +inf for a decision that holds an unplayed arm. Sums run over arms in order (kernel parity).
    """
    xp = _xp(N)
    played = N > 0
    n = xp.where(played, N, 1.0)
    mean = xp.where(played, S / n, 0.0)
    inv = xp.where(played, 1.0 / n, 0.0)
    A = xp.asarray(actions)
    scores = sequential_action_sums(mean, A) + xp.asarray(coef) * xp.sqrt(sequential_action_sums(inv, A))
    hidden = (~played).astype(xp.float64) @ A.T > 0
    return xp.where(hidden, xp.inf, scores)


def select(policy: Policy, bandit: SemiBandit, N, S, t, noise):
    """One decision per run: (mask (R, d) 0/1 float64, index (R,) int64 or None).

    ``noise`` is what :func:`draw_noise` returned for this round. ESCB needs an explicit action set (its
    index is not a sum over arms, so the top-m oracle cannot maximise it): ValueError otherwise.
    """
    xp = _xp(N)
    u1, u2 = noise
    if policy.kind == "escb_code":
        raise ValueError("the as-written ESCB model ('escb_code') runs only in cts.two_set_runs (two-set instance)")
    if policy.kind == "escb":
        if bandit.actions is None:
            raise ValueError("ESCB needs an explicit action matrix (actions); a top-m oracle cannot maximise "
                             "its index")
        scores = escb_scores(N, S, bandit.actions, escb_coefficients(policy, bandit, t))
        index = xp.argmax(scores, axis=1)
        return xp.asarray(bandit.actions)[index], index
    if policy.kind == "bcts":
        if bandit.noise != "bernoulli":
            raise ValueError("B-CTS (Beta posterior) needs Bernoulli rewards; use noise='bernoulli' or BG-CTS")
        theta = bcts_theta(u1, u2)
    elif policy.kind in ("bgcts", "gcts"):
        theta = bgcts_theta(N, S, u1, gaussian_scale(policy, t, bandit.m))
    else:
        theta = cucb_index(N, S, gaussian_scale(policy, t, bandit.m))
    return bandit.oracle(theta)


def update(N, S, mask, X) -> None:
    """Semi-bandit update, in place: N_i += 1 and S_i += X_i for every arm i of the played decision."""
    N += mask
    S += mask * X
