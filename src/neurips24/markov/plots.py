"""Figures of the chapter: phase portraits of the reduced model, the transformers' outcomes and escape steps,
and the (e, w) trajectories read off the transformers on the reduced model's portrait."""
from __future__ import annotations

import matplotlib.patheffects as pe
import matplotlib.pyplot as plt
import numpy as np

from .experiment import Portrait
from .reduced import SEPARATRIX_ENERGY as SEPARATRIX
from .reduced import W_SADDLE, energy, global_minimum_e, gradient, optimal_bias, predict_basin, separatrix_e


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


COLORS = {"standard": "tab:red", "good": "tab:purple", "ashok": "tab:green"}
LABELS = {"standard": "standard (Gaussian)", "good": "paper's init (good, f3a2ec1)", "ashok": "ashok"}


def plot_transformers(results: dict, window: int = 25):
    """Experiments B and C, one column each: top, the held-out fraction of the unigram-to-bigram gap each run
    closed (dots, by initialisation); bottom, the test loss along training (training loss minus the true
    predictor's on the same batch, plus the bigram loss, averaged over ``window`` steps): thin lines per run,
    thick the mean, as in the paper's Fig. 4."""
    from .experiment import REACHED

    n = len(results)
    fig, axes = plt.subplots(2, n, figsize=(5.0 * n, 7.2), squeeze=False)
    for j, (name, r) in enumerate(results.items()):
        inits = list(dict.fromkeys(r.inits))
        ax = axes[0, j]
        prog = r.progress()
        for k, init in enumerate(inits):
            sel = r.select(init)
            vals = prog[sel]
            ax.plot(k + np.linspace(-0.2, 0.2, len(vals)), vals, "o", color=COLORS[init], alpha=0.8,
                    label=f"{LABELS[init]}: {int(np.sum(vals >= REACHED))}/{len(vals)} reach bigram")
        ax.axhline(1, color="k", ls="dotted", lw=1.5, label="bigram loss (global minimum)")
        ax.axhline(0, color="k", ls="--", lw=1.5, label="unigram loss (local minimum)")
        ax.axhline(REACHED, color="0.6", lw=0.8)
        ax.set(xticks=range(len(inits)), xticklabels=[LABELS[i].split(" (")[0] for i in inits],
               xlim=(-0.5, len(inits) - 0.5), ylim=(-0.25, 1.15), ylabel="fraction of the gap closed (held out)",
               title=f"{name}: p = {r.p}, q = {r.q}, {r.curves.shape[1]} steps")
        ax.legend(fontsize=7, loc="center right")
        ax = axes[1, j]
        pc = r.progress_curves(window)
        loss = r.unigram - pc * r.gap
        x = np.arange(pc.shape[1]) + window
        for init in inits:
            sel = r.select(init)
            ax.plot(x, loss[sel].T, color=COLORS[init], alpha=0.25, lw=0.6)
            ax.plot(x, loss[sel].mean(0), color=COLORS[init], lw=2, label=LABELS[init])
        ax.axhline(r.unigram, color="k", ls="--", lw=1.5, label="unigram loss")
        ax.axhline(r.bigram, color="k", ls="dotted", lw=1.5, label="bigram loss")
        ax.set(xlabel="step", ylabel="test loss (nats)", ylim=(r.bigram - 0.2 * r.gap, r.unigram + 1.2 * r.gap))
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_escapes(results: dict):
    """Escape-step distributions: for each experiment and initialisation, the step at which each run's smoothed
    loss first closed half the gap (dots), and the runs that had not by the end of training (× at the right)."""
    from .experiment import ESCAPE

    fig, ax = plt.subplots(figsize=(7.5, 0.6 + 0.55 * sum(len(set(r.inits)) for r in results.values())))
    labels, y = [], 0
    for name, r in results.items():
        esc, steps = r.escape_step(ESCAPE), r.curves.shape[1]
        for init in dict.fromkeys(r.inits):
            e = esc[r.select(init)]
            done = np.isfinite(e)
            jitter = np.linspace(-0.18, 0.18, len(e))
            ax.plot(e[done], y + jitter[done], "o", color=COLORS[init], alpha=0.8, ms=5)
            ax.plot(np.full((~done).sum(), steps * 1.03), y + jitter[~done], "x", color=COLORS[init], ms=5)
            labels.append(f"{name}, {LABELS[init].split(' (')[0]}: {int(done.sum())}/{len(e)}")
            ax.axvline(steps, color="0.7", lw=0.8, ls=":")
            y += 1
    ax.set(yticks=range(y), yticklabels=labels, xlabel="escape step (smoothed loss first closes half the gap)",
           ylim=(-0.6, y - 0.4))
    ax.invert_yaxis()
    ax.text(1.0, 1.01, "× : not within the run (censored)", transform=ax.transAxes, ha="right", fontsize=8)
    fig.tight_layout()
    return fig


