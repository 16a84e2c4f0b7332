"""Run MTS instances: a fractional algorithm, the players that follow it (a k-collective or one agent), an
adaptive or random cost sequence, and the offline optimum — all the costs the chapter compares.

Several players on one metric advance together: the fractional states of all of them are one (B, n) array, so
the mirror-descent step, the work function and the transport costs are computed for the whole batch at once;
only the agents' moves are per player.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .fractional import mirror_descent_step, work_function_update
from .metric import Metric, as_metric, dominating_star, wasserstein1
from .rounding import capped_rounding_step, mode_agent_step, wfa_step

RULES = ("capped", "mode", "wfa")
ADVERSARIES = ("crowded", "threshold", "random")


@dataclass(frozen=True)
class Player:
    """Who plays: ``rule`` 'capped' (a collective of k agents, the book's rounding), 'mode' (one agent at the
    fractional state's mode) or 'wfa' (one agent, the work function algorithm); ``adversary`` 'crowded' (the
    cost falls on the point with the most of the player's agents, lowest index on ties), 'threshold' (on the
    occupied point closest to its cap, the smallest 2k p_i − m_i, lowest index on ties: the cost there lowers
    p_i and forces an eviction as soon as it can; for one agent it is its own point, as 'crowded') or 'random'
    (on a uniformly drawn point, the same draw for every random-adversary player of a run)."""

    rule: str
    k: int
    adversary: str

    def __post_init__(self):
        if self.rule not in RULES:
            raise ValueError(f"rule must be one of {RULES}, got {self.rule!r}")
        if self.adversary not in ADVERSARIES:
            raise ValueError(f"adversary must be one of {ADVERSARIES}, got {self.adversary!r}")
        if isinstance(self.k, bool) or not isinstance(self.k, (int, np.integer)) or self.k < 1:
            raise ValueError(f"k must be an integer >= 1, got {self.k!r}")
        if self.rule != "capped" and self.k != 1:
            raise ValueError(f"rule {self.rule!r} plays one agent: k must be 1, got {self.k}")


@dataclass
class Run:
    """The costs of one player on one instance (all totals over the T steps, in the metric's units).

    ``frac_cost`` is the fractional algorithm's cost on this player's cost sequence, eq. (mts-frac); ``opt`` the
    offline optimum of that sequence, eq. (mts-wf); ``moves`` the number of agent moves.
    ``cost`` is the collective's cost, the average of its agents' costs (``agent_cost``, shape (k,));
    ``config_cost`` is the same collective seen as a barely fractional algorithm: Σ_t W1(m_{t−1}/k, m_t/k) +
    <c_t, m_t/k>, computed from the counts alone. ``cap_excess`` is max over t and i of m_t(i) − 2k p_t(i)
    (<= 0 when the cap holds), ``service_excess`` max over t of <c_t, m_t/k> − 2 <c_t, p_t>.
    """

    kind: str
    n: int
    player: Player
    T: int
    eps: float
    diameter: float
    frac_cost: float = 0.0
    opt: float = 0.0
    agent_cost: np.ndarray = field(default_factory=lambda: np.zeros(1))
    config_cost: float = 0.0
    moves: int = 0
    cap_excess: float = -np.inf
    service_excess: float = -np.inf
    curves: dict = field(default_factory=dict)
    final_counts: np.ndarray | None = None
    final_p: np.ndarray | None = None

    @property
    def k(self) -> int:
        return self.player.k

    @property
    def cost(self) -> float:
        return float(self.agent_cost.mean())

    @property
    def additive(self) -> float:
        """The additive term allowed in the check: n · diam / k (one agent-unit of movement per point)."""
        return self.n * self.diameter / self.k

    @property
    def over_fractional(self) -> float:
        """(cost − additive) / fractional cost: <= 2 is the chapter's first check."""
        return (self.cost - self.additive) / self.frac_cost


def simulate(metric, players, T: int, eps: float = 0.1, seed: int = 0, eta: float = 1.0,
             relabel: bool = False, start: int = 0) -> list[Run]:
    """Play T steps of an MTS for several players on one metric, each against its own adversary.

    Step t: the adversary puts cost ``eps`` on one point (chosen from the player's state after step t − 1);
    the work function w_t and the fractional state p_t are updated (eq. (mts-md), mirror descent on the metric's
    star, or on a star that dominates it: ``metric.dominating_star``); then the player moves
    ('capped': eq. (mts-cap) with k agents; 'mode', 'wfa': one agent) and pays movement plus service.
    Every player starts with all its agents, and the fractional state, on point ``start``.

    Parameters
    ----------
    metric : :class:`~neurips24.mts.metric.Metric` or an (n, n) distance matrix.
    players : sequence of :class:`Player`.
    T : int >= 1, number of steps.
    eps : float > 0, the cost put on one point per step.
    seed : int >= 0, seeds the random adversary's points (shared by the players) and ``relabel``.
    eta : float > 0, the mirror-descent step size.
    relabel : if True, after every step the agents of each collective swap identities by a random
        permutation: the same configurations, reached by a plan that is *not* optimal (the control of the
        chapter's third check).
    start : the starting point.

    Returns
    -------
    list of :class:`Run`, one per player, with cumulative curves ``curves['frac']``, ``['cost']``,
    ``['opt']`` of shape (T,) (``opt`` is the optimum of the prefix, min_j w_t(j)).

    Raises
    ------
    ValueError on a bad metric, an empty player list, T < 1, eps <= 0 or not finite, eta <= 0, a capped player
    with k < n, or a bad start.
    """
    metric = as_metric(metric)
    n, d = metric.n, metric.d
    players = list(players)
    _check_args(metric, players, T, eps, seed, eta, start)
    B = len(players)
    rng = np.random.default_rng(seed)
    leaf = dominating_star(metric)
    k = np.array([pl.k for pl in players], dtype=np.float64)[:, None]               # (B, 1)
    adversary = np.array([ADVERSARIES.index(pl.adversary) for pl in players])
    p = np.zeros((B, n))
    p[:, start] = 1.0
    w = np.tile(d[start], (B, 1))
    agents = [np.full(pl.k, start, dtype=np.int64) for pl in players]
    counts = np.zeros((B, n))
    counts[:, start] = k[:, 0]
    runs = [Run(metric.kind, n, pl, int(T), float(eps), metric.diameter,
                agent_cost=np.zeros(pl.k)) for pl in players]
    step = {name: np.zeros((B, T)) for name in ("frac", "cost", "opt")}
    rows = np.arange(B)
    config_move = np.zeros(B)
    for t in range(T):
        drawn = rng.integers(n)                                          # the adversaries, from the state at t − 1
        slack = np.where(counts > 0, 2 * k * p - counts, np.inf)         # room under the cap, occupied points
        hit = np.choose(adversary, [counts.argmax(1), slack.argmin(1), np.full(B, drawn)])
        c = np.zeros((B, n))
        c[rows, hit] = eps
        w = work_function_update(w, c, metric)                                 # eq. (mts-wf)
        p_new = mirror_descent_step(p, c, leaf, eta)                           # eq. (mts-md)
        step["frac"][:, t] = wasserstein1(p, p_new, metric) + (c * p_new).sum(1)
        counts_old = counts.copy()
        move = np.zeros(B)
        for b, pl in enumerate(players):
            old = agents[b]
            if pl.rule == "capped":
                new = capped_rounding_step(old, p_new[b], d)                   # eq. (mts-cap)
            elif pl.rule == "mode":
                new = np.array([mode_agent_step(int(old[0]), p_new[b])])
            else:
                new = np.array([wfa_step(int(old[0]), w[b], d)])
            moved = old != new
            if moved.any():
                runs[b].agent_cost[moved] += d[old[moved], new[moved]]
                runs[b].moves += int(moved.sum())
                move[b] = d[old[moved], new[moved]].sum() / pl.k
                counts[b] = np.bincount(new, minlength=n)
            runs[b].agent_cost += c[b, new]
            if relabel and pl.k > 1:                                           # same counts, other identities
                perm = rng.permutation(pl.k)
                runs[b].agent_cost += d[new, new[perm]]
                new = new[perm]
            agents[b] = new
        changed = np.flatnonzero((counts != counts_old).any(1))
        if changed.size:                                                       # barely fractional view: counts only
            config_move[changed] += wasserstein1(counts_old[changed] / k[changed], counts[changed] / k[changed], metric)
        service = (c * counts).sum(1) / k[:, 0]
        step["cost"][:, t] = move + service
        step["opt"][:, t] = w.min(1)
        for b, run in enumerate(runs):
            run.cap_excess = max(run.cap_excess, float((counts[b] - 2 * k[b] * p_new[b]).max()))
            run.service_excess = max(run.service_excess, float(service[b] - 2 * (c[b] @ p_new[b])))
            run.config_cost += float(service[b])
        p = p_new
    frac = np.cumsum(step["frac"], axis=1)
    for b, run in enumerate(runs):
        run.frac_cost = float(frac[b, -1])
        run.config_cost += float(config_move[b])
        run.curves = {"frac": frac[b], "cost": np.cumsum(step["cost"][b]), "opt": step["opt"][b]}
        run.opt = float(w[b].min())
        run.final_counts = counts[b].astype(np.int64)
        run.final_p = p[b].copy()
    return runs


def _check_args(metric: Metric, players, T, eps, seed, eta, start):
    if not players or not all(isinstance(pl, Player) for pl in players):
        raise ValueError("players must be a non-empty sequence of Player")
    if isinstance(T, bool) or not isinstance(T, (int, np.integer)) or T < 1:
        raise ValueError(f"T must be an integer >= 1, got {T!r}")
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.floating)) or not np.isfinite(eps) or eps <= 0:
        raise ValueError(f"eps must be a positive finite number, got {eps!r}")
    if isinstance(eta, bool) or not isinstance(eta, (int, float, np.floating)) or not np.isfinite(eta) or eta <= 0:
        raise ValueError(f"eta must be a positive finite number, got {eta!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    if isinstance(start, bool) or not isinstance(start, (int, np.integer)) or not 0 <= start < metric.n:
        raise ValueError(f"start must be a point index in [0, {metric.n - 1}], got {start!r}")
    for pl in players:
        if pl.rule == "capped" and pl.k < metric.n:
            raise ValueError(f"a capped collective needs k >= n agents (k = {pl.k}, n = {metric.n})")
