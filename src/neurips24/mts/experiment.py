"""The chapter's experiment: collectives, single agents and the fractional algorithm on four metrics, as n and
k vary, against an adaptive adversary and a random one (the paper has no experiments; this is the book's own
miniature of its claims).

- :func:`run_sweep`: every (metric, n) with the players of :func:`players_for`.
- :func:`relabel_control`: one collective run twice, once with optimal moves and once with its agents relabelled
  by a random permutation after every step (the control of the exact identity).
- :func:`random_bits` and :func:`expected_cost_of_a_random_agent`: the barely random view.
- :func:`explore_run`: the small run behind the chapter's widget.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .. import seeding
from ..scale import check_scale
from .game import RULES, Player, Run, simulate
from .metric import KINDS, make_metric

CONFIG = {   # n_seeds: the seeds neurips24.seeds(n_seeds), resolved at call time (they draw the star, line and
            # tree metrics and the random adversary's points; the uniform metric and the other adversaries are fixed)
    "fast": dict(kinds=KINDS, n_values=(4, 8, 16), T=1000, eps=0.1, n_seeds=3),
    "full": dict(kinds=KINDS, n_values=(4, 8, 16, 32), T=4000, eps=0.1, n_seeds=5),
}


def players_for(n: int) -> list[Player]:
    """The players of one (metric, n) run: collectives of k = n, 2n and n² agents against the crowded-point
    adversary, k = n² also against the threshold adversary (the occupied point closest to its cap) and the
    random one, and the two single deterministic agents (mode follower, WFA) against the adversary that hits
    their own point."""
    return [Player("capped", n, "crowded"), Player("capped", 2 * n, "crowded"), Player("capped", n * n, "crowded"),
            Player("capped", n * n, "threshold"), Player("capped", n * n, "random"), Player("mode", 1, "crowded"),
            Player("wfa", 1, "crowded")]


@dataclass
class Sweep:
    """Results of :func:`run_sweep`: a list of :class:`~neurips24.mts.game.Run`."""

    runs: list = field(default_factory=list)
    config: dict = field(default_factory=dict)

    def select(self, kind=None, n=None, rule=None, k=None, adversary=None, seed=None) -> list[Run]:
        """The runs that match every given field (``k`` may be a callable of n, e.g. ``lambda n: n * n``)."""
        out = []
        for seed_, run in self.runs:
            kk = k(run.n) if callable(k) else k
            if ((kind is None or run.kind == kind) and (n is None or run.n == n)
                    and (rule is None or run.player.rule == rule) and (kk is None or run.k == kk)
                    and (adversary is None or run.player.adversary == adversary)
                    and (seed is None or seed_ == seed)):
                out.append(run)
        return out

    def growth(self, kind: str, rule: str, k=None, adversary: str = "crowded") -> float:
        """ratio-to-OPT at the largest n over that at the smallest n (mean over seeds)."""
        n_values = self.config["n_values"]

        def ratio(n):
            return float(np.mean([r.cost / r.opt for r in self.select(kind, n, rule, k, adversary)]))
        return ratio(max(n_values)) / ratio(min(n_values))

    def table(self) -> list[dict]:
        """One row per (metric, n, player), averaged over seeds: cost / fractional, cost / OPT, fractional / OPT."""
        rows = []
        keys = sorted({(r.kind, r.n, r.player) for _, r in self.runs},
                      key=lambda x: (KINDS.index(x[0]), x[1], RULES.index(x[2].rule), x[2].k, x[2].adversary))
        for kind, n, pl in keys:
            rs = [r for _, r in self.runs if (r.kind, r.n, r.player) == (kind, n, pl)]
            rows.append(dict(kind=kind, n=n, rule=pl.rule, k=pl.k, adversary=pl.adversary,
                             over_frac=float(np.mean([r.cost / r.frac_cost for r in rs])),
                             over_opt=float(np.mean([r.cost / r.opt for r in rs])),
                             frac_over_opt=float(np.mean([r.frac_cost / r.opt for r in rs])),
                             moves_per_step=float(np.mean([r.moves / r.T / r.k for r in rs]))))
        return rows


def run_sweep(scale: str = "fast", progress: bool = False) -> Sweep:
    """Run every (metric kind, n, seed) of the scale's configuration with the players of :func:`players_for`.

    Parameters
    ----------
    scale : 'fast' (n ∈ {4, 8, 16}, T = 1000, three seeds) or 'full' (n up to 32, T = 4000, five seeds); the
        seeds are ``neurips24.seeds(n_seeds)``.
    progress : show a progress bar (tqdm).

    Returns
    -------
    :class:`Sweep`.

    Raises
    ------
    ValueError for an unknown scale.
    """
    from tqdm.auto import tqdm

    cfg = CONFIG[check_scale(scale)]
    seeds = seeding.seeds(cfg["n_seeds"])
    sweep = Sweep(config=dict(cfg, seeds=seeds))
    jobs = [(kind, n, seed) for seed in seeds for kind in cfg["kinds"] for n in cfg["n_values"]]
    for kind, n, seed in tqdm(jobs, disable=not progress, desc="mts"):
        metric = make_metric(kind, n, seed)
        for run in simulate(metric, players_for(n), cfg["T"], cfg["eps"], seed=seed):
            sweep.runs.append((seed, run))
    return sweep


def relabel_control(scale: str = "fast", n: int = 8) -> tuple[Run, Run]:
    """A collective of k = n² agents on the uniform metric against the crowded-point adversary, run twice: with
    the optimal (lazy) moves, and with the agents relabelled by a random permutation after every step — the same
    configurations, reached by a plan that is not an optimal transport plan.

    Raises
    ------
    ValueError for an unknown scale or n < 2.
    """
    cfg = CONFIG[check_scale(scale)]
    metric = make_metric("uniform", n)
    player = [Player("capped", n * n, "crowded")]
    plain = simulate(metric, player, cfg["T"], cfg["eps"], seed=seeding.seed(0))[0]
    shuffled = simulate(metric, player, cfg["T"], cfg["eps"], seed=seeding.seed(0), relabel=True)[0]
    return plain, shuffled


def random_bits(k: int) -> int:
    """Random bits needed to pick one of k agents uniformly: ⌈log₂ k⌉ (exactly uniform when k is a power of 2).

    Raises
    ------
    ValueError if k is not an integer >= 1.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    return math.ceil(math.log2(k)) if k > 1 else 0


