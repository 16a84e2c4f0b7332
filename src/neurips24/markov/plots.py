"""Figures of the chapter: phase portraits of the reduced model and the transformer's final losses."""
from __future__ import annotations

import matplotlib.patheffects as pe
import matplotlib.pyplot as plt
import numpy as np

from .experiment import Portrait
from .reduced import W_SADDLE, global_minimum_e, gradient, optimal_bias, separatrix_e


def draw_portrait(ax, res: Portrait, *, streams: bool = True, colorbar: bool = True):
    """One phase portrait on ``ax``: final loss of the flow from each (w, e) (colour), the flow lines of
    −∇L with b = b*, the separatrix E = E_sep (orange), the global-minimum locus (purple, dashed), the local
    minima on e = 0 (red), the saddle (triangle), and the predicted basin boundary; wrong predictions are ×."""
    w, e = res.w, res.e
    extent = float(w.max())
    im = ax.pcolormesh(w, e, res.final_loss, cmap="viridis", vmin=min(res.bigram, res.unigram) - 0.01,
                       vmax=max(res.bigram, res.unigram) + 0.01, shading="auto", rasterized=True)
    if colorbar:
        cb = plt.colorbar(im, ax=ax, shrink=0.8)
        cb.set_label("final loss (nats)")
        cb.ax.axhline(res.bigram, color="w", lw=1)
        cb.ax.axhline(res.unigram, color="w", lw=1)
    if streams:
        g = np.linspace(-extent, extent, 25)
        W, E = np.meshgrid(g, g)
        ge, gw, _ = gradient(E, W, optimal_bias(E, W, res.p, res.q), res.p, res.q)
        ax.streamplot(g, g, -gw, -ge, color="0.85", density=0.9, linewidth=0.6, arrowsize=0.7)
    ws = np.linspace(-extent, -1e-4, 2000)
    es = separatrix_e(ws)
    branch = (ws > W_SADDLE) if res.p + res.q > 1 else (ws <= W_SADDLE)   # the part that separates basins
    keep = branch & (es <= extent)
    outline = [pe.Stroke(linewidth=3.5, foreground="k"), pe.Normal()]
    ax.plot(ws[keep], es[keep], color="w", lw=2, path_effects=outline, label="predicted basin boundary (E = E_sep)")
    ax.plot(ws[keep], -es[keep], color="w", lw=2, path_effects=outline)
    wg = np.linspace(-extent, extent, 800)
    eg = global_minimum_e(wg, res.p, res.q)
    ax.plot(wg, eg, color="m", ls="--", lw=1.5, label="global minima")
    ax.plot(wg, -eg, color="m", ls="--", lw=1.5)
    local = wg > W_SADDLE if res.p + res.q > 1 else wg < W_SADDLE
    ax.plot(wg[local], 0 * wg[local], color="r", lw=2.5, label="local minima (unigram)")
    ax.plot([W_SADDLE], [0], marker="^", color="orange", ms=9, ls="", label="saddle")
    W0, E0 = np.meshgrid(w, e)
    wrong = (res.predicted != res.reached_global) & res.outside_band
    if wrong.any():
        ax.plot(W0[wrong], E0[wrong], "x", color="k", ms=4, label="prediction wrong")
    ax.set(xlim=(-extent, extent), ylim=(-extent, extent), xlabel="initial w (MLP weight)",
           ylabel="initial e (embedding norm)", aspect="equal",
           title=f"p = {res.p}, q = {res.q} (p + q {'>' if res.p + res.q > 1 else '<'} 1): "
                 f"agreement {res.agreement():.1%}")
    return ax


def plot_portraits(portraits: list[Portrait]):
    """Experiment A: one panel per (p, q)."""
    fig, axes = plt.subplots(1, len(portraits), figsize=(6.2 * len(portraits), 5.4), squeeze=False)
    for ax, res in zip(axes[0], portraits, strict=True):
        draw_portrait(ax, res)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=5, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


def plot_transformer(results: dict):
    """Experiment B: final held-out loss of every seed (dots), by initialisation, against the bigram
    (global) and unigram (local) losses, and the training curves."""
    n = len(results)
    fig, axes = plt.subplots(2, n, figsize=(4.6 * n, 7.0), squeeze=False)
    colors = {"standard": "tab:blue", "guideline": "tab:orange"}
    for j, ((p, q), r) in enumerate(results.items()):
        ax = axes[0, j]
        inits = np.array(r.inits)
        shifted = r.final - r.oracle + r.bigram       # held-out loss, noise of the evaluation set removed
        for k, init in enumerate(("standard", "guideline")):
            vals = shifted[inits == init]
            jitter = np.linspace(-0.15, 0.15, len(vals))
            ax.plot(k + jitter, vals, "o", color=colors[init], alpha=0.8,
                    label=f"{init}: {r.fraction(init):.0%} reach bigram")
        ax.axhline(r.bigram, color="k", ls="--", lw=1, label="bigram (global min)")
        ax.axhline(r.unigram, color="r", ls=":", lw=1.2, label="unigram (local min)")
        ax.set(xticks=[0, 1], xticklabels=["standard", "guideline"], xlim=(-0.5, 1.5),
               ylabel="final loss (nats)", title=f"p = {p}, q = {q}")
        ax.legend(fontsize=7)
        ax = axes[1, j]
        for m, init in enumerate(r.inits):
            ax.plot(r.curves[m], color=colors[init], alpha=0.4, lw=0.8)
        ax.axhline(r.bigram, color="k", ls="--", lw=1)
        ax.axhline(r.unigram, color="r", ls=":", lw=1.2)
        ax.set(xlabel="step", ylabel="training loss (nats)", ylim=(r.bigram - 0.05, r.unigram + 0.08))
    fig.tight_layout()
    return fig


def plot_explore(p: float, q: float, n: int = 40, steps: int = 2000):
    """The Explore view: a quick phase portrait (n × n grid, ~0.2 s on a CPU) for any (p, q)."""
    from .experiment import run_portrait

    fig, ax = plt.subplots(figsize=(6.4, 5.2))
    draw_portrait(ax, run_portrait(p, q, n=n, steps=steps))
    fig.tight_layout()
    return fig
