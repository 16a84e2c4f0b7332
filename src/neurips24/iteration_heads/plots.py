"""Figures of the chapter (matplotlib): training curves, attention maps, transfer, the (length × width) grid."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .tasks import TOKENS

_NAMES = {v: k for k, v in TOKENS.items()}
_COLOURS = {"CoT, 2 layers": "C0", "no CoT, 2 layers": "C3", "CoT, 1 layer": "C2",
            "parity fine-tuned": "C0", "parity from scratch": "C1"}


def _curves(ax, runs, key, ylabel):
    for label, h in runs.items():
        values = getattr(h, key)
        epochs = np.arange(values.shape[1])
        for i, row in enumerate(values):
            ok = ~np.isnan(row)
            ax.plot(epochs[ok], row[ok], color=_COLOURS.get(label), lw=1.2, alpha=0.8,
                    label=label if i == 0 else None)
    ax.set_xlabel("epoch")
    ax.set_ylabel(ylabel)


def plot_emergence(runs: dict, config: dict):
    """Loss, test accuracy and layer-2 peakiness per epoch, one line per seed.

    runs : {label: :class:`History`}, e.g. 'CoT, 2 layers', 'no CoT, 2 layers', 'CoT, 1 layer'.
    config : the settings of the run (for the title)."""
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.4))
    _curves(axes[0], runs, "loss", "training loss (nats)")
    axes[0].set_yscale("log")
    _curves(axes[1], runs, "test_acc", "test accuracy (teacher-forced)")
    axes[1].axhline(1 / 11, color="grey", ls=":", lw=1, label="chance for one state, 1/11")
    _curves(axes[2], {k: v for k, v in runs.items() if not np.isnan(v.peaky1).all()}, "peaky1",
            "layer-2 peakiness")
    axes[0].legend(fontsize=8)
    axes[1].legend(fontsize=8)
    fig.suptitle(f"polynomial iteration mod 11, L = 1 … {config['L_max']}, d = {config['d']}")
    fig.tight_layout()
    return fig


def plot_attention(em, epochs):
    """Attention maps (layer 1, layer 2) of seed 0 on the probe sequence, at the given epochs (columns)."""
    labels = [_NAMES.get(int(t), str(int(t))) for t in em.probe]
    fig, axes = plt.subplots(2, len(epochs), figsize=(3.6 * len(epochs), 6.6), squeeze=False)
    for j, e in enumerate(epochs):
        for layer in range(2):
            ax = axes[layer, j]
            ax.imshow(em.maps[e, layer], vmin=0, vmax=1, cmap="Blues")
            ax.set_title(f"layer {layer + 1}, epoch {e}", fontsize=9)
            ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=7)
            ax.set_yticks(range(len(labels)), labels, fontsize=7)
            ax.set_xlabel("key (attended) token", fontsize=8)
            if j == 0:
                ax.set_ylabel("query token", fontsize=8)
    fig.tight_layout()
    return fig


def plot_transfer(tr):
    """Parity test accuracy per epoch: fine-tuned from the polynomial models against from scratch."""
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    runs = {"parity fine-tuned": tr.finetuned, "parity from scratch": tr.scratch}
    _curves(axes[0], runs, "test_acc", "parity test accuracy")
    _curves(axes[1], runs, "peaky1", "layer-2 peakiness")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_grid(grid):
    """Heat maps of final test accuracy over (L_max × d), with and without CoT; a note when the grid is empty."""
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4))
    if not len(grid["lengths"]):
        for ax in axes:
            ax.axis("off")
        axes[0].text(0.5, 0.5, "the grid runs at full scale (GPU)", ha="center", va="center")
        return fig
    for ax, acc, title in zip(axes, grid["acc"], ("with CoT", "without CoT"), strict=True):
        im = ax.imshow(acc, vmin=0, vmax=1, cmap="viridis", origin="lower")
        ax.set_xticks(range(len(grid["widths"])), grid["widths"])
        ax.set_yticks(range(len(grid["lengths"])), grid["lengths"])
        ax.set_xlabel("embedding width d")
        ax.set_ylabel("longest sequence L_max")
        ax.set_title(title)
    fig.colorbar(im, ax=axes, label="test accuracy")
    return fig
