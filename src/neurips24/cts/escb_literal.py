"""The authors' ESCB class, transcribed literally, and a run-by-run replay of the package's models against it.

Source: the official code of the paper, github.com/RaymZhang/CTS-Mismatched-Paradox, ``CTSCode.ipynb`` (last
commit c10df02): the functions ``fbonuses`` and ``ESCBbonus`` and, of the class ``cbanditsAlgo``, what its
``reset``, ``select`` and ``update`` do for ``policy == 'escb'`` on the two-set instance (``name == 'twosets'``)
with the experiments' parameters (σ = max of ``sigmas`` = ½, λ = 0). :class:`LiteralESCB` keeps the class's
full length-d arrays and indexes them as the class does — with *integer* 0/1 vectors, the bug the chapter
describes — written here line for line rather than reasoned about. Nothing of :mod:`neurips24.cts.escb_code` (the
vectorised model that draws the chapter's ESCB curve) is used, so the two can be compared:

- :func:`replay` runs R copies of the class and the package's models on the same rewards and records, run by
  run, whether each model plays exactly the class's sequence of decisions: the vectorised model of the code as
  written (``'as written'``: :func:`~neurips24.cts.escb_code.choose_as_written` and
  :func:`~neurips24.cts.escb_code.update_as_written`, looked up when called) and ESCB as intended
  (``'intended'``, Combes et al. 2015: :func:`~neurips24.cts.policies.select` with the arm-level index
  :func:`~neurips24.cts.policies.escb_scores`), which must not match.

The class runs one run at a time in Python (about 60 µs per run and round, both models included, on one core),
so a replay is sized in tens of thousands of run-rounds, not the paper's 1.5 million.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .bandit import check_positive_int, two_sets

MODELS = ("as written", "intended")


def fbonuses(t, m, lamda=0.0):
    """The code's ``fbonuses``, verbatim: 2 f(t) = (1 + λ) · 2 · (ln t + (m + 2) ln ln t + (m/2) ln(1 + e/λ)),
    with t < e read as e and the λ-term dropped at λ = 0. No checks (the class calls it with its own t, m)."""
    if t < np.exp(1):
        t = np.exp(1)
    if lamda == 0:
        cst = 0
    else:
        cst = np.log(1 + np.exp(1) / lamda)
    f = (1 + lamda) * 2 * (np.log(t) + (m + 2) * np.log(np.log(t)) + m / 2 * cst)
    return f


def escb_bonus(t, muhats, indexes, N, lamda=0.0, sigma=1):
    """The code's ``ESCBbonus``, verbatim: ``np.sum(muhats[indexes]) + sigma * sqrt(f * np.sum(1 / N[indexes]))``
    with m = ``np.sum(indexes)``. ``indexes`` is the class's integer 0/1 vector: used as an index, it reads
    elements 0 and 1 of ``muhats`` and ``N``, not the decision's arms (the bug)."""
    m = np.sum(indexes)
    f = fbonuses(t, m, lamda)
    return np.sum(muhats[indexes]) + sigma * np.sqrt(f * np.sum(1 / N[indexes]))


def _decision(k: int, m: int) -> np.ndarray:
    """The class's vector of decision k (0: A_1, the first m arms; 1: A*, the last m): int 0/1, length 2m."""
    return np.concatenate([np.ones(m, dtype=int) * (1 - k), np.ones(m, dtype=int) * k])