def plot_overlay(r, *, min_e: float = 3e-4, w_lim=(-60.0, 3.0), e_lim=(3e-4, 1.0), ax=None):
    """The (e, w) read off every trained transformer of ``r`` (:mod:`.canonical`) along training, on the energy
    portrait of the reduced model at the same (p, q): the predicted basins (shaded dark: the global basin),
    energy levels E (thin lines), the separatrix E = E_sep (white), the global minima (purple, dashed). The
    unigram minima lie on e = 0, below the plot. Both axes are logarithmic near the bottom-left: w on a
    symmetric-log axis (linear within |w| < 1), so that the paper's init, far out at w ≪ −1/√2, fits beside the
    standard one near the origin, and e on a log axis, because the paper's init starts at e = 0 and reaches the
    global minima at small e. Readings with e < ``min_e`` (the first, e = 0, of the paper's init) are left out:
    there the logit slope hardly fixes w. Circles: first reading shown; squares: last."""
    if ax is None:
        _, ax = plt.subplots(figsize=(10.5, 5.4), layout="constrained")
    lin = np.linspace(-1.0, 1.0, 201)
    w_grid = np.concatenate([-np.geomspace(-w_lim[0], 1.0, 300)[:-1], lin, np.geomspace(1.0, w_lim[1], 80)[1:]])
    e_grid = np.geomspace(e_lim[0], e_lim[1], 240)
    W, E = np.meshgrid(w_grid, e_grid)
    basin = predict_basin(E, W, r.p, r.q)
    ax.pcolormesh(w_grid, e_grid, basin.astype(float), cmap="Greys", vmin=-0.5, vmax=3.0, shading="auto",
                  rasterized=True)
    with np.errstate(invalid="ignore"):
        en = energy(E, W)
    ax.contour(W, E, en, levels=np.linspace(-6, 2, 17), colors="0.55", linewidths=0.4, linestyles="solid")
    branch = ((W < 0) & (W > W_SADDLE)) if r.p + r.q > 1 else (W <= W_SADDLE)   # the branch that bounds basins
    outline = [pe.Stroke(linewidth=3.5, foreground="k"), pe.Normal()]
    sep = ax.contour(W, E, np.where(branch, en, np.nan), levels=[SEPARATRIX], colors="w", linewidths=2,
                     linestyles="solid")
    sep.set_path_effects(outline)
    ax.plot(w_grid, global_minimum_e(w_grid, r.p, r.q), color="m", ls="--", lw=1.8, label="global minima (bigram)")
    for m, init in enumerate(r.inits):
        e, w = r.e[m], r.w[m]
        ok = np.isfinite(w) & (e >= min_e)
        if not ok.any():
            continue
        ax.plot(w[ok], e[ok], "-", color=COLORS[init], lw=0.7, alpha=0.55)
        i0, i1 = np.flatnonzero(ok)[[0, -1]]
        ax.plot(w[i0], e[i0], "o", color=COLORS[init], ms=4, mec="k", mew=0.4)
        ax.plot(w[i1], e[i1], "s", color=COLORS[init], ms=5, mec="k", mew=0.4)
    for init in dict.fromkeys(r.inits):
        ax.plot([], [], "-", color=COLORS[init], label=LABELS[init])
    ax.plot([], [], color="w", lw=2, path_effects=outline, label="separatrix E = E_sep")
    ax.plot([], [], "s", color="0.45", ms=8, label="predicted global basin (shaded dark)")
    ax.plot([], [], "o", color="0.8", mec="k", mew=0.4, ms=4, label="first reading shown")
    ax.plot([], [], "s", color="0.8", mec="k", mew=0.4, ms=5, label="last reading")
    ax.set_xscale("symlog", linthresh=1.0)
    ax.set_yscale("log")
    ax.set(xlim=w_lim, ylim=e_lim, xlabel="w read off the transformer (symmetric-log axis)",
           ylabel="e = ‖wte[1] − wte[0]‖ (log axis)",
           title=f"{r.variant} model, p = {r.p}, q = {r.q}: (e, w) read off along training")
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return ax


def plot_explore(p: float, q: float, n: int = 40, steps: int = 2000):
    """The Explore view: a quick phase portrait (n × n grid, ~0.2 s on a CPU) for any (p, q)."""
    from .experiment import run_portrait

    fig, ax = plt.subplots(figsize=(6.4, 5.2))
    draw_portrait(ax, run_portrait(p, q, n=n, steps=steps))
    fig.tight_layout()
    return fig
