"""Figures of the chapter: regret curves (Fig. a), final regret against m (Fig. b), the explore view."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .experiment import PAPER_FIG_B, RegretVsM, SimResult

COLORS = {"B-CTS-Uniform": "C3", "B-CTS-Jeffreys": "C1", "BG-CTS": "C0", "ESCB": "C2", "CUCB": "C7"}


def plot_curves(res: SimResult, ax=None, band: tuple = (5, 95)):
    """Cumulative regret against t: mean (line) and the 5–95 % band over runs, one colour per policy."""
    ax = ax or plt.subplots(figsize=(6.4, 4.0))[1]
    for j, lab in enumerate(res.labels):
        c = res.cum_regret[j]
        lo, hi = np.percentile(c, band, axis=0)
        col = COLORS.get(lab)
        ax.plot(res.ts, c.mean(axis=0), color=col, label=lab)
        ax.fill_between(res.ts, lo, hi, color=col, alpha=0.15, lw=0)
    ax.set_yscale("symlog", linthresh=10)
    ax.set_xlabel("round t")
    ax.set_ylabel("cumulative pseudo-regret")
    ax.set_title(f"two sets, m = {res.m}, {res.final.shape[1]} runs (band: {band[0]}–{band[1]} %)")
    ax.legend(fontsize=8)
    return ax


def plot_final_vs_m(res: RegretVsM, ax=None, paper: bool = True):
    """Final mean regret against m (log scale), ours (solid) and the paper's Fig. (b) values (dotted, ×)."""
    ax = ax or plt.subplots(figsize=(6.4, 4.0))[1]
    tab = res.table()
    ms = list(res.m_values)
    for lab in res.labels:
        ax.plot(ms, [tab[m][lab][0] for m in ms], "o-", color=COLORS.get(lab), label=f"{lab} (ours, T={res.T})")
        if paper and lab in PAPER_FIG_B[5]:
            pm = sorted(PAPER_FIG_B)
            ax.plot(pm, [PAPER_FIG_B[m][lab] for m in pm], "x:", color=COLORS.get(lab), alpha=0.7)
    ax.plot([], [], "kx:", label="paper Fig. (b), T = 10⁴")
    ax.set_yscale("log")
    ax.set_xlabel("m (decision size; d = 2m arms)")
    ax.set_ylabel("mean regret at T")
    ax.legend(fontsize=7, ncol=2)
    return ax


def plot_explore(res: SimResult):
    """Left: cumulative regret curves (mean, 5–95 % band); right: histogram of the final regret."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.6))
    plot_curves(res, ax=a1)
    bins = np.linspace(0, max(res.linear, 1.0), 31)
    for j, lab in enumerate(res.labels):
        a2.hist(res.final[j], bins=bins, alpha=0.6, color=COLORS.get(lab), label=lab)
    a2.axvline(0.5 * res.linear, color="k", ls="--", lw=1, label="stuck threshold")
    a2.set_yscale("log")
    a2.set_xlabel("final regret")
    a2.set_ylabel("runs")
    a2.legend(fontsize=8)
    fig.tight_layout()
    return fig
