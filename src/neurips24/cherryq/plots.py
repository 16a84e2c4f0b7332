"""Figures of the chapter: heterogeneity per matrix (Experiment A), perplexity per method (Experiment B), widget."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .experiment import RealResult, TrainableResult

KINDS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


def plot_heterogeneity(res: RealResult, ax=None):
    """Heterogeneity score of every decoder matrix of SmolLM2 (x: layer, one marker per kind), impact vs |w|."""
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 4))
    layer = np.array([int(n.split(".layers.")[1].split(".")[0]) for n in res.names])
    kind = [n.rsplit(".", 1)[1] for n in res.names]
    markers = dict(zip(KINDS, "os^vDP*", strict=True))
    for kd in KINDS:
        sel = np.array([k == kd for k in kind])
        jitter = (KINDS.index(kd) - 3) * 0.08
        ax.scatter(layer[sel] + jitter, res.hs_impact[sel], marker=markers[kd], s=18, color="C3",
                   label=f"impact, {kd}" if kd == "q_proj" else None)
        ax.scatter(layer[sel] + jitter, res.hs_magnitude[sel], marker=markers[kd], s=18, color="C0",
                   label="magnitude |w|" if kd == "q_proj" else None)
    ax.set_yscale("log")
    ax.set_xlabel("decoder layer")
    ax.set_ylabel("heterogeneity score HS")
    ax.set_title("SmolLM2-135M: HS of all decoder matrices (markers: q, k, v, o, gate, up, down)")
    ax.axhline(1.0, color="0.6", lw=0.8)
    ax.legend(["impact (Fisher)", "magnitude |w|"], loc="upper right")
    return ax


def plot_trainable(res: TrainableResult, methods=("RTN", "cherry PTQ (impact)", "QAT", "CherryQ"), ax=None):
    """Held-out perplexity per method and bit width: mean over seeds (bars) and every seed (dots); FP as a line."""
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 4))
    width = 0.8 / len(methods)
    for i, m in enumerate(methods):
        for j, b in enumerate(res.bits):
            x = j + (i - (len(methods) - 1) / 2) * width
            vals = res.values(m, b)
            ax.bar(x, np.mean(vals), width, color=f"C{i}", label=m if j == 0 else None, alpha=0.8)
            ax.scatter([x] * len(vals), vals, color="k", s=8, zorder=3)
    ax.axhline(res.mean("FP", None), color="0.3", ls="--", lw=1, label="full precision")
    ax.set_xticks(range(len(res.bits)), [f"{b} bits" for b in res.bits])
    lo = min(min(res.values(m, b)) for m in methods for b in res.bits)
    hi = max(max(res.values(m, b)) for m in methods for b in res.bits)
    ax.set_ylim(min(lo, res.mean("FP", None)) * 0.97, hi * 1.03)
    ax.set_ylabel("held-out perplexity (per character)")
    ax.set_title(f"Character MLP, group size {res.config['group_size']}, {len(res.seeds)} seeds")
    ax.legend(fontsize=8, ncol=2)
    return ax


def plot_explore(ppl: dict, bits: int, group_size: int, cherry_fraction: float, ax=None):
    """Bars of the widget's PTQ perplexities (see :func:`~neurips24.cherryq.experiment.explore_ptq`)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.2))
    labels = ["FP", "RTN", "cherry PTQ (impact)", "cherry PTQ (magnitude)"]
    vals = [ppl[k] for k in labels]
    ax.bar(range(4), vals, color=["0.5", "C0", "C1", "C2"])
    ax.set_xticks(range(4), ["FP", "RTN", "cherries\nby impact", "cherries\nby |w|"])
    ax.set_ylim(min(vals) * 0.95, max(vals) * 1.05)
    ax.set_ylabel("held-out perplexity")
    ax.set_title(f"{bits} bits, groups of {group_size}, {ppl['k']} cherries per row "
                 f"(fraction {cherry_fraction:.3g})", fontsize=10)
    return ax
