"""Figures of the chapter: accuracy against N (Fig. 1a), per-seed dots, the coverage/accuracy trade-off."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .experiment import Sweep

COLORS = {"CE": "C7", "OvA": "C5", "general": "C4", "RS (Ψ=−log)": "C0", "RL2D q=0.7": "C1",
          "RL2D q=1": "C3"}


def plot_accuracy_vs_n(res: Sweep, ax=None):
    """System accuracy against N: mean over seeds (line) and each seed (dots), one colour per surrogate."""
    ax = ax or plt.subplots(figsize=(6.4, 4.0))[1]
    ns = np.array(res.keys)
    for lab in res.labels:
        acc = np.stack([res.acc(lab, n) for n in ns])          # (len(ns), S)
        col = COLORS.get(lab)
        ax.plot(ns, acc.mean(1), "o-", color=col, label=lab)
        for j in range(acc.shape[1]):
            ax.scatter(ns * (1 + 0.03 * (j - 1)), acc[:, j], color=col, s=8, alpha=0.5)
    ax.set_xscale("log")
    ax.set_xlabel("training points N")
    ax.set_ylabel("system accuracy (test)")
    ax.set_title(f"realizable mixture, linear model, {len(res.seeds)} seeds (dots)")
    ax.legend(fontsize=8, ncol=2)
    return ax


def plot_digits(res: Sweep, axes=None):
    """Per-seed system accuracy (dots) and mean (bar) of every surrogate, linear and MLP."""
    if axes is None:
        axes = plt.subplots(1, 2, figsize=(9.6, 3.8), sharey=True)[1]
    for ax, key in zip(axes, res.keys, strict=True):
        for i, lab in enumerate(res.labels):
            acc = res.acc(lab, key)
            col = COLORS.get(lab, "0.6")
            ax.bar(i, acc.mean(), color=col, alpha=0.35)
            ax.scatter(np.full(acc.shape, i), acc, color=col, s=14, zorder=3)
        ax.set_xticks(range(len(res.labels)))
        ax.set_xticklabels(res.labels, rotation=60, ha="right", fontsize=8)
        ax.set_title(f"digits 2×2, {key}")
    axes[0].set_ylabel("system accuracy (test)")
    return axes


def plot_tradeoff(res: Sweep, ax=None):
    """Coverage against system accuracy, one curve per surrogate, one point per fee β (labelled)."""
    ax = ax or plt.subplots(figsize=(6.4, 4.2))[1]
    seed = res.seeds[0]
    for lab in res.labels:
        cov = [res.metrics[(lab, b, seed)]["coverage"] for b in res.keys]
        acc = [res.metrics[(lab, b, seed)]["system_acc"] for b in res.keys]
        ax.plot(cov, acc, "o-", color=COLORS.get(lab), label=lab)
        if lab == res.labels[0]:
            for b, c, a in zip(res.keys, cov, acc, strict=True):
                ax.annotate(f"β={b:g}", (c, a), fontsize=7, xytext=(3, 3), textcoords="offset points")
    ax.set_xlabel("coverage (share of points the model keeps)")
    ax.set_ylabel("system accuracy (test)")
    ax.set_title("digits 2×2, linear model: cost 1{g≠y} + β·1{g=y}")
    ax.legend(fontsize=8)
    return ax


def plot_explore(result, optimal_acc: float, ax=None):
    """The widget's view: system accuracy and coverage of every surrogate on one run."""
    ax = ax or plt.subplots(figsize=(6.4, 3.6))[1]
    labels = [s.label for s in result.specs]
    acc = [m["system_acc"] for m in result.metrics]
    cov = [m["coverage"] for m in result.metrics]
    x = np.arange(len(labels))
    ax.bar(x - 0.2, acc, 0.4, color=[COLORS.get(lab) for lab in labels], label="system accuracy")
    ax.bar(x + 0.2, cov, 0.4, color="0.75", label="coverage")
    ax.axhline(optimal_acc, color="k", ls=":", lw=1, label="generating rules")
    ax.set_xticks(x)
    ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8, loc="lower right")
    return ax
