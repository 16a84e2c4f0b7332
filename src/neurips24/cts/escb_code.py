"""A model of the authors' ESCB *as written* — an indexing bug — beside the intended index (book's own finding).

The paper's ESCB curve (Fig. 1b: ≈ 115 / 90 / 150 / 440 at m = 5 / 25 / 45 / 65) comes from the ESCB class in the
official code (github.com/RaymZhang/CTS-Mismatched-Paradox, ``CTSCode.ipynb``: ``ESCBbonus`` and the shared
``update`` of ``cbanditsAlgo``). Read as written, on the two-set instance it does not compute ESCB:

1. **The index reads arms 0 and 1 only.** A decision is passed as an *integer* 0/1 vector of length d = 2m and used
   as an index, ``muhats[indexes]``: NumPy reads that as "element 0 or element 1", not as a mask. So both
   decisions' indices are sums of m copies of μ̂_1 and m copies of μ̂_0 (in opposite orders), plus
   σ √(f · Σ 1/N) over the same m copies of 1/N_1 and 1/N_0: equal in exact arithmetic. They differ only by the
   rounding of NumPy's pairwise summation, and ``argmax`` sends exact ties to the first decision, A_1 (the bad
   one). Arms 0 and 1 belong to A_1, so their statistics move only while A_1 is played.
2. **Phantom pulls.** The first time a decision is played, the line that fixes the N = 1e-8 start-up hack
   indexes N with an integer 0/1 array again, so it adds one pull to arms 0 and 1 instead of the played arms.

This module models exactly what the index reads — μ̂ and N of arms 0 and 1, and whether each decision has been
played — and sums them with NumPy in the code's order, so the rounding (which decides every choice) is the
code's. Nothing else of the class influences ESCB's decisions. The intended index (Combes et al. 2015, the
paper's eq. for ESCB) is :func:`neurips24.cts.policies.escb_scores`; :mod:`neurips24.cts.two_set_runs` runs
both on shared reward draws.
"""
from __future__ import annotations

import numpy as np

from .bandit import check_positive_int
from .policies import _check_lam, _check_t

N_START = 1e-8        # the code's N before an arm's first play ("hack to avoid division by 0")


def code_decision(k: int, m: int) -> np.ndarray:
    """The code's vector for decision k of the two-set instance: an int64 0/1 array of length 2m.

    k = 0 is A_1 = (1, …, 1, 0, …, 0), k = 1 is A* = (0, …, 0, 1, …, 1). Used as an *index* (the bug), its
    entries select elements 0 and 1.

    Raises
    ------
    ValueError if k is not 0 or 1, or m < 2 (with m = 1, arm 1 would be A*'s arm and the model below breaks).
    """
    if isinstance(k, bool) or k not in (0, 1):
        raise ValueError(f"k must be 0 (A_1) or 1 (A*), got {k!r}")
    m = _check_m(m)
    first = np.ones(m, dtype=np.int64) if k == 0 else np.zeros(m, dtype=np.int64)
    return np.concatenate([first, 1 - first])


def _check_m(m) -> int:
    m = check_positive_int("m", m)
    if m < 2:
        raise ValueError(f"m must be an integer >= 2 for the as-written ESCB model, got {m}")
    return m


def _check_state(**arrays) -> None:
    """Each array must be (R, 2) (arms 0 and 1, or decisions A_1 and A*), all with the same R."""
    rows = set()
    for name, a in arrays.items():
        if not isinstance(a, np.ndarray) or a.ndim != 2 or a.shape[1] != 2:
            raise ValueError(f"{name} must be an (R, 2) NumPy array, got {getattr(a, 'shape', type(a).__name__)}")
        rows.add(a.shape[0])
    if len(rows) > 1:
        raise ValueError(f"{', '.join(arrays)} must have the same number of runs R, got {sorted(rows)}")


def f_code(t, m: int, lam: float = 0.0) -> float:
    """The code's exploration term 2 f(t) (``fbonuses``): 2 (1 + λ)(ln t + (m + 2) ln ln t + (m/2) ln(1 + e/λ)).

    Computed with NumPy's scalar ``log``, in the code's order of operations (its rounding decides ties below);
    t < e is read as e and the λ-term is dropped at λ = 0, as in the code. Equal to
    ``2 * policies.f_bonus(t, m, lam)`` up to rounding.

    Raises
    ------
    ValueError if t < 1, m < 1 or lam < 0.
    """
    t = _check_t(t)
    m = check_positive_int("m", m)
    lam = _check_lam(lam)
    if t < np.exp(1):
        t = np.exp(1)
    cst = 0 if lam == 0 else np.log(1 + np.exp(1) / lam)
    return float((1 + lam) * 2 * (np.log(t) + (m + 2) * np.log(np.log(t)) + m / 2 * cst))


