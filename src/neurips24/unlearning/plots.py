"""Figures of the chapter: memorization of noisy vs clean points, ToW by forget set, RUM vs vanilla."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .experiment import TABLE_SETS, VANILLA, UnlearningResult


def plot_memorization(res: UnlearningResult, ax=None):
    """Histogram of mem for clean and noisy (flipped-label) training points, all seeds pooled."""
    ax = ax or plt.subplots(figsize=(5.5, 3.2))[1]
    mem = np.concatenate([r.mem for r in res.runs])
    noisy = np.concatenate([r.noisy for r in res.runs])
    bins = np.linspace(-0.4, 1.0, 29)
    ax.hist(mem[~noisy], bins=bins, alpha=0.7, label=f"clean labels ({(~noisy).sum()})", density=True)
    ax.hist(mem[noisy], bins=bins, alpha=0.7, label=f"flipped labels ({noisy.sum()})", density=True)
    ax.set_xlabel("memorization score mem (Feldman–Zhang estimate)")
    ax.set_ylabel("density")
    ax.legend()
    return ax


def plot_tow(res: UnlearningResult, metric: str = "tow", sets=("low", "mid", "high", "random"), ax=None,
             methods=None):
    """Mean ToW (or ToW-MIA) ± seed standard deviation, per method and forget set."""
    ax = ax or plt.subplots(figsize=(7.5, 3.4))[1]
    table = res.tow_table(metric)
    methods = methods or ("nothing",) + VANILLA
    width = 0.8 / len(sets)
    for j, name in enumerate(sets):
        means = [table[(m, name)].mean() for m in methods]
        stds = [table[(m, name)].std(ddof=1) if len(res.seeds) > 1 else 0 for m in methods]
        ax.bar(np.arange(len(methods)) + (j - (len(sets) - 1) / 2) * width, means, width, yerr=stds,
               label=f"forget set: {name}", capsize=2)
    ax.set_xticks(np.arange(len(methods)), methods)
    ax.set_ylabel("ToW-MIA" if metric == "tow_mia" else "ToW (1 = same as retraining)")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8, ncol=len(sets), loc="lower center", bbox_to_anchor=(0.5, 1.0))
    return ax


def plot_rum(res: UnlearningResult, metric: str = "rum", ax=None):
    """ToW on the mix set: vanilla (U and 3U steps), RUM^F and RUM sequences, one dot per seed."""
    ax = ax or plt.subplots(figsize=(7.5, 3.6))[1]
    table = res.rum_table(metric)
    labels = [k for k in table if k != "vanilla nothing (U)"]
    for i, lab in enumerate(labels):
        colour = "C0" if lab.startswith("vanilla") and lab.endswith("(U)") else \
            "C1" if lab.startswith("vanilla") else "C2"
        ax.plot([i] * len(table[lab]), table[lab], "o", color=colour, alpha=0.6)
        ax.plot([i - 0.3, i + 0.3], [table[lab].mean()] * 2, color=colour)
    ax.set_xticks(range(len(labels)), labels, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("ToW-MIA on the mix set" if metric == "rum_mia" else "ToW on the mix set")
    ax.set_title("blue: vanilla, U steps · orange: vanilla, 3U steps · green: RUM, 3 × U steps", fontsize=9)
    return ax


def tow_markdown(res: UnlearningResult, metric: str = "tow", sets=TABLE_SETS) -> str:
    """A markdown table of mean ToW ± std over seeds, methods as rows and forget sets as columns."""
    table = res.tow_table(metric)
    rows = ["| method | " + " | ".join(sets) + " |", "|---|" + "---|" * len(sets)]
    for m in ("nothing",) + VANILLA:
        rows.append(f"| {m} | " + " | ".join(f"{table[(m, s)].mean():.3f} ± {table[(m, s)].std(ddof=1):.3f}"
                                              for s in sets) + " |")
    return "\n".join(rows)
