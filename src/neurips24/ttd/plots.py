"""The chapter's figures (matplotlib): pairs beside their weight maps, per-pair changes, the γ explorer."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import data
from .experiment import TTD, FusionResult


def plot_weight_maps(res: FusionResult, index_per_kind: int = 0):
    """One held-out pair per kind (rows): the two sources, the ground truth, δ_1 − δ_2 (where source 1 is
    worse: red), TTD's weight ω_1 of the fusion network and of the reconstruction network, the static and the
    TTD outputs."""
    from .weights import fuse, rd_weights, uni_source_loss

    fig, axes = plt.subplots(3, 8, figsize=(17, 7))
    titles = ["source 1", "source 2", "ground truth", "δ₁ − δ₂ (red: 1 worse)", "ω₁, fusion net",
              "ω₁, reconstruction net", "static", "TTD (γ = 50)"]
    for r, kind in enumerate(data.KINDS):
        i = int(np.flatnonzero(res.kinds == kind)[index_per_kind])
        p = res.pairs[i]
        w = rd_weights(uni_source_loss(res.fusion_net, p.sources))
        rw = rd_weights(uni_source_loss(res.reconstruction_net, p.sources))
        dd = p.degradation[0] - p.degradation[1]
        lim = np.abs(dd).max()
        panels = [(p.sources[0], "gray", 0, 1), (p.sources[1], "gray", 0, 1), (p.truth, "gray", 0, 1),
                  (dd, "RdBu_r", -lim, lim), (w[0], "RdBu_r", 0.5, 1.5), (rw[0], "RdBu_r", 0.5, 1.5),
                  (fuse(res.fusion_net, p.sources), "gray", 0, 1), (fuse(res.fusion_net, p.sources, w), "gray", 0, 1)]
        for c, (img, cmap, lo, hi) in enumerate(panels):
            ax = axes[r, c]
            im = ax.imshow(img, cmap=cmap, vmin=lo, vmax=hi)
            ax.set_xticks([])
            ax.set_yticks([])
            if r == 0:
                ax.set_title(titles[c], fontsize=9)
            if c == 0:
                ax.set_ylabel(kind.replace(" (", "\n("), fontsize=9)
            if c in (4, 5) and r == 2:
                fig.colorbar(im, ax=ax, orientation="horizontal", fraction=0.05, label="weight ω₁")
    fig.tight_layout()
    return fig


def plot_gains(res: FusionResult, methods=(TTD, "reconstruction net: TTD, γ = 50")):
    """Per held-out pair, the relative change from the static rule (AG, SF in %; PSNR to the truth in dB), by
    pair kind; the grey band is the paper's range of gains (about 1–7 % on SD/AG/SF)."""
    fig, axes = plt.subplots(1, 3, figsize=(13, 3.6))
    bases = {TTD: "static", "reconstruction net: TTD, γ = 50": "reconstruction net: static"}
    for ax, metric in zip(axes, ("AG", "SF", "PSNR_gt"), strict=True):
        for k, meth in enumerate(methods):
            g = res.gain(meth, metric, bases.get(meth, "static")) * (1 if metric == "PSNR_gt" else 100)
            for j, kind in enumerate(data.KINDS):
                sel = res.kinds == kind
                xs = j + (k - 0.5) * 0.3 + np.linspace(-0.05, 0.05, sel.sum())
                ax.scatter(xs, g[sel], s=14, color=f"C{k}", label=meth if j == 0 else None)
        if metric != "PSNR_gt":
            ax.axhspan(1, 7, color="0.85", zorder=0, label="paper's gains (Tables 1–2)")
        ax.axhline(0, color="k", lw=0.8)
        ax.set_xticks(range(3), ["multi-focus", "multi-exposure", "IR–visible\n(synthetic)"])
        ax.set_ylabel("Δ PSNR to truth (dB)" if metric == "PSNR_gt" else f"Δ {metric} vs static (%)")
        ax.set_title(metric if metric != "PSNR_gt" else "PSNR to the ground truth")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_explore(view: dict):
    """The γ explorer: sources, ω₁, static and dynamic outputs of one pair (a dict from ``explore_gamma``)."""
    p = view["pair"]
    fig, axes = plt.subplots(1, 5, figsize=(15, 3.4))
    for ax, img, title in zip(axes, (p.sources[0], p.sources[1], view["weights"][0], view["static"],
                                     view["dynamic"]),
                              ("source 1", "source 2", f"ω₁ (corr with δ₁ − δ₂: {view['quality_corr']:+.2f})",
                               f"static: PSNR {view['psnr'][0]:.2f} dB, SF {view['sf'][0]:.1f}",
                               f"dynamic: PSNR {view['psnr'][1]:.2f} dB, SF {view['sf'][1]:.1f}"), strict=True):
        is_w = img is view["weights"][0]
        im = ax.imshow(img, cmap="RdBu_r" if is_w else "gray", vmin=0.5 if is_w else 0, vmax=1.5 if is_w else 1)
        ax.set_title(title, fontsize=9)
        ax.set_xticks([])
        ax.set_yticks([])
        if is_w:
            fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    return fig