def code_sums(mu01, N01, m: int):
    """The two sums the code's ESCB value adds up, for both decisions: (mean, inv), each (R, 2) float64.

    Column k holds ``np.sum(muhats[idx])`` and ``np.sum(1/N[idx])`` with idx = :func:`code_decision` (k, m): m
    copies of arm 1 then m of arm 0 (k = 0), or m of arm 0 then m of arm 1 (k = 1). Each row is built
    C-contiguous (``np.repeat``) and summed by ``np.sum`` along it: NumPy's pairwise summation, bit for bit the
    code's sum of its 1-D array. (A fancy-indexed (R, 2m) array would be F-ordered and its rows summed left to
    right: other roundings, other choices; a test checks both facts.)

    Parameters
    ----------
    mu01, N01 : (R, 2) float64, the code's μ̂ and N of arms 0 and 1.   m : decision size ≥ 2.

    Raises
    ------
    ValueError for m < 2 or arrays that are not (R, 2) with a common R.
    """
    m = _check_m(m)
    _check_state(mu01=mu01, N01=N01)
    mean = np.empty((mu01.shape[0], 2))
    inv = np.empty((mu01.shape[0], 2))
    for k, order in enumerate(([1, 0], [0, 1])):
        mean[:, k] = np.sum(np.repeat(mu01[:, order], m, axis=1), axis=1)
        inv[:, k] = np.sum(np.repeat(1 / N01[:, order], m, axis=1), axis=1)
    return mean, inv


def value_as_written(mean, inv, f, sigma: float = 0.5):
    """The code's ESCB value from its sums: σ √(2f(t) · inv) + mean, elementwise ((R, 2) float64).

    ``f`` is the code's 2 f(t) (:func:`f_code`): a number, or an (R, 1) array when the runs have different m.
    """
    return sigma * np.sqrt(f * inv) + mean


def index_as_written(mu01, N01, k: int, t, m: int, sigma: float = 0.5, lam: float = 0.0):
    """The code's ESCB value of decision k for R runs, as written: (R,) float64 (``ESCBbonus``).

    Σ_j μ̂[idx_j] + σ √(2f(t) Σ_j 1/N[idx_j]) with idx = :func:`code_decision` (k, m) (see :func:`code_sums`).

    Parameters
    ----------
    mu01, N01 : (R, 2) float64, the code's μ̂ and N of arms 0 and 1.   k : 0 (A_1) or 1 (A*).
    t : round index ≥ 1.   m : decision size ≥ 2.   sigma : the code's σ (½).   lam : λ (0 in the experiments).
    """
    if isinstance(k, bool) or k not in (0, 1):
        raise ValueError(f"k must be 0 (A_1) or 1 (A*), got {k!r}")
    mean, inv = code_sums(mu01, N01, m)
    return value_as_written(mean, inv, f_code(t, m, lam), sigma)[:, k]


def choose_as_written(mu01, N01, t, m: int, sigma: float = 0.5, lam: float = 0.0):
    """The code's choice, ``argmax([ESCB(A_1), ESCB(A*)])``: (R,) int64, 1 where A* wins strictly, 0 otherwise
    (ties go to A_1, as ``np.argmax`` does)."""
    mean, inv = code_sums(mu01, N01, m)
    value = value_as_written(mean, inv, f_code(t, m, lam), sigma)
    return (value[:, 1] > value[:, 0]).astype(np.int64)


def update_as_written(mu01, N01, played, k, X01) -> None:
    """The code's ``update`` of arms 0 and 1 after each run played decision k[r], in place.

    - First play of a decision (``played[r, k]`` False): the code sets the played arms' N from 1e-8 to 1, then its
      second line adds one pull to arms 0 and 1 (the phantom pulls). So A_1's first play leaves N_0 = N_1 = 2 and
      A*'s first play adds 1 to N_0 and N_1.
    - Any other play of A_1: N_0, N_1 += 1. Plays of A* do not touch arms 0 and 1.
    - After a play of A_1: μ̂_i ← (μ̂_i (N_i − 1) + X_i) / N_i for i = 0, 1, with the (phantom-inflated) N_i.

    Parameters
    ----------
    mu01, N01 : (R, 2) float64, updated in place.   played : (R, 2) bool, which decisions each run has played,
    updated in place.   k : (R,) int64 in {0, 1}.   X01 : (R, 2) float64 rewards of arms 0 and 1 this round.

    Raises
    ------
    ValueError for arrays that are not (R, 2) with a common R, or a k that is not an (R,) array of 0 and 1.
    """
    _check_state(mu01=mu01, N01=N01, played=played, X01=X01)
    if not isinstance(k, np.ndarray) or k.shape != (mu01.shape[0],) or not np.all((k == 0) | (k == 1)):
        raise ValueError(f"k must be an (R,) array of 0 (A_1) and 1 (A*), R = {mu01.shape[0]}")
    a1 = k == 0
    first = ~played[np.arange(k.size), k]
    # A_1 played: unplayed arms (N < 0.5) go to 1, then +1 (phantom on the first play, a real pull otherwise)
    n_a1 = np.where(N01 < 0.5, 1.0, N01) + 1.0
    n_star_first = N01 + 1.0                                  # A*'s first play: phantom pulls only
    N01[:] = np.where(a1[:, None], n_a1, np.where((~a1 & first)[:, None], n_star_first, N01))
    mu01[:] = np.where(a1[:, None], (mu01 * (N01 - 1) + X01) / N01, mu01)
    played[np.arange(k.size), k] = True


def initial_state(R: int):
    """(mu01, N01, played) before the first round: μ̂ = 0, N = 1e-8 (the code's start), nothing played."""
    R = check_positive_int("R", R)
    return np.zeros((R, 2)), np.full((R, 2), N_START), np.zeros((R, 2), dtype=bool)
