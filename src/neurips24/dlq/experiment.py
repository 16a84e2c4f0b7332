"""The chapter's experiments, sized by the run scale.

- :func:`run_detectability`: the Monte Carlo detectability tables of the book's target (Gaussian and Boolean
  inputs) for CSQ, DLQ with the squared, ℓ1 and Huber losses at several model outputs u, and SQ; the set
  systems, Leap and Cover read from them.
- :func:`run_recovery`: online SGD of the mean-field network with the squared and the ℓ1 loss on the Gaussian
  target; the share of neurons aligned with S* per loss, d and seed.
- :func:`run_scaling`: the number of SGD steps until 20 % of the neurons are aligned, against d, for the ℓ1
  loss on both targets and for the squared loss on the Boolean one.
- :func:`explore_run`: the single run behind the chapter's widget.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import seeding
from ..scale import check_scale
from .junta import Junta, make_junta
from .leap import cover, leap
from .network import TrainRun, train_online
from .queries import query_transforms
from .tables import bonferroni_z, correlation_table, exact_correlation

CONFIG = {
    "fast": dict(table_d=32, table_samples=2 ** 19, chunk=2 ** 16, recovery_d=(32, 64), scaling_d=(32, 64, 128),
                 n_seeds=3, steps_per_d=40, m=256, batch=16, eta0=2.0),
    "full": dict(table_d=64, table_samples=2 ** 24, chunk=2 ** 16, recovery_d=(64, 128, 256),
                 scaling_d=(32, 64, 128, 256), n_seeds=5, steps_per_d=40, m=256, batch=16, eta0=2.0),
}
U_GRID = (-3.0, -1.0, 0.0, 0.25, 1.0, 4.0, 9.0)   # model outputs u at which DLQ transforms are tabulated
DLQ_LOSSES = ("squared", "l1", "huber")
P_BITS = 0.2            # P(β_i = 1): the target's asymmetry (p = 1/2 would make the labels binary)
LEVEL = 0.2             # "recovered": at least this share of neurons aligned with S*
FAMILY_LEVEL = 0.01     # family-wise error of the Bonferroni threshold on the |t| of a table


def dlq_name(loss: str, u: float) -> str:
    """Column name of the DLQ transform ℓ'(u, y) in a table, e.g. "l1'(u=0)"."""
    return f"{loss}'(u={u:g})"


def table_transforms(junta: Junta, u_grid=U_GRID):
    """The label transforms of the chapter's tables and their names.

    Columns: 'y' (CSQ); ℓ'(u, y) for the squared, ℓ1 and Huber (δ = 1) losses at every u of ``u_grid`` (DLQ);
    1[y = v] for each label value v (SQ).

    Returns
    -------
    (transform, names): ``transform(y) -> (n, K)`` float64 and the K column names.
    """
    levels = junta.label_values()

    def transform(y):
        cols = [query_transforms("csq", y)[0]]
        cols += [query_transforms("dlq", y, loss=loss, u=np.asarray(u_grid))[0] for loss in DLQ_LOSSES]
        cols.append(query_transforms("sq", y, levels=levels)[0])
        return np.hstack(cols)

    names = ["y"] + [dlq_name(loss, u) for loss in DLQ_LOSSES for u in u_grid] + [f"1[y={v:.3g}]" for v in levels]
    return transform, names


