"""The chapter's experiments (paper Sec. 6), sized by the run scale.

- :func:`run_realizable`: system accuracy against the training size N on the realizable mixture (Fig. 1a).
- :func:`run_digits`: the non-realizable case, digits with an expert right on five classes, linear and MLP.
- :func:`run_tradeoff`: coverage against system accuracy as the deferral fee β grows (Fig. 1b's question).
- :func:`run_pointwise`: how often each surrogate's conditional minimiser misses the Bayes decision.
- :func:`explore_run`: the small run behind the chapter's widget.

Every surrogate is trained the same way (:func:`.train.train_specs`: same points, same initial weights, same
optimiser and steps); the seeds are ``seeding.seeds(n)`` (0, 1, 2, … shifted by ``$NEURIPS24_SEED_OFFSET``) and
are never chosen.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import torch
from tqdm.auto import tqdm

from .. import seeding
from ..scale import check_scale
from .data import digits_data, mixture_data
from .losses import expert_error_cost, rl2d_surrogate
from .pointwise import bayes_failure_share
from .train import Spec, forward, train_specs

CONFIG = {
    "fast": dict(n_values=(250, 1000, 4000), n_test=2000, n_seeds=3, steps=400, lr=0.1,
                 digits_n_seeds=3, digits_steps=400, digits_sets=("linear", "MLP"), hidden=16,
                 betas=(0.0, 0.1, 0.2, 0.3, 0.5), pointwise_problems=100, pointwise_steps=500),
    "full": dict(n_values=(250, 500, 1000, 2000, 4000, 8000), n_test=5000, n_seeds=5, steps=3000,
                 lr=0.1, digits_n_seeds=5, digits_steps=3000, digits_sets=("linear", "MLP"), hidden=64,
                 betas=(0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5), pointwise_problems=1000, pointwise_steps=3000),
}

# The surrogates of the paper's Fig. 1, plus L_RS (the Ψ = −log member, up to a factor 2).
PAPER_SPECS = (
    Spec("CE", "ce"),
    Spec("OvA", "ova"),
    Spec("general", "general", q=0.7),
    Spec("RS (Ψ=−log)", "rs"),
    Spec("RL2D q=0.7", "rl2d", q=0.7),
    Spec("RL2D q=1", "rl2d", q=1.0),
)
BASELINES = ("CE", "OvA", "general")
FAMILY = ("RS (Ψ=−log)", "RL2D q=0.7", "RL2D q=1")
# the model alone: trained with c ≡ 1, it never defers (a reference, not a deferral system)
ALONE = Spec("model alone", "rl2d", None, cost="never")
# the controls: the same surrogate trained on a shuffled expert (costs that do not belong to the points)
SHUFFLED = {"RS (Ψ=−log)": Spec("RS, shuffled expert", "rs", cost="shuffled"),
            "RL2D q=0.7": Spec("RL2D q=0.7, shuffled expert", "rl2d", 0.7, cost="shuffled"),
            "RL2D q=1": Spec("RL2D q=1, shuffled expert", "rl2d", 1.0, cost="shuffled")}
DIGITS = dict(expert_classes=(0, 1, 2, 3, 4), pool=4)   # 2×2 images: the model alone is weak, the expert helps


def _config(scale: str, overrides: dict | None = None) -> dict:
    """CONFIG[scale] updated by ``overrides``, with 'seeds' and 'digits_seeds' resolved through
    :mod:`neurips24.seeding` (``seeding.seeds(n_seeds)``), unless ``overrides`` gives them.

    Raises
    ------
    ValueError for an unknown scale or an unknown key in ``overrides``.
    """
    cfg = dict(CONFIG[check_scale(scale)])
    overrides = dict(overrides or {})
    unknown = set(overrides) - set(cfg) - {"seeds", "digits_seeds"}
    if unknown:
        raise ValueError(f"overrides has unknown keys {sorted(unknown)}; known: {sorted(cfg)}")
    cfg.update(overrides)
    cfg.setdefault("seeds", seeding.seeds(cfg["n_seeds"]))
    cfg.setdefault("digits_seeds", seeding.seeds(cfg["digits_n_seeds"]))
    cfg["seeds"], cfg["digits_seeds"] = tuple(cfg["seeds"]), tuple(cfg["digits_seeds"])
    return cfg


@dataclass
class Sweep:
    """System accuracy (and the other metrics) per (label, N or setting, seed).

    acc[(label, key, seed)] -> system accuracy; metrics[(label, key, seed)] -> the full metrics dict.
    labels : the surrogates in plotting order; keys : the N values or settings; seeds : the seeds run.
    """

    labels: tuple
    keys: tuple
    seeds: tuple
    metrics: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    def acc(self, label: str, key, metric: str = "system_acc") -> np.ndarray:
        """(S,) the metric over seeds."""
        return np.array([self.metrics[(label, key, s)][metric] for s in self.seeds])

    def table(self, key, metric: str = "system_acc") -> dict:
        """label -> (mean, std over seeds) of the metric at ``key``."""
        return {lab: (float(self.acc(lab, key, metric).mean()), float(self.acc(lab, key, metric).std(ddof=1)))
                for lab in self.labels}


def run_realizable(scale: str, specs=PAPER_SPECS, overrides: dict | None = None) -> Sweep:
    """Paper Fig. 1a: system accuracy against N on the realizable mixture (d = 10, 10 Gaussians, linear model).

    One distribution per seed; the training sets of the different N are nested (the first N points).
    ``overrides`` replaces entries of ``CONFIG[scale]`` (e.g. ``{"n_values": (250,), "steps": 100}``).

    Raises
    ------
    ValueError for an unknown scale or override.
    """
    cfg = _config(scale, overrides)
    res = Sweep(tuple(s.label for s in specs), tuple(cfg["n_values"]), tuple(cfg["seeds"]), info=dict(cfg))
    for seed in tqdm(cfg["seeds"], disable=None, desc="seeds"):
        data = mixture_data(max(cfg["n_values"]), cfg["n_test"], seed=seed)
        res.info.setdefault("optimal_acc", {})[seed] = data.optimal_acc
        res.info.setdefault("defer_share", {})[seed] = data.defer_share
        for n in cfg["n_values"]:
            out = train_specs(data.first(n), list(specs), steps=cfg["steps"], lr=cfg["lr"], seed=seed)
            for s, m in zip(out.specs, out.metrics, strict=True):
                res.metrics[(s.label, n, seed)] = m
    return res


def run_digits(scale: str, specs=PAPER_SPECS, overrides: dict | None = None) -> Sweep:
    """The non-realizable case: digits blurred to 2×2 (4 features), an expert right on classes 0–4 (random
    elsewhere), as :data:`DIGITS` sets them.

    Keys are the hypothesis sets 'linear' and 'MLP' (one hidden ReLU layer); every surrogate of ``specs``,
    the model alone (:data:`ALONE`) and the controls (:data:`SHUFFLED`) are trained on each seed's split.
    ``info`` records per (set, seed): 'train_loss' (each model's final training loss, its own surrogate),
    'psi1_loss' (each trained model's Ψ_1 surrogate, mean of 1 − t, on the training points with the expert's
    cost: :func:`psi1_training_loss`), and per seed 'mean_cost' (c̄, the defer-everything value of Ψ_1).

    Raises
    ------
    ValueError for an unknown scale or override.
    """
    cfg = _config(scale, overrides)
    all_specs = list(specs) + [ALONE] + list(SHUFFLED.values())
    sets = tuple(cfg["digits_sets"])
    if not sets or not set(sets) <= {"linear", "MLP"}:
        raise ValueError(f"digits_sets must name 'linear' and/or 'MLP', got {sets!r}")
    res = Sweep(tuple(s.label for s in all_specs), sets, tuple(cfg["digits_seeds"]), info=dict(cfg))
    for seed in tqdm(cfg["digits_seeds"], disable=None, desc="seeds"):
        data = digits_data(seed=seed, **DIGITS)
        for key in sets:
            hidden = None if key == "linear" else cfg["hidden"]
            out = train_specs(data, all_specs, hidden=hidden, steps=cfg["digits_steps"], lr=cfg["lr"], seed=seed)
            for s, m in zip(out.specs, out.metrics, strict=True):
                res.metrics[(s.label, key, seed)] = m
            res.info.setdefault("train_loss", {})[(key, seed)] = dict(
                zip([s.label for s in out.specs], out.train_loss.tolist(), strict=True))
            res.info.setdefault("psi1_loss", {})[(key, seed)] = dict(
                zip([s.label for s in out.specs], psi1_training_loss(out.params, data).tolist(), strict=True))
        res.info.setdefault("expert_acc", {})[seed] = float((data.g_test == data.y_test).mean())
        res.info.setdefault("mean_cost", {})[seed] = float((data.g_train != data.y_train).mean())
    return res


def run_tradeoff(scale: str, specs=PAPER_SPECS, seed: int | None = None) -> Sweep:
    """Coverage and system accuracy as the fee β of the cost c = 1{g ≠ y} + β 1{g = y} grows (linear model,
    2×2 digits as :data:`DIGITS`, one seed: ``seeding.seed(0)`` by default). Keys are the β values; the test
    deferral loss uses the same β.

    Raises
    ------
    ValueError for an unknown scale.
    """
    cfg = _config(scale)
    seed = seeding.seed(0) if seed is None else seed
    data = digits_data(seed=seed, **DIGITS)
    all_specs = [Spec(f"{s.label}|{b}", s.name, s.q, beta=b) for b in cfg["betas"] for s in specs]
    out = train_specs(data, all_specs, steps=cfg["digits_steps"], lr=cfg["lr"], seed=seed)
    res = Sweep(tuple(s.label for s in specs), tuple(cfg["betas"]), (seed,), info=dict(cfg))
    for s, m in zip(out.specs, out.metrics, strict=True):
        label, beta = s.label.split("|")
        res.metrics[(label, float(beta), seed)] = m
    return res


def run_pointwise(scale: str, cases=(("CE", "ce", None), ("general", "general", 0.7),
                                      ("RS (Ψ=−log)", "rs", None), ("RL2D q=0.7", "rl2d", 0.7),
                                      ("RL2D q=1", "rl2d", 1.0))) -> dict:
    """For each surrogate and each cost kind ('general', 'expert_error'), the share of random conditional
    problems (3 classes) on which the minimiser of the conditional surrogate risk decides worse than Bayes.
    The problems are drawn with ``seeding.seed(0)``.

    Returns
    -------
    dict (label, kind) -> result of :func:`.pointwise.bayes_failure_share`.
    """
    cfg = _config(scale)
    out = {}
    for kind in ("general", "expert_error"):
        for label, name, q in cases:
            out[(label, kind)] = bayes_failure_share(name, q, kind, n_problems=cfg["pointwise_problems"],
                                                     steps=cfg["pointwise_steps"], seed=seeding.seed(0))
    return out


@lru_cache(maxsize=32)
def explore_run(n_train: int = 1000, machine_error: float = 0.0, expert_error: float = 0.0, seed: int = 0):
    """The widget's run: every surrogate of Fig. 1 on the mixture with N points, optional label noise on the
    model's side and expert errors in the deferral region (non-realizable when either is > 0). Cached.

    Returns
    -------
    :class:`.train.TrainResult`, and the data's generating accuracy, as a tuple.
    """
    data = mixture_data(n_train, 2000, seed=seed, machine_error=machine_error, expert_error_deferred=expert_error)
    cfg = CONFIG["fast"]
    return train_specs(data, list(PAPER_SPECS), steps=cfg["steps"], lr=cfg["lr"], seed=seed), data.optimal_acc


def psi1_training_loss(params: list, data) -> np.ndarray:
    """(K,) the Ψ_1 surrogate mean(1 − t), t = s_y + (1 − c) s_⊥, of K trained models on the training points of
    ``data`` with the expert's cost c = 1{g ≠ y}: whatever each model was trained with, its value on one scale.

    A model that defers every point (s_⊥ = 1) has t = 1 − c, hence the value c̄, the mean cost: the plateau
    of the Ψ_1 member on the digits (the chapter's experiment B).

    Parameters
    ----------
    params : weights in the layout of :func:`.train.init_params` (``TrainResult.params``).
    data : :class:`.data.DeferData`.
    """
    with torch.no_grad():
        logits = forward(params, torch.as_tensor(data.x_train, dtype=torch.float32).T.contiguous())
        logits = logits.transpose(1, 2).double()
        y = torch.as_tensor(data.y_train)
        cost = expert_error_cost(y, torch.as_tensor(data.g_train))
        return rl2d_surrogate(logits, y, cost, q=1.0).mean(-1).numpy()


def gap_to_best_baseline(res: Sweep, label: str, key, baselines=BASELINES) -> dict:
    """How far ``label`` is from the best baseline (highest mean over seeds) at ``key``: the gap of the means
    and the seed spread (the larger of the two seed standard deviations, ddof = 1).

    Returns
    -------
    dict: gap (float, mean of ``label`` minus mean of the best baseline), spread (float), best (str).

    Raises
    ------
    ValueError with fewer than 2 seeds (no spread), or for a label or baseline not in ``res``.
    """
    if len(res.seeds) < 2:
        raise ValueError("a seed spread needs at least 2 seeds")
    for lab in (label, *baselines):
        if lab not in res.labels:
            raise ValueError(f"{lab!r} is not among the run's labels {res.labels}")
    best = max(baselines, key=lambda b: res.acc(b, key).mean())
    a, b = res.acc(label, key), res.acc(best, key)
    return {"gap": float(a.mean() - b.mean()), "spread": float(max(a.std(ddof=1), b.std(ddof=1))), "best": best}


def not_worse_than_baselines(measured: dict) -> bool:
    """The non-realizable claim's rule: on every hypothesis set, gap ≥ −spread (see :func:`gap_to_best_baseline`).

    ``measured`` maps '<set> gap' and '<set> spread' to floats (and may carry other keys, ignored).
    """
    sets = [k[: -len(" gap")] for k in measured if k.endswith(" gap")]
    if not sets:
        raise ValueError("measured must hold '<set> gap' and '<set> spread' entries")
    return all(measured[f"{s} gap"] >= -measured[f"{s} spread"] for s in sets)


def paired_gaps(res: Sweep, label: str, key, baselines=BASELINES) -> np.ndarray:
    """(S,) per-seed accuracy of ``label`` minus that of the best baseline (by mean) at ``key``."""
    best = gap_to_best_baseline(res, label, key, baselines)["best"]
    return res.acc(label, key) - res.acc(best, key)
