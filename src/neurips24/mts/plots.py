"""The chapter's figures (matplotlib)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullFormatter, ScalarFormatter

from .metric import KINDS

LABELS = {"capped": "collective (k agents)", "mode": "one agent at the mode", "wfa": "one agent, WFA"}


def plot_ratios_vs_n(sweep, kinds=KINDS):
    """Cost / OPT against n, one panel per metric: the collective at k = n², the fractional algorithm, and the
    work function algorithm (one deterministic agent), each against the adversary that hits its crowded point."""
    n_values = sweep.config["n_values"]
    fig, axes = plt.subplots(1, len(kinds), figsize=(3.0 * len(kinds), 3.2), sharey=True)
    for ax, kind in zip(np.atleast_1d(axes), kinds, strict=True):
        def mean(rule, k, what, kind=kind):
            return [np.mean([what(r) for r in sweep.select(kind, n, rule, k, "crowded")]) for n in n_values]
        ax.plot(n_values, mean("capped", lambda n: n * n, lambda r: r.cost / r.opt), "o-", label="collective, k = n²")
        ax.plot(n_values, mean("capped", lambda n: n * n, lambda r: r.frac_cost / r.opt), "s--",
                label="fractional (its sequence)")
        ax.plot(n_values, mean("wfa", 1, lambda r: r.cost / r.opt), "^-", label="one agent, WFA")
        ax.plot(n_values, [2 * n - 1 for n in n_values], ":", color="grey", label="2n − 1")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(n_values, [str(n) for n in n_values])
        ax.yaxis.set_major_formatter(ScalarFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_title(kind)
        ax.set_xlabel("n (points)")
    np.atleast_1d(axes)[0].set_ylabel("cost / OPT")
    np.atleast_1d(axes)[-1].legend(loc="upper left", fontsize=7)
    fig.tight_layout()
    return fig


def plot_over_fractional_vs_k(sweep, kinds=KINDS):
    """Collective cost / fractional cost against k / n (k = n, 2n, n²), every metric and n (crowded adversary);
    the single agent at the mode (k = 1) for comparison, and the factor 2."""
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    markers = dict(zip(KINDS, "osD^", strict=True))
    for i, kind in enumerate(kinds):
        for n in sweep.config["n_values"]:
            ks = sorted({r.k for r in sweep.select(kind, n, "capped", adversary="crowded")})
            ratio = [np.mean([r.cost / r.frac_cost for r in sweep.select(kind, n, "capped", k, "crowded")])
                     for k in ks]
            mode = np.mean([r.cost / r.frac_cost for r in sweep.select(kind, n, "mode", 1)])
            ax.plot(np.array(ks) / n, ratio, marker=markers[kind], color=f"C{i}",
                    alpha=min(1.0, 0.4 + 0.15 * np.log2(n)), label=kind if n == sweep.config["n_values"][0] else None)
            ax.plot([1 / n], [mode], marker=markers[kind], color=f"C{i}", ls="none", alpha=0.5)
    ax.axhline(2, color="black", ls=":", label="factor 2")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(ScalarFormatter())
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("k / n (agents per point); k = 1 on the left: one agent at the mode")
    ax.set_ylabel("cost / fractional cost")
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    return fig


def plot_explore(runs):
    """The widget's figure: cumulative costs over time (left) and the final configuration against the cap (right)."""
    collective, single = runs
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.6))
    t = np.arange(1, collective.T + 1)
    ax1.plot(t, collective.curves["cost"], label=f"collective, k = {collective.k}")
    ax1.plot(t, collective.curves["frac"], "--", label="fractional")
    ax1.plot(t, 2 * collective.curves["frac"], ":", color="grey", label="2 × fractional")
    ax1.plot(t, single.curves["cost"], label="one agent, WFA")
    ax1.plot(t, collective.curves["opt"], color="black", label="OPT (prefix)")
    ax1.set_xlabel("step t")
    ax1.set_ylabel("cumulative cost")
    ax1.set_yscale("log")
    ax1.legend(fontsize=8)
    m = np.asarray(collective.final_counts) / collective.k
    p = np.asarray(collective.final_p)
    x = np.arange(collective.n)
    ax2.bar(x, m, color="C0", alpha=0.7, label="agents m / k")
    ax2.step(x, p, where="mid", color="C1", label="fractional p")
    ax2.step(x, 2 * p, where="mid", color="grey", ls=":", label="cap 2p")
    ax2.set_xlabel("point")
    ax2.set_ylabel("share")
    ax2.set_title(f"{collective.kind}, n = {collective.n}, after {collective.T} steps")
    ax2.legend(fontsize=8)
    fig.tight_layout()
    return fig
