"""The chapter's experiments (paper Sec. 6), sized by the run scale, and the paper's Fig. 1b values they meet.

- :func:`run_regret_vs_m`: B-CTS (both priors) and BG-CTS at arm level — Fig. 1b (final regret against m),
  with more seeds at the largest m for the reproduction check.
- :func:`run_paper_setup`: the paper's exact Fig. 1b set-up (m ∈ {5, 25, 45, 65}, T = 10⁴, 150 runs) for every
  policy the decision-level simulation covers — BG-CTS, G-CTS, BG-CTS with the theorem's λ = 1, ESCB as intended
  and as written in the authors' code — at both scales (it takes seconds).
- :func:`run_curve`: Fig. 1a (cumulative regret against t).
- :func:`run_escb_replay`: a one-run-at-a-time model of the authors' ESCB as their code runs it, replayed run by
  run against the package's vectorised model of it (and against ESCB as intended) on shared rewards.
- :func:`explore_run`: the small run behind the chapter's widget.
- :func:`load_full_record`: the recorded full-scale run (``full_scale.json``, written by
  ``python -m neurips24.cts.full_run``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

import numpy as np
from tqdm.auto import tqdm

from .. import seeding
from ..scale import check_scale
from .bandit import two_sets
from .escb_replay import Replay, replay
from .policies import PRIORS, Policy, make_policy
from .runs import SimResult, simulate
from .two_set_runs import simulate_two_sets

CONFIG = {
    # arm-level sweep (B-CTS needs it); Fig. 1a at fast scale is the sweep's largest m, seed 0
    # n_seeds: seeds neurips24.seeds(n_seeds), resolved at call time (NEURIPS24_SEED_OFFSET shifts them)
    "fast": dict(m_values=(5, 25, 45), T=2000, runs=100, n_seeds=3, checkpoints=100,
                 curve=dict(m=45, T=2000, runs=100)),
    "full": dict(m_values=(5, 25, 45, 65), T=10_000, runs=150, n_seeds=5, checkpoints=200,
                 curve=dict(m=50, T=20_000, runs=100)),
}
# the paper's Fig. 1b set-up, run by the decision-level simulation at both scales
PAPER_SETUP = {
    "fast": dict(m_values=(5, 25, 45, 65), T=10_000, runs=150, n_seeds=3, checkpoints=100),
    "full": dict(m_values=(5, 25, 45, 65), T=10_000, runs=150, n_seeds=5, checkpoints=200),
}

# the replay of the authors' ESCB class (a Python loop per run, ~60 µs per run and round): 9000 run-rounds per m
# and seed at fast (about 3 s in all), 200 000 at full
ESCB_REPLAY = {
    "fast": dict(m_values=(5, 65), T=300, runs=30, n_seeds=3),
    "full": dict(m_values=(5, 25, 45, 65), T=2000, runs=100, n_seeds=5),
}

# Fig. 1b of the paper: final mean regret at T = 10^4 over 150 runs, read off the log-scale figure
# ``finalmeanregret.png`` of the authors' repository (github.com/RaymZhang/CTS-Mismatched-Paradox);
# approximate (about ±10 % from reading a log axis).
PAPER_FIG_B = {
    5: {"B-CTS-Jeffreys": 13, "B-CTS-Uniform": 9, "ESCB": 115, "BG-CTS": 65},
    25: {"B-CTS-Jeffreys": 900, "B-CTS-Uniform": 4.2e3, "ESCB": 90, "BG-CTS": 210},
    45: {"B-CTS-Jeffreys": 2.2e4, "B-CTS-Uniform": 2.5e4, "ESCB": 150, "BG-CTS": 350},
    65: {"B-CTS-Jeffreys": 7e4, "B-CTS-Uniform": 5.5e4, "ESCB": 440, "BG-CTS": 480},
}
READING_ERROR = 0.10     # relative error of a value read off the log axis of Fig. 1b


def sweep_policies() -> list[Policy]:
    """The arm-level sweep: B-CTS (uniform and Jeffreys priors) and BG-CTS (λ = 0, σ = 1/2), as in Fig. 1b."""
    return [make_policy("bcts", "uniform"), make_policy("bcts", "jeffreys"), make_policy("bgcts")]


def setup_policies() -> list[Policy]:
    """The decision-level policies: BG-CTS, G-CTS, BG-CTS (λ = 1), ESCB, ESCB as written (σ = 1/2)."""
    return [make_policy("bgcts"), make_policy("gcts"), make_policy("bgcts", lam=1.0), make_policy("escb"),
            make_policy("escb_code")]


@dataclass
class RegretVsM:
    """Results of :func:`run_regret_vs_m`: runs[(m, seed)] -> :class:`~neurips24.cts.runs.SimResult`."""

    m_values: tuple
    seeds: tuple
    T: int
    R: int
    runs: dict = field(default_factory=dict)
    config: dict = field(default_factory=dict)

    @property
    def labels(self) -> list:
        return next(iter(self.runs.values())).labels

    def curve(self) -> SimResult:
        """The seed-0 run at the largest m (Fig. 1a at fast scale)."""
        return self.runs[(max(self.m_values), self.seeds[0])]

    def seeds_at(self, m: int) -> list:
        """The seeds run at decision size m."""
        return [s for s in self.seeds if (m, s) in self.runs]

    def table(self, seed: int | None = None) -> dict:
        """m -> {label: (mean final regret, stuck share)} for one seed (default: the first)."""
        seed = self.seeds[0] if seed is None else seed
        return {m: {lab: (float(mu), float(s)) for lab, mu, s in
                    zip(self.runs[(m, seed)].labels, self.runs[(m, seed)].mean(),
                        self.runs[(m, seed)].stuck_share(), strict=True)}
                for m in self.m_values}

    def pooled(self, m: int, label: str) -> np.ndarray:
        """(R · number of seeds at m,) final regrets of ``label`` at m, all seeds run there pooled."""
        return np.concatenate([self.runs[(m, s)].of(label) for s in self.seeds_at(m)])

    def pooled_first(self, m: int, label: str) -> np.ndarray:
        """Pooled rounds of the first optimal play of ``label`` at m."""
        return np.concatenate([self.runs[(m, s)].first_of(label) for s in self.seeds_at(m)])

    def stuck(self, m: int, label: str) -> tuple[int, int]:
        """(stuck runs, runs) of ``label`` at m, all seeds pooled (stuck: regret > half of Δ T)."""
        final = self.pooled(m, label)
        linear = self.runs[(m, self.seeds_at(m)[0])].linear
        return int((final > 0.5 * linear).sum()), int(final.size)


def run_regret_vs_m(scale: str, policies: list[Policy] | None = None, device: str | None = None) -> RegretVsM:
    """Paper Sec. 6, Fig. 1b on the two-set instance (μ = 0.7 / 0.9, Bernoulli), arm level, sized by ``scale``.

    Every m of ``CONFIG[scale]['m_values']`` is run with the first seed; the smallest and the largest m also
    with the other seeds (``neurips24.seeds(n_seeds)``; the reproduction checks pool them and show each seed's
    value). Policies default to :func:`sweep_policies`.

    Raises
    ------
    ValueError for an unknown scale.
    """
    cfg = CONFIG[check_scale(scale)]
    policies = sweep_policies() if policies is None else policies
    seeds = seeding.seeds(cfg["n_seeds"])
    res = RegretVsM(m_values=tuple(cfg["m_values"]), seeds=seeds, T=cfg["T"], R=cfg["runs"],
                    config=dict(cfg, seeds=seeds))
    ends = sorted({min(cfg["m_values"]), max(cfg["m_values"])})
    jobs = [(m, seeds[0]) for m in cfg["m_values"]] + [(m, s) for m in ends for s in seeds[1:]]
    for m, s in tqdm(jobs, disable=None, desc="(m, seed)"):
        res.runs[(m, s)] = simulate(two_sets(m), policies, cfg["T"], cfg["runs"], seed=s,
                                    checkpoints=cfg["checkpoints"], device=device)
    return res


def run_paper_setup(scale: str, policies: list[Policy] | None = None) -> dict:
    """The paper's Fig. 1b set-up (m ∈ {5, 25, 45, 65}, T = 10⁴, 150 runs), decision level, for each of the
    seeds ``neurips24.seeds(PAPER_SETUP[scale]['n_seeds'])``: dict seed -> dict m ->
    :class:`~neurips24.cts.runs.SimResult`.

    Policies default to :func:`setup_policies`; all of them see the same rewards. Raises ValueError for an
    unknown scale.
    """
    cfg = PAPER_SETUP[check_scale(scale)]
    policies = setup_policies() if policies is None else policies
    return {s: simulate_two_sets(cfg["m_values"], policies, cfg["T"], cfg["runs"], seed=s,
                                 checkpoints=cfg["checkpoints"]) for s in seeding.seeds(cfg["n_seeds"])}


def run_curve(scale: str, sweep: RegretVsM | None = None, device: str | None = None) -> tuple:
    """Fig. 1a: cumulative regret against t at ``CONFIG[scale]['curve']`` (m, T, runs), seed ``neurips24.seed(0)``.

    Returns (arm, decision): B-CTS and BG-CTS at arm level — taken from ``sweep`` when it ran the same m, T
    and runs — and ESCB as intended and as written at decision level, on the same (m, T, runs).
    """
    cfg = CONFIG[check_scale(scale)]
    c = cfg["curve"]
    s0 = seeding.seed(0)
    if sweep is not None and (c["m"], s0) in sweep.runs and sweep.T == c["T"] and sweep.R == c["runs"]:
        arm = sweep.runs[(c["m"], s0)]
    else:
        arm = simulate(two_sets(c["m"]), sweep_policies(), c["T"], c["runs"], seed=s0,
                       checkpoints=cfg["checkpoints"], device=device)
    decision = simulate_two_sets([c["m"]], [make_policy("escb"), make_policy("escb_code")], c["T"], c["runs"],
                                 seed=s0, checkpoints=cfg["checkpoints"])[c["m"]]
    return arm, decision


def run_escb_replay(scale: str) -> dict:
    """ESCB as the authors' code runs it, one run at a time (:class:`~neurips24.cts.escb_replay.ESCBOneRun`),
    against the vectorised model of it and ESCB as intended, on shared rewards, at ``ESCB_REPLAY[scale]`` (m
    values, T, runs) for each of the seeds ``neurips24.seeds(n_seeds)``:
    dict seed -> dict m -> :class:`~neurips24.cts.escb_replay.Replay`.

    Raises ValueError for an unknown scale.
    """
    cfg = ESCB_REPLAY[check_scale(scale)]
    out: dict[int, dict[int, Replay]] = {}
    for s in seeding.seeds(cfg["n_seeds"]):
        out[s] = {m: replay(m, cfg["T"], cfg["runs"], seed=s) for m in cfg["m_values"]}
    return out


def _check_int(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int >= {low}, got {type(value).__name__} {value!r}")
    if value < low:
        raise ValueError(f"{name} must be an int >= {low}, got {value!r}")
    return int(value)


def explore_run(m: int = 25, prior: str = "uniform", T: int = 1000, runs: int = 60,
                seed: int | None = None) -> SimResult:
    """B-CTS with the chosen prior against BG-CTS on the two-set instance (the chapter's widget; cached).

    Parameters
    ----------
    m : int >= 2, arms per set.   prior : 'uniform' or 'jeffreys'.   T : int >= 1, rounds.   runs : int >= 1.
    seed : int >= 0 (default ``neurips24.seed(0)``).

    Raises
    ------
    TypeError if m, T, runs or seed is not an int; ValueError for m < 2, T < 1, runs < 1, seed < 0 or an
    unknown prior.
    """
    if not isinstance(prior, str) or prior not in PRIORS:
        raise ValueError(f"prior must be one of {tuple(PRIORS)}, got {prior!r}")
    seed = seeding.seed(0) if seed is None else _check_int("seed", seed, 0)
    return _explore_run(_check_int("m", m, 2), prior, _check_int("T", T, 1), _check_int("runs", runs, 1), seed)


@lru_cache(maxsize=32)
def _explore_run(m: int, prior: str, T: int, runs: int, seed: int) -> SimResult:
    return simulate(two_sets(m), [make_policy("bcts", prior), make_policy("bgcts")], T, runs, seed=seed,
                    checkpoints=60)


FULL_RECORD = "full_scale.json"


def load_full_record() -> dict | None:
    """The recorded full-scale run shipped with the package (``neurips24/cts/full_scale.json``), or None."""
    path = resources.files("neurips24.cts").joinpath(FULL_RECORD)
    if not path.is_file():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def record_means(record: dict) -> dict:
    """m -> {label: mean final regret} of a recorded full-scale sweep, averaged over its seeds (equal runs each)."""
    return {int(m): {lab: float(np.mean([by_seed[s][lab]["mean"] for s in by_seed]))
                     for lab in next(iter(by_seed.values()))}
            for m, by_seed in record["sweep"].items()}
