"""The chapter's figures (matplotlib)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import spearmanr


def plot_spectrum(analysis, images, n_features: int = 3, n_top: int = 6, cmap=None):
    """The simplest and the most complex features: each row a feature, its n_top most activating inputs.

    ``images`` : (n, H, W) or (n, H, W, 3) array shown with ``imshow`` (the inputs the features were fit on).
    """
    order = np.argsort(analysis.K)
    rows = list(order[:n_features]) + list(order[-n_features:])
    fig, axes = plt.subplots(len(rows), n_top, figsize=(1.1 * n_top, 1.15 * len(rows)))
    for r, j in enumerate(rows):
        top = np.argsort(analysis.Z[:, j])[::-1][:n_top]
        for c, i in enumerate(top):
            ax = axes[r, c]
            ax.imshow(images[i], cmap=cmap)
            ax.set_xticks([]), ax.set_yticks([])
        kind = "simple" if r < n_features else "complex"
        axes[r, 0].set_ylabel(f"{kind}\nK={analysis.K[j]:.2f}", fontsize=8)
    fig.suptitle(f"{analysis.name}: most activating inputs", fontsize=9)
    fig.tight_layout()
    return fig


def plot_complexity_importance(analyses: dict):
    """K against Γ (log scale) for each analysis, with Spearman's ρ in the legend."""
    fig, axes = plt.subplots(1, len(analyses), figsize=(3.6 * len(analyses), 3.2), squeeze=False)
    for ax, (title, group) in zip(axes[0], analyses.items(), strict=True):
        for label, a, colour in group:
            ax.scatter(a.K, a.gamma, s=12, alpha=0.7, color=colour,
                       label=f"{label}: ρ = {spearmanr(a.K, a.gamma).statistic:+.2f}")
        ax.set_yscale("log")
        ax.set_xlabel("complexity K")
        ax.set_ylabel("importance Γ (logit units)")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_timing_and_flow(per_epoch, K, analysis):
    """Left: decodability of the final features from each epoch's penultimate layer, by tercile of K.
    Right: CKA of the simple and complex terciles with each block's output."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(8, 3.2))
    order = np.argsort(K)
    third = max(1, len(K) // 3)
    epochs = np.arange(1, per_epoch.shape[0] + 1)
    for name, idx, colour in (("simple third", order[:third], "C0"), ("middle", order[third:-third], "C7"),
                              ("complex third", order[-third:], "C3")):
        a1.plot(epochs, per_epoch[:, idx].mean(1), "o-", color=colour, label=name)
    a1.set_xlabel("epoch")
    a1.set_ylabel("I_V(penultimate at epoch t → z)")
    a1.legend(fontsize=8)
    x = np.arange(len(analysis.block_names))
    a2.plot(x, analysis.cka_simple, "o-", color="C0", label="simple third")
    a2.plot(x, analysis.cka_complex, "o-", color="C3", label="complex third")
    a2.set_xticks(x, analysis.block_names, rotation=45, fontsize=7)
    a2.set_ylabel("linear CKA(block output, z)")
    a2.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_flow(panels: dict):
    """Linear CKA of the simple and the complex third of the features with each block's output.

    ``panels``: title -> list of (label, [Analysis, ...], linestyle); each list of analyses (e.g. seeds) is
    drawn as thin lines and its mean as a thick one, simple third in blue, complex third in red.
    """
    fig, axes = plt.subplots(1, len(panels), figsize=(4.4 * len(panels), 3.3), squeeze=False)
    for ax, (title, groups) in zip(axes[0], panels.items(), strict=True):
        for label, analyses, ls in groups:
            x = np.arange(len(analyses[0].block_names))
            for attr, colour, kind in (("cka_simple", "C0", "simple"), ("cka_complex", "C3", "complex")):
                curves = np.array([getattr(a, attr) for a in analyses])
                if len(curves) > 1:
                    ax.plot(x, curves.T, ls, color=colour, alpha=0.25, lw=0.8)
                ax.plot(x, curves.mean(0), ls, color=colour, lw=2, label=f"{kind} third, {label}")
        names = analyses[0].block_names
        step = max(1, len(names) // 8)
        ax.set_xticks(x[::step], [n.replace("_blocks.", "b").replace("blocks.", "b") for n in names][::step],
                      fontsize=7)
        ax.set_xlabel("block (residual stream)")
        ax.set_ylabel("linear CKA(block output, z)")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_redundancy_robustness(series):
    """Redundancy R (left) and noise sensitivity S (right, log axis) against complexity K.

    ``series``: list of (label, Analysis, colour, marker); Spearman's ρ with K is in the legend.
    """
    fig, axes = plt.subplots(1, 2, figsize=(8.4, 3.3))
    for label, a, colour, marker in series:
        for ax, values in zip(axes, (a.redundancy, a.sensitivity), strict=True):
            ax.scatter(a.K, values, s=12, alpha=0.7, color=colour, marker=marker,
                       label=f"{label}: ρ = {spearmanr(a.K, values).statistic:+.2f}")
    axes[0].set_ylabel("redundancy R (share of CKA kept under masks)")
    axes[1].set_ylabel("noise sensitivity S (relative to Var z)")
    axes[1].set_yscale("log")
    for ax in axes:
        ax.set_xlabel("complexity K")
        ax.legend(fontsize=6.5)
    fig.tight_layout()
    return fig
