"""Unlearning algorithms, the retrain oracle and RUM (paper Sec. 5; official ``unlearn/`` and ``main_rum.py``).

Each algorithm is a per-step :class:`.stack.Objective` on the original model's copy, with forget set S and
retain set R (all accuracies and losses are means over the set):

=============  ==============================================================================================
nothing        no update (the original model; the lower end of every comparison)
FT             fine-tune: minimise CE on R (catastrophic forgetting of S)
NegGrad+       minimise α·CE_R − (1 − α)·CE_S (Kurmanji et al. 2023; official ``unlearn/neggrad.py``)
RL             random-label: minimise CE on R ∪ S, S with labels drawn uniformly (official ``RL_original.py``)
L1             FT plus a sparsity penalty α_t ||θ||_1, α_t decaying linearly to 0 (Jia et al. 2023;
               official ``FT.py: FT_l1``)
SCRUB          alternate ``msteps`` max-steps (−KL(teacher || student) on S) with min-steps (γ CE_R + β KL
               on R), then min-steps only; teacher = the original model, temperature T
               (Kurmanji et al. 2023; official ``unlearn/scrub.py``)
=============  ==============================================================================================

**RUM** (refined-unlearning meta-algorithm): split S into homogeneous subsets (here by memorization: low, mid,
high), then unlearn them one after another, each with its own algorithm; at step j the retain set is the
training set minus every subset forgotten so far (S_1 ∪ … ∪ S_j). "RUM^F" runs the same algorithm on each
subset. A sequence of j steps of U each spends j·U gradient steps: the fair baseline is the vanilla algorithm
run for j·U steps on the whole of S (equal compute), which :func:`run_jobs` makes easy to ask for.

All jobs of a call run in one stacked program (:func:`.stack.train_stack`), full-batch Adam; the optimiser state
is reset when a job moves to its next subset. Differences from the official code: full-batch Adam instead of
SGD with mini-batches, one SCRUB teacher (the original model) for every step of a sequence, and random labels
drawn once per job.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .. import seeding
from .forget_sets import check_forget_set
from .stack import Objective, check_data, logits, take, train_stack

ALGORITHMS = ("nothing", "FT", "NegGrad+", "RL", "L1", "SCRUB")

# Hyper-parameters of the miniature (full-batch Adam; see the chapter's "vs the paper" table).
HYPER = {
    "FT": dict(lr=0.01),
    "NegGrad+": dict(lr=0.005, alpha=0.95),
    "RL": dict(lr=0.01),
    "L1": dict(lr=0.01, alpha=2e-4),
    "SCRUB": dict(lr=0.002, gamma=0.99, beta=0.001, temperature=4.0, msteps=4),
}


@dataclass(frozen=True)
class Phase:
    """One step of an unlearning job: an algorithm from :data:`ALGORITHMS`, its forget subset and its steps."""

    algorithm: str
    forget: np.ndarray
    steps: int


@dataclass(frozen=True)
class Job:
    """A labelled sequence of phases (one phase: a vanilla algorithm; several: RUM)."""

    label: str
    phases: tuple

    @property
    def forget(self) -> np.ndarray:
        """The whole forget set S (the union of the phases' subsets), sorted."""
        return np.sort(np.concatenate([p.forget for p in self.phases]))

    @property
    def steps(self) -> int:
        return sum(p.steps for p in self.phases)


# the accepted range of each hyper-parameter: (low, high, low inclusive); lr > 0 (a negative rate would ascend)
_RANGES = {"lr": (0.0, np.inf, False), "alpha": (0.0, 1.0, True), "gamma": (0.0, np.inf, True),
           "beta": (0.0, np.inf, True), "temperature": (0.0, np.inf, False), "msteps": (0.0, np.inf, True)}


def check_hyper(name: str, value) -> float:
    """A hyper-parameter must be a finite number in its range (lr, temperature > 0; alpha in [0, 1]; gamma, beta,
    msteps >= 0; the key is the part of ``name`` after the dot).

    Raises
    ------
    ValueError otherwise, naming the hyper-parameter and its range.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not np.isfinite(value):
        raise ValueError(f"hyper-parameter {name} must be a finite number, got {value!r}")
    low, high, closed = _RANGES.get(name.rsplit(".", 1)[-1], (-np.inf, np.inf, True))
    if value > high or value < low or (value == low and not closed):
        bracket = "[" if closed else "("
        raise ValueError(f"hyper-parameter {name} must lie in {bracket}{low:g}, {high:g}], got {value!r}")
    return float(value)


def make_job(label: str, phases, n: int) -> Job:
    """Build and validate a job: phases is a list of (algorithm, forget indices, steps).

    Raises
    ------
    ValueError on an unknown algorithm, a bad forget set (see :func:`.forget_sets.check_forget_set`), subsets
    that overlap, or steps that are not a positive integer.
    """
    out = []
    for algorithm, forget, steps in phases:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown unlearning algorithm {algorithm!r}; known: {ALGORITHMS}")
        if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
            raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
        out.append(Phase(algorithm, check_forget_set(forget, n), int(steps)))
    if not out:
        raise ValueError("a job needs at least one phase")
    union = np.concatenate([p.forget for p in out])
    if len(np.unique(union)) != len(union):
        raise ValueError("the subsets of a sequential job must not overlap")
    return Job(label, tuple(out))


def _rows(phase: Phase, done: np.ndarray, y: np.ndarray, n_classes: int, rng, hyper: dict) -> dict:
    """Per-point weight rows of one phase (R = all points minus ``done`` minus this subset)."""
    n = len(y)
    forget = np.zeros(n, dtype=bool)
    forget[phase.forget] = True
    retain = ~(forget | done)
    r = torch.as_tensor(retain / max(retain.sum(), 1), dtype=torch.float32)
    s = torch.as_tensor(forget / forget.sum(), dtype=torch.float32)
    zero = torch.zeros(n)
    target = torch.as_tensor(y).clone()
    alg, h = phase.algorithm, hyper.get(phase.algorithm, {})
    for key, v in h.items():
        check_hyper(f"{alg}.{key}", v)
    if alg == "nothing":
        return dict(ce=zero, y=target, lr=1.0)
    if alg in ("FT", "L1"):
        return dict(ce=r, y=target, lr=h["lr"], l1=h.get("alpha", 0.0))
    if alg == "NegGrad+":
        return dict(ce=h["alpha"] * r - (1 - h["alpha"]) * s, y=target, lr=h["lr"])
    if alg == "RL":
        both = torch.as_tensor((retain | forget) / (retain | forget).sum(), dtype=torch.float32)
        target[phase.forget] = torch.as_tensor(rng.integers(0, n_classes, size=len(phase.forget)))
        return dict(ce=both, y=target, lr=h["lr"])
    # SCRUB: max-steps on the forget set, min-steps on the retain set
    return dict(ce=h["gamma"] * r, kl_min=h["beta"] * r, kl_max=-s, y=target, lr=h["lr"],
                max_steps=2 * int(h["msteps"]), temperature=h["temperature"])


def run_jobs(original: dict, x, y, jobs, *, n_classes: int = 10, seed: int | None = None,
             hyper: dict | None = None) -> dict:
    """Unlearn: run every job from a copy of the original model, all jobs in one stacked program.

    Parameters
    ----------
    original : stacked parameters holding one model (the model trained on the whole training set).
    x : (n, d) training inputs; y : (n,) training labels.
    jobs : list of :class:`Job` (built with :func:`make_job`), all with the same total number of steps.
    seed : draws the random labels of RL (default ``neurips24.seed(0)``: the seed offset applies).
    hyper : hyper-parameters per algorithm (default :data:`HYPER`); each must be finite.

    Returns
    -------
    stacked parameters, one model per job, in order.

    Raises
    ------
    ValueError if the jobs' total steps differ, a job's forget indices do not fit the n training points (a job
    built for another data set), a hyper-parameter is not finite or out of its range (see :func:`check_hyper`),
    or x, y are bad (see :func:`.stack.check_data`: labels must lie in [0, n_classes)).
    """
    hyper = HYPER if hyper is None else hyper
    jobs = list(jobs)
    if not jobs or len({j.steps for j in jobs}) != 1:
        raise ValueError("run_jobs needs a non-empty list of jobs with equal total steps (equal compute)")
    x, y = check_data(x, y, n_classes)
    n, steps, m = len(y), jobs[0].steps, len(jobs)
    for job in jobs:
        if job.forget.max() >= n:
            raise ValueError(f"job {job.label!r} forgets index {job.forget.max()}, but there are only n = {n} "
                             f"training points: build its jobs with make_job(..., n={n})")
    rng = np.random.default_rng(seeding.seed(0) if seed is None else seed)
    plans = []                                   # per job: list of (start step, rows)
    for job in jobs:
        done, start, plan = np.zeros(n, dtype=bool), 0, []
        for phase in job.phases:
            plan.append((start, phase, _rows(phase, done, y, n_classes, rng, hyper)))
            done[phase.forget] = True
            start += phase.steps
        plans.append(plan)
    with torch.no_grad():
        teacher = logits(take(original, [0]), x)[0].cpu()
    temperature = HYPER["SCRUB"]["temperature"] if "SCRUB" not in hyper else hyper["SCRUB"]["temperature"]

    def objective(t):
        ce, kl, l1, lr, ys, reset = [], [], [], [], [], torch.zeros(m, dtype=torch.bool)
        for j, plan in enumerate(plans):
            start, phase, rows = next(p for p in reversed(plan) if p[0] <= t)
            tau = t - start
            reset[j] = tau == 0
            zero = torch.zeros(n)
            if "kl_max" in rows:                                         # SCRUB
                maximise = tau < rows["max_steps"] and tau % 2 == 0
                ce.append(zero if maximise else rows["ce"])
                kl.append(rows["kl_max"] if maximise else rows["kl_min"])
            else:
                ce.append(rows["ce"])
                kl.append(zero)
            l1.append(rows.get("l1", 0.0) * (1 - tau / phase.steps))
            lr.append(rows["lr"])
            ys.append(rows["y"])
        obj = Objective(torch.stack(ce), torch.stack(ys), torch.stack(kl), teacher, torch.tensor(l1),
                        temperature, torch.tensor(lr, dtype=torch.float32))
        return obj, reset

    return train_stack(take(original, [0] * m), x, objective, steps, 1.0)