@dataclass
class Detectability:
    """The tables of :func:`run_detectability`.

    tables : {'gaussian': CorrelationTable, 'boolean': CorrelationTable}.   z_star : the Bonferroni |t|
    threshold (family-wise level ``FAMILY_LEVEL`` over a CSQ table's single and pair entries).
    """

    tables: dict
    z_star: float
    scale: str

    def classes(self, inputs: str, u0_only: bool = False) -> dict:
        """Query class -> the table columns it may use. DLQ_ℓ uses ℓ'(u, y) at every tabulated u (the span over
        u is its family), or only at u = 0 — the network's output at initialisation — with ``u0_only``."""
        names = self.tables[inputs].names
        us = (0.0,) if u0_only else U_GRID
        out = {"CSQ": ["y"]}
        for loss in DLQ_LOSSES:
            out[f"DLQ {loss}"] = [dlq_name(loss, u) for u in us]
        out["SQ"] = [n for n in names if n.startswith("1[y=")]
        return out

    def csq_max_t(self, inputs: str) -> float:
        """max |t| of the CSQ table over every single coordinate (every basis function) and every pair."""
        tab = self.tables[inputs]
        return float(max(np.max(np.abs(tab.t_single("y"))), np.nanmax(np.abs(tab.t_pair("y")))))

    def support_singles_t(self, inputs: str, name: str) -> np.ndarray:
        """(P,) |t| of the single-coordinate entries of S* for column ``name``, with the leading basis
        function (He2 for Gaussian inputs, z for Boolean)."""
        tab = self.tables[inputs]
        return np.abs(tab.t_single(name)[-1, list(tab.junta.support)])

    def off_support_max_t(self, inputs: str, name: str) -> float:
        """max |t| of column ``name`` over every single coordinate outside S* (every basis function) and, where
        the column has a pair table, every pair with a coordinate outside S*: the specificity of a query."""
        tab = self.tables[inputs]
        off = np.setdiff1d(np.arange(tab.junta.d), tab.junta.support)
        best = float(np.max(np.abs(tab.t_single(name)[:, off])))
        if tab.column(name) in tab.pair_columns:
            t = np.abs(tab.t_pair(name))
            inside = np.zeros(tab.junta.d, dtype=bool)
            inside[list(tab.junta.support)] = True
            mask = ~(inside[:, None] & inside[None, :])
            best = max(best, float(np.nanmax(np.where(mask, t, np.nan))))
        return best

    def detected_coordinates(self, inputs: str, name: str) -> list[int]:
        """The coordinates (0-based, over all d) that column ``name`` detects alone, |t| > z* for some basis
        function: the single-coordinate sets of the query's system read over every coordinate, not only S*."""
        t = np.abs(self.tables[inputs].t_single(name))
        return [int(i) for i in np.flatnonzero(np.max(t, axis=0) > self.z_star)]

    def support_t(self, inputs: str, name: str) -> float:
        """|t| of the entry U = S* (leading basis function) for column ``name``."""
        tab = self.tables[inputs]
        return float(abs(tab.t_subset(name)[-1, -1]))

    def leap_cover(self, inputs: str, u0_only: bool = False) -> dict:
        """Query class -> (detectable sets, Leap, Cover), read from the table with threshold ``z_star``."""
        tab = self.tables[inputs]
        out = {}
        for cls, cols in self.classes(inputs, u0_only).items():
            sets = tab.detectable(cols, self.z_star)
            out[cls] = (sets, leap(sets, tab.junta.support), cover(sets, tab.junta.support))
        return out

    def rows(self, inputs: str) -> list[dict]:
        """The detectability table of the subsets of S*, leading basis function, DLQ at u = 0: one dict per U
        with, per class, the Monte Carlo estimate, its standard error and the exact value (SQ: the level
        with the largest |t|)."""
        tab = self.tables[inputs]
        out = []
        for j, U in enumerate(tab.subsets):
            row = {"U": U}
            for cls, cols in self.classes(inputs, u0_only=True).items():
                t = [abs(tab.t_subset(c)[-1, j]) for c in cols]
                a = tab.column(cols[int(np.argmax(t))])
                row[cls] = (float(tab.subset[a, -1, j]), float(tab.subset_se[a, -1, j]),
                            exact_correlation(tab.junta, _transform_of(tab.junta, tab.names, a), U))
            out.append(row)
        return out


    def markdown(self, inputs: str) -> str:
        """The detectability table as Markdown: E[T(y) ψ(x_U)] per subset U of S* and query class, Monte
        Carlo estimate ± one standard error (exact value in brackets), DLQ at u = 0; then Leap and Cover."""
        rows = self.rows(inputs)
        classes = list(rows[0])[1:]
        head = {"CSQ": "CSQ (T = y)", "DLQ squared": "DLQ squared, u = 0", "DLQ l1": "DLQ ℓ1, u = 0",
                "DLQ huber": "DLQ Huber, u = 0", "SQ": "SQ (largest 1[y = v])"}
        lines = ["| U | " + " | ".join(head[c] for c in classes) + " |", "|---" * (len(classes) + 1) + "|"]
        for r in rows:
            cells = [f"{est:+.3f} ± {se:.1g} ({ex:+.3f})" for est, se, ex in (r[c] for c in classes)]
            lines.append("| {" + ", ".join(str(i + 1) for i in r["U"]) + "} | " + " | ".join(cells) + " |")
        for label, u0 in (("Leap / Cover at u = 0", True), ("Leap / Cover, all u", False)):
            lc = self.leap_cover(inputs, u0_only=u0)
            lines.append(f"| {label} | " + " | ".join(f"{_fmt(lc[c][1])} / {_fmt(lc[c][2])}" for c in classes)
                         + " |")
        return "\n".join(lines)


def _fmt(v: float) -> str:
    return "∞" if math.isinf(v) else str(int(v))


def _transform_of(junta: Junta, names: list, a: int):
    """The callable T(y) behind column ``a`` of :func:`table_transforms` (for the exact values)."""
    name = names[a]
    if name == "y":
        return lambda y: y
    if name.startswith("1[y="):
        v = junta.label_values()[a - names.index(next(n for n in names if n.startswith("1[y=")))]
        return lambda y: np.isclose(y, v, rtol=0, atol=1e-9).astype(float)
    loss, u = name.split("'(u=")
    return lambda y: query_transforms("dlq", y, loss=loss, u=float(u[:-1]))[0][:, 0]