def expected_cost_of_a_random_agent(agent_cost) -> float:
    """E[cost of the agent named by b uniform random bits], b = log₂ k, computed exactly: every one of the 2^b
    bit strings is read as a binary number, the index of the agent it names, and the costs are averaged.

    Parameters
    ----------
    agent_cost : (k,) float, each agent's total cost; k a power of 2.

    Raises
    ------
    ValueError if agent_cost is not a 1-d array of finite costs whose length is a power of 2.
    """
    cost = np.asarray(agent_cost, dtype=np.float64)
    k = cost.size
    if cost.ndim != 1 or k < 1 or k & (k - 1) or not np.all(np.isfinite(cost)):
        raise ValueError("agent_cost must be a 1-d array of finite costs whose length is a power of 2")
    b = random_bits(k)
    strings = (np.arange(2 ** b)[:, None] >> np.arange(b - 1, -1, -1)) & 1    # all 2^b bit strings
    index = strings @ (2 ** np.arange(b - 1, -1, -1))                          # bit string -> agent index
    return float(np.mean(cost[index]))                                         # each string has weight 2^-b


def explore_run(kind: str = "uniform", n: int = 8, k: int = 64, adversary: str = "crowded", T: int = 600,
                eps: float = 0.1) -> list[Run]:
    """The widget's run: a k-collective and the work function algorithm on one metric (seed ``neurips24.seed(0)``).

    Raises
    ------
    ValueError on an unknown kind or adversary, k < n, or T < 1.
    """
    metric = make_metric(kind, n, seeding.seed(0))
    return simulate(metric, [Player("capped", k, adversary), Player("wfa", 1, adversary)], T, eps,
                    seed=seeding.seed(0))


def reproduction_values(sweep: Sweep, plain: Run, shuffled: Run) -> dict:
    """The numbers the chapter's three reproduction checks assert (and their controls).

    - ``factor``: (cost − n·diam/k) / fractional cost of every collective with k = n² (all three adversaries),
      ``factor_kn``: the same at k = n (the control), and ``mode``: the same for the single agent at the mode;
    - ``growth_collective`` / ``growth_wfa``: cost / OPT at the largest n over that at the smallest n on the
      uniform metric, for the collective at k = n² and for the work function algorithm (the control);
    - ``identity_gap``: max over every collective of |E_bits[cost of one agent] − barely fractional cost| /
      barely fractional cost, and ``identity_control_gap``: the same for the relabelled run.
    """
    collectives = sweep.select(rule="capped")
    at_n2 = sweep.select(rule="capped", k=lambda n: n * n)

    def gap(run):
        return abs(expected_cost_of_a_random_agent(run.agent_cost) - run.config_cost) / run.config_cost

    return dict(
        factor=[r.over_fractional for r in at_n2],
        factor_kn=[r.over_fractional for r in sweep.select(rule="capped", k=lambda n: n)],
        mode=[r.over_fractional for r in sweep.select(rule="mode")],
        growth_collective=sweep.growth("uniform", "capped", lambda n: n * n),
        growth_wfa=sweep.growth("uniform", "wfa", 1),
        identity_gap=max(gap(r) for r in collectives + [plain]),
        identity_control_gap=gap(shuffled),
    )
