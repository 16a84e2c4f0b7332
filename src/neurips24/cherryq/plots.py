"""Figures of the chapter: heterogeneity, PTQ and QAT on SmolLM2 (Experiment A), the miniature (B), the widget."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .experiment import TrainableResult
from .real import RealResult

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


def plot_ptq(res: RealResult, ax=None):
    """Held-out perplexity of every 3-bit PTQ variant of SmolLM2 (log scale), reference as a line."""
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 4.2))
    labels = [k for k in res.nll if k != "reference"]
    vals = [res.ppl(k) for k in labels]
    colours = ["C0" if k.startswith("RTN") else "C3" if k.startswith("impact") else "C2" if k.startswith(
        "activation") else "C1" if k.startswith("magnitude") else "0.5" for k in labels]
    ax.barh(range(len(labels)), vals, color=colours)
    ax.set_yticks(range(len(labels)), [k if k.startswith("RTN") else f"cherries: {k}" for k in labels], fontsize=8)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.axvline(res.ppl("reference"), color="k", ls="--", lw=1, label="reference (4-bit file)")
    ax.set_xlabel("held-out perplexity (log scale)")
    ax.set_title(f"SmolLM2-135M, {res.config['bits']} bits, groups of {res.config['group_size']}", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")
    return ax


def plot_tail(res: RealResult, ax=None):
    """Perplexity before (PTQ) and after QAT / CherryQ on the last blocks, one dot per seed."""
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.5))
    methods = sorted({m for m, _ in res.tail if m != "reference"}, key=lambda m: (m != "QAT", m))
    for i, m in enumerate(methods):
        ax.scatter([i], [res.tail_ppl(m, "PTQ")], marker="x", color="0.4", label="before training" if i == 0 else None)
        seeds = res.config["tail_seeds"]
        ax.scatter([i] * len(seeds), [res.tail_ppl(m, s) for s in seeds], color=f"C{i}", s=25,
                   label="trained (one dot per seed)" if i == 0 else None)
    ax.axhline(res.tail_ppl("reference", "PTQ"), color="k", ls="--", lw=1, label="reference")
    ax.set_xticks(range(len(methods)), methods, fontsize=8)
    ax.set_ylabel("held-out perplexity")
    ax.set_title(f"QAT vs CherryQ on SmolLM2's last {res.config['tail_blocks']} block(s), "
                 f"{res.config['tail_steps']} steps", fontsize=10)
    ax.legend(fontsize=8)
    return ax


def plot_toy(res: TrainableResult, ax=None):
    """Character MLP: PTQ perplexity per method at the first bit width (bars: mean; dots: seeds)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.5))
    b = res.bits[0]
    methods = [m for m in ("RTN", "RTN, zero-point", "cherries (impact)", "cherries (magnitude)",
                           "cherries (activation)", "cherries (random)", "QAT", "CherryQ (impact)")
               if (m, b, res.seeds[0]) in res.ppl]
    for i, m in enumerate(methods):
        vals = res.values(m, b)
        ax.bar(i, np.mean(vals), color=f"C{i}", alpha=0.8)
        ax.scatter([i] * len(vals), vals, color="k", s=8, zorder=3)
    ax.axhline(res.mean("FP", None), color="0.3", ls="--", lw=1, label="full precision")
    ax.set_xticks(range(len(methods)), [m.replace(" (", "\n(") for m in methods], fontsize=7)
    lo = min(min(res.values(m, b)) for m in methods)
    ax.set_ylim(min(lo, res.mean("FP", None)) * 0.97, max(max(res.values(m, b)) for m in methods) * 1.02)
    ax.set_ylabel("held-out perplexity (per character)")
    ax.set_title(f"Character MLP, {b} bits, groups of {res.config['group_size']}, {len(res.seeds)} seeds",
                 fontsize=10)
    ax.legend(fontsize=8)
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
