"""Figures of the chapter: detectability tables, the loss's view of a coordinate, recovery and its scaling."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .experiment import DLQ_LOSSES, U_GRID, Detectability, Recovery, Scaling, dlq_name
from .junta import Junta
from .network import TrainRun
from .queries import loss_derivative
from .tables import exact_correlation

LOSS_COLORS = {"l1": "C1", "squared": "C0", "huber": "C2"}
LOSS_LABELS = {"l1": "ℓ1 loss", "squared": "squared loss", "huber": "Huber (δ = 1)"}


def plot_singles(det: Detectability, inputs: str = "gaussian", ax=None):
    """E[T(y) ψ(x_i)] for every coordinate i (leading basis function), CSQ and DLQ-ℓ1 at u = 0, ± 2 SE."""
    tab = det.tables[inputs]
    ax = ax or plt.subplots(figsize=(6.4, 3.6))[1]
    i = np.arange(1, tab.junta.d + 1)
    for name, label, col, shift in (("y", "CSQ: T = y (= −DLQ squared)", "C0", -0.15),
                                    (dlq_name("l1", 0.0), "DLQ ℓ1 at u = 0: T = sign(−y)", "C1", 0.15)):
        a = tab.column(name)
        ax.errorbar(i + shift, tab.single[a, -1], yerr=2 * tab.single_se[a, -1], fmt="o", ms=3, color=col,
                    label=label)
    lo, hi = min(tab.junta.support) + 0.5, max(tab.junta.support) + 1.5
    ax.axvspan(lo, hi, color="0.85", zorder=0, label="support S*")
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xlabel("coordinate i")
    ax.set_ylabel(f"E[T(y) {tab.feature_names[-1]}(x_i)]")
    ax.set_title(f"single coordinates, {inputs} inputs, d = {tab.junta.d} ({tab.n:,} samples, bars ± 2 SE)")
    ax.legend(fontsize=8, loc="lower right")
    return ax


def plot_pairs(det: Detectability, inputs: str = "gaussian", axes=None):
    """Heat maps of |t| = |estimate| / SE of the pair entries E[T(y) ψ(x_i) ψ(x_j)], CSQ and DLQ-ℓ1 at u = 0."""
    tab = det.tables[inputs]
    if axes is None:
        axes = plt.subplots(1, 2, figsize=(9.0, 4.0), constrained_layout=True)[1]
    vmax = max(det.z_star * 2, 10.0)
    for ax, name, title in zip(axes, ("y", dlq_name("l1", 0.0)), ("CSQ: T = y", "DLQ ℓ1, u = 0"), strict=True):
        t = np.abs(tab.t_pair(name))
        im = ax.imshow(np.minimum(t, vmax), cmap="viridis", vmin=0, vmax=vmax, origin="lower",
                       extent=(0.5, tab.junta.d + 0.5, 0.5, tab.junta.d + 0.5))
        ax.set_title(f"{title}: |t| of pairs (capped at {vmax:.0f})", fontsize=10)
        ax.set_xlabel("coordinate j")
        ax.set_ylabel("coordinate i")
        ax.grid(False)
    plt.colorbar(im, ax=axes, shrink=0.8, label=f"|t|  (Bonferroni threshold {det.z_star:.1f})")
    return axes


def plot_u_curves(det: Detectability, inputs: str = "gaussian", ax=None):
    """E[ℓ'(u, y) ψ(x_1)] against the model output u for each loss: exact (lines) and Monte Carlo (points)."""
    tab = det.tables[inputs]
    junta = tab.junta
    ax = ax or plt.subplots(figsize=(6.4, 3.8))[1]
    u_fine = np.linspace(min(U_GRID), max(U_GRID), 601)
    i0 = junta.support[0]
    for loss in DLQ_LOSSES:
        exact = [exact_correlation(junta, lambda y, u=u, loss=loss: loss_derivative(loss, u, y), (i0,)) for u in u_fine]
        ax.plot(u_fine, exact, color=LOSS_COLORS[loss], label=f"{LOSS_LABELS[loss]} (exact)")
        a = [tab.column(dlq_name(loss, u)) for u in U_GRID]
        ax.errorbar(U_GRID, tab.single[a, -1, i0], yerr=2 * tab.single_se[a, -1, i0], fmt="o", ms=4,
                    color=LOSS_COLORS[loss])
    for v in junta.label_values():
        ax.axvline(v, color="0.6", ls=":", lw=0.8)
    ax.axhline(0, color="k", lw=0.8)
    ax.set_xlabel("model output u (dotted: the label values)")
    ax.set_ylabel(f"E[ℓ'(u, y) {tab.feature_names[-1]}(x_1)]")
    ax.set_title("one relevant coordinate seen by a gradient query (points: Monte Carlo ± 2 SE)", fontsize=10)
    ax.legend(fontsize=8)
    return ax


def plot_recovery(rec: Recovery, ax=None, claim_l1: float = 0.25, claim_squared: float = 0.10):
    """Aligned share of neurons against SGD steps / d, per loss (colour) and d (line style); one line per seed."""
    ax = ax or plt.subplots(figsize=(6.4, 4.0))[1]
    styles = ["-", "--", ":", "-."]
    for (loss, d), run in rec.runs.items():
        ls = styles[rec.d_values.index(d) % len(styles)]
        for s, row in enumerate(run.aligned):
            ax.plot(run.steps / d, row, ls=ls, color=LOSS_COLORS[loss], alpha=0.8, lw=1.2,
                    label=f"{LOSS_LABELS[loss]}, d = {d}" if s == 0 else None)
    ax.axhline(claim_l1, color="C1", lw=0.8, alpha=0.5)
    ax.axhline(claim_squared, color="C0", lw=0.8, alpha=0.5)
    ax.set_xlabel("SGD steps / d")
    ax.set_ylabel("share of neurons aligned with S*")
    ax.set_title(f"online SGD, Gaussian target, {len(rec.seeds)} seeds per line style")
    ax.legend(fontsize=8)
    return ax


def plot_scaling(sc: Scaling, ax=None):
    """Steps to recovery / d against d (log scale), mean and seed range; runs that did not recover within the
    horizon are drawn as open triangles at the horizon."""
    ax = ax or plt.subplots(figsize=(6.4, 4.0))[1]
    d = np.array(sc.d_values, dtype=float)
    markers = {"boolean": "o", "gaussian": "s"}
    for inputs, loss in sc.cases:
        T = sc.steps_to_recovery(inputs, loss) / d[:, None]
        ok = np.all(np.isfinite(T), axis=1)
        col = LOSS_COLORS[loss]
        label = f"{LOSS_LABELS[loss]}, {inputs} target"
        if ok.any():
            Tok = T[ok]
            mean, lo, hi = Tok.mean(axis=1), Tok.min(axis=1), Tok.max(axis=1)
            ax.errorbar(d[ok], mean, yerr=[mean - lo, hi - mean], marker=markers[inputs],
                        color=col, ls="-" if inputs == "boolean" else "--", capsize=3, label=label)
            label = None
        if (~ok).any():
            ax.plot(d[~ok], np.full((~ok).sum(), sc.horizon_per_d), marker="^", mfc="none", ls="none",
                    color=col, ms=9, label=label or f"{LOSS_LABELS[loss]}, {inputs}: not within {sc.horizon_per_d} d")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("dimension d")
    ax.set_ylabel(f"steps until {sc.level:.0%} of neurons aligned, / d")
    ax.set_title("linear scaling: a flat line is O(d) steps")
    ax.legend(fontsize=8)
    return ax


def plot_explore(junta: Junta, run: TrainRun, ax=None):
    """The widget's view: one run's aligned share against steps / d, with the exact single-coordinate
    correlation E[ℓ'(0, y) ψ(x_1)] the loss sees at initialisation in the title."""
    ax = ax or plt.subplots(figsize=(6.4, 3.8))[1]
    ax.plot(run.steps / run.d, run.aligned[0], color=LOSS_COLORS[run.loss])
    seen = exact_correlation(junta, lambda y: loss_derivative(run.loss, 0.0, y), (junta.support[0],))
    ax.set_ylim(-0.02, 1.0)
    ax.set_xlabel("SGD steps / d")
    ax.set_ylabel("share of neurons aligned with S*")
    ax.set_title(f"{LOSS_LABELS[run.loss]}, {junta.inputs}, d = {junta.d}, p = {junta.p:g}: "
                 f"E[ℓ'(0, y) ψ(x_1)] = {seen:+.3f}", fontsize=9)
    return ax