class LiteralESCB:
    """One run of the authors' ESCB (``cbanditsAlgo(problem, 'escb', ...)``) on the two-set instance, literally.

    Attributes, as the class names them: ``muhats`` (2m,) float64, ``N`` (2m,) float64 (10⁻⁸ before an arm's
    first play, the code's "hack to avoid division by 0"), ``t`` (the round, from 1), ``bestdecision`` (0: A_1,
    1: A*, after :meth:`select`).

    Parameters
    ----------
    m : decision size, an integer >= 2 (d = 2m arms).   sigma : the code's σ (½ in the experiments).
    lamda : the code's λ (0 in the experiments).

    Raises
    ------
    ValueError if m is not an integer >= 2 (with m = 1 element 1 would be A*'s arm), or sigma / lamda is not a
    finite number (sigma > 0, lamda >= 0).
    """

    def __init__(self, m: int, sigma: float = 0.5, lamda: float = 0.0):
        m = check_positive_int("m", m)
        if m < 2:
            raise ValueError(f"m must be an integer >= 2 (the class indexes elements 0 and 1), got {m}")
        for name, value, low_ok in (("sigma", sigma, False), ("lamda", lamda, True)):
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                    or not np.isfinite(value) or value < 0 or (value == 0 and not low_ok):
                raise ValueError(f"{name} must be a finite number {'>= 0' if low_ok else '> 0'}, got {value!r}")
        self.m, self.d = m, 2 * m
        self.shape = self.d
        self.sigma, self.lamda = float(sigma), float(lamda)
        self.reset()

    def reset(self) -> None:
        """``cbanditsAlgo.reset``: μ̂ = 0, t = 1, N = 10⁻⁸."""
        self.muhats = np.zeros(self.d)
        self.t = 1
        self.N = np.ones(self.shape) * 10 ** (-8)

    def select(self) -> np.ndarray:
        """``cbanditsAlgo.select`` for ESCB: ``argmax`` of the two decisions' ``ESCBbonus`` (ties to A_1); returns
        the played decision as the class's int 0/1 vector of length 2m."""
        ind1 = np.concatenate([np.ones(self.m, dtype=int), np.zeros(self.m, dtype=int)])
        ind2 = np.concatenate([np.zeros(self.m, dtype=int), np.ones(self.m, dtype=int)])
        self.bestdecision = np.argmax([escb_bonus(self.t, self.muhats, ind1, self.N, lamda=self.lamda,
                                                  sigma=self.sigma),
                                       escb_bonus(self.t, self.muhats, ind2, self.N, lamda=self.lamda,
                                                  sigma=self.sigma)])
        indexes = np.concatenate([np.ones(self.m, dtype=int) * (1 - self.bestdecision),
                                  np.ones(self.m, dtype=int) * self.bestdecision])
        return indexes

    def update(self, indexes, rewards) -> None:
        """``cbanditsAlgo.update`` for ESCB, line for line: t += 1; the N-hack correction (whose second line
        indexes N with an int array: the phantom pulls on elements 0 and 1), then μ̂ of the played arms.

        Parameters
        ----------
        indexes : (2m,) int 0/1, the played decision (what :meth:`select` returned).
        rewards : (2m,) float, the rewards of *all* arms this round (the class receives them all).

        Raises
        ------
        ValueError if ``indexes`` is not a (2m,) 0/1 integer vector or ``rewards`` not a (2m,) finite array.
        """
        idx = np.asarray(indexes)
        if idx.shape != (self.d,) or idx.dtype.kind not in "iu" or not np.all((idx == 0) | (idx == 1)):
            raise ValueError(f"indexes must be a ({self.d},) integer 0/1 vector (the class's decision), got "
                             f"shape {idx.shape}, dtype {idx.dtype}")
        rewards = np.asarray(rewards, dtype=float)
        if rewards.shape != (self.d,) or not np.all(np.isfinite(rewards)):
            raise ValueError(f"rewards must be a ({self.d},) finite array (every arm's reward), got shape "
                             f"{rewards.shape}")
        indexes = idx
        self.t += 1
        if (self.N[indexes == 1] < 0.5).any():
            # correct the hack to avoid division by 0
            self.N[(indexes == 1) & (self.N < 0.5)] = 1
            self.N[(indexes == 1) & (1 - (self.N < 0.5))] += 1
        else:
            self.N[indexes == 1] += 1
        self.muhats[indexes == 1] = (self.muhats[indexes == 1] * (self.N[indexes == 1] - 1)
                                     + rewards[indexes == 1]) / self.N[indexes == 1]


@dataclass
class Replay:
    """One :func:`replay`: R runs of the class and of each model on shared rewards at decision size m.

    identical : model -> (R,) bool, whether the model played the class's decision in every round of that run.
    first_divergence : model -> (R,) int64, the first round t at which it did not (T + 1 if never).
    literal_star : (R,) int64, the number of rounds in which the class played A*.
    """

    m: int
    T: int
    R: int
    seed: int
    identical: dict
    first_divergence: dict
    literal_star: np.ndarray

    def differ(self, model: str) -> int:
        """Number of runs in which ``model`` left the class's sequence (ValueError for an unknown model)."""
        if model not in self.identical:
            raise ValueError(f"model must be one of {tuple(self.identical)}, got {model!r}")
        return int((~self.identical[model]).sum())


def replay(m: int, T: int, R: int, seed: int, models=MODELS, mu_low: float = 0.7,
           mu_high: float = 0.9) -> Replay:
    """Replay R runs of :class:`LiteralESCB` against the package's models, round by round, on shared rewards.

    Each round draws one Bernoulli reward vector per run (arms 0..m−1 with mean ``mu_low``, m..2m−1 with
    ``mu_high``, from ``numpy.random.default_rng(seed)``); the class and every model observe it. Each model keeps
    its own state and plays its own decisions, so a run that diverges once stays compared to the class.

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
        raise ValueError(f"m must be an integer >= 2 (the class indexes elements 0 and 1), got {m}")
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
    runs = [LiteralESCB(m) for _ in range(R)]
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
            indexes = run.select()
            lit[r] = int(run.bestdecision)
            run.update(indexes, X[r])
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
    return Replay(m=m, T=T, R=R, seed=int(seed), identical=identical, first_divergence=first, literal_star=star)
