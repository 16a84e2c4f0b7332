"""ESCB as the official code runs it, one run and one round at a time, and a replay of the package's models against it.

The chapter's ESCB curve comes from :mod:`neurips24.cts.escb_code`, a vectorised model (all runs at once, only
elements 0 and 1 of the state kept) of what the paper's official code (github.com/RaymZhang/CTS-Mismatched-Paradox,
``CTSCode.ipynb``, commit c10df02) does for ESCB on the two-set instance. :class:`ESCBOneRun` is a second,
independent model of the same behaviour, written here from that behaviour and not from either implementation: it
keeps the full length-d = 2m state of one run, hands each decision to the index as an integer 0/1 vector, and
lets NumPy read that vector as *positions*, which is the mechanism of the bug the chapter describes. It shares no
code with :mod:`~neurips24.cts.escb_code`, so the two can check each other run by run:

- :func:`replay` runs R copies of :class:`ESCBOneRun` and the package's models on the same rewards and records,
  run by run, whether each model plays exactly the same decisions: the vectorised model of the code as written
  (``'as written'``: :func:`~neurips24.cts.escb_code.choose_as_written` and
  :func:`~neurips24.cts.escb_code.update_as_written`, looked up when called) and ESCB as intended
  (``'intended'``, Combes et al. 2015: :func:`~neurips24.cts.policies.select` with the arm-level index
  :func:`~neurips24.cts.policies.escb_scores`), which must not match.

:class:`ESCBOneRun` runs in Python one run at a time (about 60 µs per run and round, both models included, on one
core), so a replay is sized in tens of thousands of run-rounds, not the paper's 1.5 million.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .bandit import check_positive_int, two_sets

MODELS = ("as written", "intended")
UNSEEN = 1e-8        # the code's count of an arm never played (it avoids a division by zero)


def exploration(t: float, m: int, lam: float = 0.0) -> float:
    """The code's exploration term 2 f(t) = 2 (1 + λ)(ln t + (m + 2) ln ln t + (m/2) ln(1 + e/λ)), the last term
    left out at λ = 0, and t read as e below e (so that ln ln t >= 0). NumPy's log, as in the vectorised model.

    Parameters: t > 0 the round; m the decision size; λ >= 0 (0 in the paper's experiments). No checks: called by
    :class:`ESCBOneRun` with its own values. Returns a float.
    """
    t = max(float(t), float(np.e))
    extra = 0.0 if lam == 0 else m / 2 * np.log(1 + np.e / lam)
    return float((1 + lam) * 2 * (np.log(t) + (m + 2) * np.log(np.log(t)) + extra))


def index_as_run(t: float, mu: np.ndarray, N: np.ndarray, vector: np.ndarray, sigma: float,
                 lam: float = 0.0) -> float:
    """ESCB's index of a decision as the code evaluates it: Σ μ̂[v] + σ √(2f(t) Σ 1/N[v]) with m = Σ v.

    ``vector`` is the decision's integer 0/1 vector v of length d. Indexing with it reads *positions* 0 and 1, not
    the decision's arms: both decisions of the two-set instance then sum the same 2m values (m copies each of
    elements 0 and 1), in another order, so float rounding decides between them (the chapter's Sec. on the bug).

    Parameters: mu, N (d,) float64; vector (d,) int 0/1. No checks (called by :class:`ESCBOneRun`). Returns a float.
    """
    gathered_mu, gathered_N = mu[vector], N[vector]
    return float(np.sum(gathered_mu) + sigma * np.sqrt(exploration(t, int(np.sum(vector)), lam)
                                                       * np.sum(1 / gathered_N)))


def decision_vector(k: int, m: int) -> np.ndarray:
    """Decision k of the two-set instance as the code builds it (0: A_1, the first m arms; 1: A*, the last m):
    an int64 0/1 vector of length 2m."""
    first = np.full(m, 1 - k, dtype=np.int64)
    return np.concatenate([first, 1 - first])


class ESCBOneRun:
    """One run of ESCB as the official code executes it on the two-set instance (see the module's docstring).

    State: ``mu`` (2m,) float64 running means, ``N`` (2m,) float64 counts (:data:`UNSEEN` before an arm's first
    play), ``t`` the round (from 1), ``decision`` (0: A_1, 1: A*; after :meth:`choose`).

    Behaviour, round by round:

    - :meth:`choose`: the larger of the two decisions' :func:`index_as_run`, ties to A_1 (``argmax``).
    - :meth:`observe`: t grows by one. If some played arm was never played before, those arms' counts become 1,
      and the code's "every other played arm gains a pull" step, whose mask is an *integer* array of the played
      indicator, adds one count at positions 0 and 1 instead (the phantom pulls) and none to the played arms.
      Otherwise every played arm's count grows by one. The played arms' means are then the running means with the
      new counts, μ̂ ← (μ̂ (N − 1) + X) / N.

    Parameters
    ----------
    m : decision size, an integer >= 2 (d = 2m arms).   sigma : σ of the index (½ in the paper's experiments).
    lam : λ of the exploration term (0 in the paper's experiments).

    Raises
    ------
    ValueError if m is not an integer >= 2 (with m = 1 position 1 would be an arm of A*), or sigma / lam is not a
    finite number (sigma > 0, lam >= 0).
    """

    def __init__(self, m: int, sigma: float = 0.5, lam: float = 0.0):
        m = check_positive_int("m", m)
        if m < 2:
            raise ValueError(f"m must be an integer >= 2 (positions 0 and 1 are read), got {m}")
        for name, value, zero_ok in (("sigma", sigma, False), ("lam", lam, True)):
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                    or not np.isfinite(value) or value < 0 or (value == 0 and not zero_ok):
                raise ValueError(f"{name} must be a finite number {'>= 0' if zero_ok else '> 0'}, got {value!r}")
        self.m, self.d = m, 2 * m
        self.sigma, self.lam = float(sigma), float(lam)
        self.mu = np.zeros(self.d)
        self.N = np.full(self.d, UNSEEN)
        self.t = 1
        self.decision = 0
        self._vectors = (decision_vector(0, m), decision_vector(1, m))

    def choose(self) -> np.ndarray:
        """The decision of this round (stored in ``decision``); returns its int64 0/1 vector of length 2m."""
        scores = [index_as_run(self.t, self.mu, self.N, v, self.sigma, self.lam) for v in self._vectors]
        self.decision = int(np.argmax(scores))
        return self._vectors[self.decision]

    def observe(self, vector, rewards) -> None:
        """Update with the played decision's vector and every arm's reward of this round (see the class).

        Parameters
        ----------
        vector : (2m,) int 0/1, the played decision (what :meth:`choose` returned).
        rewards : (2m,) float, the rewards of *all* arms this round.

        Raises
        ------
        ValueError if ``vector`` is not a (2m,) 0/1 integer vector or ``rewards`` not a (2m,) finite array.
        """
        v = np.asarray(vector)
        if v.shape != (self.d,) or v.dtype.kind not in "iu" or not np.all((v == 0) | (v == 1)):
            raise ValueError(f"vector must be a ({self.d},) integer 0/1 vector (a decision), got shape {v.shape}, "
                             f"dtype {v.dtype}")
        x = np.asarray(rewards, dtype=float)
        if x.shape != (self.d,) or not np.all(np.isfinite(x)):
            raise ValueError(f"rewards must be a ({self.d},) finite array (every arm's reward), got shape {x.shape}")
        self.t += 1
        played = v == 1
        first_play = played & (self.N < 0.5)
        if first_play.any():
            self.N[first_play] = 1.0
            # the mask of "played and seen before" comes out as an int 0/1 array: read as positions, it adds one
            # count at each distinct value, i.e. at positions 0 and 1 (once each), and none to the played arms
            positions = np.unique((played & (self.N >= 0.5)).astype(np.int64))
            self.N[positions] += 1.0
        else:
            self.N[played] += 1.0
        self.mu[played] = (self.mu[played] * (self.N[played] - 1) + x[played]) / self.N[played]


@dataclass
class Replay:
    """One :func:`replay`: R runs of the one-run model and of each package model on shared rewards at decision size m.

    identical : model -> (R,) bool, whether the model played the one-run model's decision in every round of that run.
    first_divergence : model -> (R,) int64, the first round t at which it did not (T + 1 if never).
    star_rounds : (R,) int64, the number of rounds in which the one-run model played A*.
    """

    m: int
    T: int
    R: int
    seed: int
    identical: dict
    first_divergence: dict
    star_rounds: np.ndarray

    def differ(self, model: str) -> int:
        """Number of runs in which ``model`` left the one-run model's sequence (ValueError for an unknown model)."""
        if model not in self.identical:
            raise ValueError(f"model must be one of {tuple(self.identical)}, got {model!r}")
        return int((~self.identical[model]).sum())


def replay(m: int, T: int, R: int, seed: int, models=MODELS, mu_low: float = 0.7,
           mu_high: float = 0.9) -> Replay:
    """Replay R runs of :class:`ESCBOneRun` against the package's models, round by round, on shared rewards.

    Each round draws one Bernoulli reward vector per run (arms 0..m−1 with mean ``mu_low``, m..2m−1 with
    ``mu_high``, from ``numpy.random.default_rng(seed)``); the one-run model and every package model observe it.
    Each model keeps its own state and plays its own decisions, so a run that diverges once stays compared to the
    one-run model.

    Parameters
    ----------
    m : decision size >= 2.   T : rounds >= 1.   R : runs >= 1.   seed : int >= 0.
    models : names from :data:`MODELS` ('as written': the vectorised model of ``neurips24.cts.escb_code``;
        'intended': ESCB as Combes et al. 2015 define it), at least one.
    mu_low, mu_high : the two decisions' arm means, in [0, 1], mu_low < mu_high.

    Returns
    -------
    :class:`Replay`.

    Raises
    ------
    ValueError for m < 2, T < 1, R < 1, a bad seed, an unknown or empty ``models``, or bad means.
    """
    # escb_code's functions are looked up at call time: a patched model is the one replayed
    from . import escb_code
    from .policies import make_policy, select, update

    m = check_positive_int("m", m)
    if m < 2:
        raise ValueError(f"m must be an integer >= 2 (positions 0 and 1 are read), got {m}")
    T = check_positive_int("T", T)
    R = check_positive_int("R", R)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    if isinstance(models, str) or not models or any(k not in MODELS for k in models):
        raise ValueError(f"models must be a non-empty sequence of names from {MODELS}, got {models!r}")
    models = tuple(dict.fromkeys(models))
    bandit = two_sets(m, mu_low, mu_high)         # checks the means
    if not mu_low < mu_high:
        raise ValueError(f"need mu_low < mu_high (A* = the second half is optimal), got {mu_low}, {mu_high}")
    rng = np.random.default_rng(int(seed))
    runs = [ESCBOneRun(m) for _ in range(R)]
    mu01, N01, played = escb_code.initial_state(R)
    policy = make_policy("escb")
    N, S = np.zeros((R, 2 * m)), np.zeros((R, 2 * m))
    identical = {k: np.ones(R, dtype=bool) for k in models}
    first = {k: np.full(R, T + 1, dtype=np.int64) for k in models}
    star = np.zeros(R, dtype=np.int64)
    for t in range(1, T + 1):
        X = (rng.random((R, 2 * m)) < bandit.mu).astype(np.float64)
        lit = np.empty(R, dtype=np.int64)
        for r, run in enumerate(runs):
            vector = run.choose()
            lit[r] = run.decision
            run.observe(vector, X[r])
        star += lit
        chosen = {}
        if "as written" in models:
            k = escb_code.choose_as_written(mu01, N01, t, m)
            escb_code.update_as_written(mu01, N01, played, k, X[:, :2])
            chosen["as written"] = k
        if "intended" in models:
            mask, index = select(policy, bandit, N, S, t, (None, None))
            update(N, S, mask, X)
            chosen["intended"] = np.asarray(index, dtype=np.int64)
        for name, k in chosen.items():
            off = (k != lit) & identical[name]
            first[name][off] = t
            identical[name] &= k == lit
    return Replay(m=m, T=T, R=R, seed=int(seed), identical=identical, first_divergence=first, star_rounds=star)