def run_detectability(scale: str = "fast", *, d: int | None = None, n_samples: int | None = None,
                      seed: int | None = None) -> Detectability:
    """Monte Carlo detectability tables of the book's target, P = 3, p = 0.2, Gaussian and Boolean inputs.

    Parameters
    ----------
    scale : 'fast' or 'full' (sizes from ``CONFIG``); ``d`` and ``n_samples`` override them.
    seed : seeds the samples (default ``neurips24.seed(0)``, the book's seed offset applied).

    Raises
    ------
    ValueError for an unknown scale (and whatever :func:`~neurips24.dlq.tables.correlation_table` raises).
    """
    cfg = CONFIG[check_scale(scale)]
    seed = seeding.seed(0) if seed is None else seed
    d = cfg["table_d"] if d is None else d
    n = cfg["table_samples"] if n_samples is None else n_samples
    tables = {}
    for k, inputs in enumerate(("gaussian", "boolean")):
        junta = make_junta(d, (0, 1, 2), inputs, P_BITS)
        transform, names = table_transforms(junta)
        tables[inputs] = correlation_table(junta, transform, names, n, seed=seed + k, chunk=min(cfg["chunk"], n),
                                           pair_columns=(0, names.index(dlq_name("l1", 0.0))))
    n_feat = len(tables["gaussian"].feature_names)
    n_tests = d * n_feat + d * (d - 1) // 2
    return Detectability(tables=tables, z_star=bonferroni_z(n_tests, FAMILY_LEVEL), scale=scale)


@dataclass
class Recovery:
    """Online SGD on the Gaussian target: runs[(loss, d)] is a :class:`TrainRun` over the seeds."""

    runs: dict
    seeds: tuple
    d_values: tuple
    scale: str

    def fractions(self, loss: str) -> dict:
        """{(d, seed): aligned fraction at the end of training} for ``loss``."""
        return {(d, s): float(f) for d in self.d_values
                for s, f in zip(self.seeds, self.runs[(loss, d)].final(), strict=True)}

    def markdown(self) -> str:
        """The aligned shares after training, one row per d and seed, as a Markdown table."""
        l1, sq = self.fractions("l1"), self.fractions("squared")
        lines = ["| d | seed | ℓ1 loss | squared loss |", "|---|---|---|---|"]
        lines += [f"| {d} | {s} | {l1[(d, s)]:.3f} | {sq[(d, s)]:.3f} |" for d, s in l1]
        return "\n".join(lines)


def run_recovery(scale: str = "fast", seeds=None) -> Recovery:
    """The squared and the ℓ1 loss, d from ``CONFIG``, T = 40 d steps, every seed (Gaussian target); ``seeds``
    default to ``neurips24.seeds(CONFIG[scale]['n_seeds'])`` (the book's seed offset applied)."""
    cfg = CONFIG[check_scale(scale)]
    cfg = dict(cfg, seeds=tuple(seeding.seeds(cfg["n_seeds"]) if seeds is None else seeds))
    runs = {}
    for d in cfg["recovery_d"]:
        junta = make_junta(d, (0, 1, 2), "gaussian", P_BITS)
        for loss in ("l1", "squared"):
            runs[(loss, d)] = train_online(junta, loss, cfg["steps_per_d"] * d, seeds=cfg["seeds"], m=cfg["m"],
                                           batch=cfg["batch"], eta0=cfg["eta0"])
    return Recovery(runs=runs, seeds=tuple(cfg["seeds"]), d_values=tuple(cfg["recovery_d"]), scale=scale)


