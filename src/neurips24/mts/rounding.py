"""From a fractional state to agents: the k-collective (book's own rounding) and two single deterministic agents.

- :func:`capped_rounding_step` — **the book's own construction**, not the paper's (whose text we could not
  read): k agents whose counts m_t satisfy m_t(i) <= ⌊2k p_t(i)⌋ at every step (eq. (mts-cap)). Agents move
  only when the cap forces them; the evicted agents go to free places by a minimum-cost assignment (SciPy's
  ``linear_sum_assignment``), which is an integral optimal-transport plan between the two configurations.
- :func:`mode_agent_step` — one agent that follows the same fractional state deterministically (the k = 1
  analogue, the control of the chapter's first check).
- :func:`wfa_step` — the work function algorithm, the classical deterministic (2n − 1)-competitive algorithm.
"""
from __future__ import annotations

import numpy as np

GUARD = 1e-9      # ⌊2kp + GUARD⌋: a state that is 2kp = 3 up to rounding error keeps its 3 agents
TIE = 1e-9        # weight of the tie-break (fill ratio) against distance, times the smallest distance


def _check_agents(agents, n: int) -> np.ndarray:
    a = np.asarray(agents)
    if a.ndim != 1 or a.size < 1 or a.dtype.kind not in "iu":
        raise ValueError(f"agents must be a 1-d integer array of k >= 1 positions, got {a.dtype} {a.shape}")
    if a.min() < 0 or a.max() >= n:
        raise ValueError(f"agents must be point indices in [0, {n - 1}]")
    return a.astype(np.int64)


def capacity(p, k: int) -> np.ndarray:
    """The cap of eq. (mts-cap): at most ⌊2k p_i⌋ agents on point i, as integers (guarded against rounding).

    Raises
    ------
    ValueError if k is not an integer >= 1.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    return np.floor(2 * k * np.asarray(p, dtype=np.float64) + GUARD).astype(np.int64)


def capped_rounding_step(agents, p, d) -> np.ndarray:
    """Move the k agents as little as possible so that the counts respect the cap ⌊2k p⌋ (book's own rounding).

    1. Count the agents per point, m_i; if m_i <= ⌊2k p_i⌋ everywhere, nobody moves (lazy).
    2. Otherwise evict the surplus m_i − ⌊2k p_i⌋ from each over-full point (the agents with the highest
       indices there) and give each evicted agent a free place, one place per unit of spare capacity, by a
       minimum-cost assignment (SciPy's ``linear_sum_assignment``) with cost d(i, j) plus a tie-break 10⁻⁹ ×
       (smallest distance) × (the fill ratio the place would bring, (m_j + s) / (2k p_j)): between equally
       distant places the agent takes the emptiest one, relative to its cap.

    Only surplus agents move, directly to their new point: with the triangle inequality no plan between the
    two configurations is cheaper, so the agents' moves are an integral optimal-transport plan.

    Parameters
    ----------
    agents : (k,) int, the point of each agent, k >= n.
    p : (n,) float, the fractional state after the step (a probability vector).
    d : (n, n) float, the distance matrix.

    Returns
    -------
    (k,) int64, the agents' new points (a new array).

    Raises
    ------
    ValueError if k < n (then Σ ⌊2k p_i⌋ can be < k and the cap cannot hold), p is not a probability
    vector of length n, or agents are not integer points of the metric.
    """
    from scipy.optimize import linear_sum_assignment

    d = np.asarray(d, dtype=np.float64)
    n = d.shape[0]
    agents = _check_agents(agents, n).copy()
    k = agents.size
    p = np.asarray(p, dtype=np.float64)
    if p.shape != (n,) or not np.isfinite(p).all() or p.min() < 0 or abs(p.sum() - 1) > 1e-9:
        raise ValueError(f"p must be a probability vector of length {n}")
    if k < n:
        raise ValueError(f"the capped rounding needs k >= n agents (k = {k}, n = {n})")
    cap = capacity(p, k)                                             # eq. (mts-cap)
    counts = np.bincount(agents, minlength=n)
    surplus = counts - cap
    if surplus.max() <= 0:
        return agents                                                # lazy: the cap holds, nobody moves
    evicted = np.concatenate([np.flatnonzero(agents == i)[-surplus[i]:] for i in np.flatnonzero(surplus > 0)])
    spare = np.maximum(cap - counts, 0)
    E = evicted.size
    place = np.repeat(np.arange(n), np.minimum(spare, E))            # one column per free place
    fill_rank = np.concatenate([np.arange(1, min(s, E) + 1) for s in spare])
    fill = (counts[place] + fill_rank) / (2 * k * p[place])
    tie = TIE * d[d > 0].min()
    cost = d[np.ix_(agents[evicted], place)] + tie * fill[None, :]
    rows, cols = linear_sum_assignment(cost)                         # integral OT plan, surplus -> free places
    agents[evicted[rows]] = place[cols]
    return agents


def mode_agent_step(x: int, p) -> int:
    """One deterministic agent following a fractional state: it stays while p(x) >= max p / 2, else it moves
    to the most likely point (lowest index on ties). The k = 1 counterpart of the capped rounding.

    Raises
    ------
    ValueError if p is not a probability vector or x is not one of its points.
    """
    p = np.asarray(p, dtype=np.float64)
    if p.ndim != 1 or not np.isfinite(p).all() or p.min() < 0 or abs(p.sum() - 1) > 1e-9:
        raise ValueError("p must be a probability vector")
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or not 0 <= x < p.size:
        raise ValueError(f"x must be a point index in [0, {p.size - 1}], got {x!r}")
    return int(x) if p[x] >= 0.5 * p.max() else int(np.argmax(p))


def wfa_step(x: int, w, d) -> int:
    """The work function algorithm: move to argmin_j [ w_t(j) + d(x, j) ], staying at x on ties (then the
    lowest index). Deterministic and (2n − 1)-competitive (Borodin, Linial and Saks 1992).

    Raises
    ------
    ValueError if w has NaN/inf or the wrong length, or x is not a point.
    """
    d = np.asarray(d, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    if w.shape != (d.shape[0],) or not np.isfinite(w).all():
        raise ValueError(f"w must be {d.shape[0]} finite values")
    if isinstance(x, bool) or not isinstance(x, (int, np.integer)) or not 0 <= x < d.shape[0]:
        raise ValueError(f"x must be a point index in [0, {d.shape[0] - 1}], got {x!r}")
    score = w + d[x]
    best = score.min()
    return int(x) if score[x] <= best + 1e-12 else int(np.argmin(score))
