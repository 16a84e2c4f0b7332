"""Figures of the chapter: the mirage against N, the uncertainty maps of the widget, OOD detection on digits."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .experiment import DigitsRun, GaussianRun

COLORS = {"EDL": "C0", "bootstrap": "C1", "Bootstrap-Distill": "C2", "theory": "k", "truth": "C3"}
LAM_STYLES = ("-", "--", ":", "-.")


def _band(ax, x, per_seed: np.ndarray, color, style="-", marker="o", label=None):
    """Mean over seeds (line) and the seeds' min–max (band); per_seed is (len(x), S)."""
    per_seed = np.asarray(per_seed)
    ax.plot(x, per_seed.mean(1), style, marker=marker, color=color, label=label, ms=4)
    ax.fill_between(x, per_seed.min(1), per_seed.max(1), color=color, alpha=0.15, lw=0)


def plot_mirage(run: GaussianRun):
    """Total evidence, epistemic and aleatoric uncertainty against N: EDL, bootstrap, Bootstrap-Distill, theory.

    Lines are means over the seeds, bands their min–max; thin black lines are the optimum of the unified
    objective (α* = 1 + η/λ); the pink line is the true aleatoric uncertainty, the entropy of η.
    """
    Ns = np.array(run.N_values)
    edl, boot, dist = run.edl_stats(), run.boot_stats(), run.distill_stats()
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    for k, lam in enumerate(run.lams):
        th = run.theory(lam)
        st = LAM_STYLES[k % len(LAM_STYLES)]
        for ax, key in zip(axes, ("alpha0", "epistemic", "aleatoric"), strict=True):
            _band(ax, Ns, [edl[(N, lam)][key] for N in Ns], COLORS["EDL"], st, label=f"EDL, λ = {lam:g}")
            ax.axhline(th[key], color=COLORS["theory"], ls=st, lw=1, alpha=0.7)
    _band(axes[1], Ns, [boot[N]["epistemic"] for N in Ns], COLORS["bootstrap"], label="bootstrap ensemble")
    _band(axes[1], Ns, [dist[N]["epistemic"] for N in Ns], COLORS["Bootstrap-Distill"], marker="s",
          label="Bootstrap-Distill")
    _band(axes[2], Ns, [boot[N]["aleatoric"] for N in Ns], COLORS["bootstrap"], label="bootstrap ensemble")
    axes[2].axhline(run.bayes_entropy(), color=COLORS["truth"], lw=1.5, label="truth: mean H(η)")
    axes[0].plot([], [], color="k", lw=1, label="theory C + 1/λ")
    axes[1].plot([], [], color="k", lw=1, label="theory (optimum)")
    titles = ("(a) total evidence α₀", "(b) epistemic: mutual information (nats)", "(c) aleatoric: E H(π) (nats)")
    for ax, title in zip(axes, titles, strict=True):
        ax.set_xscale("log")
        ax.set_xlabel("training samples N")
        ax.set_title(title)
        ax.legend(fontsize=7)
    axes[0].set_yscale("log")
    axes[1].set_yscale("log")
    fig.tight_layout()
    return fig


def plot_maps(maps: dict):
    """Mutual information (nats, log colour scale) over the plane: theory's optimum, EDL, bootstrap, distilled."""
    from matplotlib.colors import LogNorm

    keys = (("theory", f"optimum 1 + η/λ (λ = {maps['lam']:g})"), ("edl", "EDL"), ("boot", "bootstrap ensemble"),
            ("distill", "Bootstrap-Distill"))
    values = np.concatenate([maps[k].ravel() for k, _ in keys])
    norm = LogNorm(vmin=max(np.percentile(values, 1), 1e-5), vmax=values.max())
    fig, axes = plt.subplots(1, 4, figsize=(14, 3.6), sharey=True)
    X, y = maps["X_train"], maps["y_train"]
    show = slice(None, 300)
    for ax, (k, title) in zip(axes, keys, strict=True):
        im = ax.pcolormesh(maps["xx"], maps["yy"], np.clip(maps[k], norm.vmin, None), norm=norm, shading="auto")
        ax.scatter(X[show, 0], X[show, 1], c=y[show], s=4, cmap="Set1", vmin=0, vmax=8, lw=0)
        ax.set_title(title)
        ax.set_xlabel("x₁")
        ax.set_aspect("equal")
    axes[0].set_ylabel("x₂")
    fig.colorbar(im, ax=axes, shrink=0.85, label="mutual information (nats)")
    fig.suptitle(f"N = {maps['N']} training points ({min(maps['N'], 300)} shown)", y=1.02)
    return fig


def plot_ood(run: DigitsRun, seed: int | None = None, lam: float | None = None):
    """(a) OOD AUROC of every score (mean over seeds, bars: min–max); (b) EDL's mutual information against
    its energy score on in-distribution and held-out digits for one seed and λ (default: first, smallest)."""
    seed = run.seeds[0] if seed is None else seed
    lam = min(run.lams) if lam is None else lam
    auc = run.auroc()
    names = list(auc)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 4.4), gridspec_kw={"width_ratios": [1.3, 1]})
    means = np.array([auc[k].mean() for k in names])
    lo = means - np.array([auc[k].min() for k in names])
    hi = np.array([auc[k].max() for k in names]) - means
    colors = [COLORS["EDL"] if k.startswith("EDL") else COLORS["bootstrap"] if k.startswith("bootstrap")
              else COLORS["Bootstrap-Distill"] if k.startswith("Bootstrap") else "0.45" for k in names]
    y = np.arange(len(names))
    a1.barh(y, means, xerr=[lo, hi], color=colors, alpha=0.8)
    a1.set_yticks(y, names, fontsize=7)
    a1.invert_yaxis()
    a1.set_xlim(0.5, 1.0)
    a1.set_xlabel("OOD AUROC (held-out digits vs in-distribution test)")
    a1.set_title(f"(a) {len(run.seeds)} seeds")
    sc = run.scores(seed)
    mi = sc[f"EDL λ={lam:g}: mutual information"]
    energy = sc[f"EDL λ={lam:g}: energy −log α₀"]
    for mask, lab, col in ((~run.is_ood, "in-distribution test", "C0"), (run.is_ood, "held-out classes", "C1")):
        a2.scatter(energy[mask], mi[mask], s=6, alpha=0.5, color=col, label=lab, lw=0)
    a2.set_yscale("log")
    a2.set_xlabel("energy score E(x) = −log α₀(x)")
    a2.set_ylabel("EDL mutual information (nats)")
    a2.set_title(f"(b) EDL, λ = {lam:g}, seed {seed}")
    a2.legend(fontsize=8)
    fig.tight_layout()
    return fig