@dataclass
class Scaling:
    """Steps to recovery against d.

    runs[(inputs, loss, d)] : :class:`TrainRun`.   cases : the (inputs, loss) pairs.   level : the recovery
    level (share of aligned neurons).   horizon_per_d : runs stop at this many steps per dimension.
    """

    runs: dict
    cases: tuple
    d_values: tuple
    seeds: tuple
    level: float
    horizon_per_d: int
    scale: str

    def steps_to_recovery(self, inputs: str, loss: str) -> np.ndarray:
        """(len(d_values), S) first step with aligned share >= level (``inf``: not within the horizon)."""
        return np.stack([self.runs[(inputs, loss, d)].first_passage(self.level) for d in self.d_values])

    def local_exponent(self, inputs: str, loss: str) -> np.ndarray:
        """(S,) α per seed from the two largest d: T(d_max) / T(d_prev) = (d_max / d_prev)^α (``inf`` when a run
        did not recover within the horizon). α = 1 is linear scaling."""
        T = self.steps_to_recovery(inputs, loss)
        d1, d2 = self.d_values[-2], self.d_values[-1]
        with np.errstate(invalid="ignore", divide="ignore"):
            alpha = np.log(T[-1] / T[-2]) / math.log(d2 / d1)
        return np.where(np.isfinite(T[-1]) & np.isfinite(T[-2]), alpha, math.inf)

    def fitted_exponent(self, inputs: str, loss: str) -> np.ndarray:
        """(S,) α per seed by least squares of log T on log d over every d of the scale (``inf`` when a run did
        not recover within the horizon at some d). α = 1 is linear scaling."""
        T = self.steps_to_recovery(inputs, loss)
        ld = np.log(np.asarray(self.d_values, dtype=np.float64))
        out = np.full(T.shape[1], math.inf)
        ok = np.all(np.isfinite(T), axis=0)
        if ok.any():
            out[ok] = np.polyfit(ld, np.log(T[:, ok]), 1)[0]
        return out

    def doubling_increments(self, inputs: str, loss: str) -> np.ndarray:
        """(len(d_values) − 1, S) local exponent between consecutive d, log(T(d_k+1)/T(d_k)) / log(d_k+1/d_k)
        (for doublings of d: log2 of the ratio of steps); ``inf`` where a run did not recover."""
        T = self.steps_to_recovery(inputs, loss)
        d = np.asarray(self.d_values, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            inc = np.log(T[1:] / T[:-1]) / np.log(d[1:] / d[:-1])[:, None]
        return np.where(np.isfinite(T[1:]) & np.isfinite(T[:-1]), inc, math.inf)

    def markdown(self) -> str:
        """Steps to recovery / d (mean over seeds, range in brackets; '—': some seed did not recover within the
        horizon) per d and case, and the local exponent α per seed, as a Markdown table."""
        head = [f"{loss}, {inputs}" for inputs, loss in self.cases]
        lines = ["| d | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
        per_d = {case: self.steps_to_recovery(*case) / np.array(self.d_values)[:, None] for case in self.cases}
        for k, d in enumerate(self.d_values):
            cells = []
            for case in self.cases:
                row = per_d[case][k]
                cells.append(f"{row.mean():.2f} ({row.min():.2f}–{row.max():.2f})" if np.all(np.isfinite(row))
                             else f"— ({int(np.sum(np.isfinite(row)))} of {row.size} seeds)")
            lines.append(f"| {d} | " + " | ".join(cells) + " |")
        alpha = [", ".join("∞" if math.isinf(a) else f"{a:.2f}" for a in self.local_exponent(*case))
                 for case in self.cases]
        lines.append(f"| α ({self.d_values[-2]} → {self.d_values[-1]}) | " + " | ".join(alpha) + " |")
        return "\n".join(lines)


SCALING_CASES = (("boolean", "l1"), ("boolean", "squared"), ("gaussian", "l1"))


def run_scaling(scale: str = "fast", seeds=None) -> Scaling:
    """Steps until ``LEVEL`` of the neurons are aligned, d from ``CONFIG['scaling_d']``, horizon 40 d steps;
    ℓ1 on the Boolean and the Gaussian target, squared loss on the Boolean one (the Gaussian squared-loss runs
    of :func:`run_recovery` never recover). A run stops once every seed has recovered. ``seeds`` default to
    ``neurips24.seeds(CONFIG[scale]['n_seeds'])``."""
    cfg = CONFIG[check_scale(scale)]
    cfg = dict(cfg, seeds=tuple(seeding.seeds(cfg["n_seeds"]) if seeds is None else seeds))
    runs = {}
    for inputs, loss in SCALING_CASES:
        for d in cfg["scaling_d"]:
            junta = make_junta(d, (0, 1, 2), inputs, P_BITS)
            runs[(inputs, loss, d)] = train_online(junta, loss, cfg["steps_per_d"] * d, seeds=cfg["seeds"],
                                                   m=cfg["m"], batch=cfg["batch"], eta0=cfg["eta0"],
                                                   stop_at=LEVEL)
    return Scaling(runs=runs, cases=SCALING_CASES, d_values=tuple(cfg["scaling_d"]), seeds=tuple(cfg["seeds"]),
                   level=LEVEL, horizon_per_d=cfg["steps_per_d"], scale=scale)


def explore_run(loss: str = "l1", d: int = 32, inputs: str = "gaussian", p: float = P_BITS,
                seed: int | None = None) -> tuple[Junta, TrainRun]:
    """One run of 40 d steps for the widget: any loss, d, input distribution and bit bias p (``seed`` defaults
    to ``neurips24.seed(0)``)."""
    seed = seeding.seed(0) if seed is None else seed
    junta = make_junta(d, (0, 1, 2), inputs, p)
    return junta, train_online(junta, loss, 40 * d, seeds=(seed,))
