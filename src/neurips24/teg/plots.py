"""Figures of the chapter: accuracy per feature variant, and the GNN/link-prediction comparison."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .experiment import Results

VARIANT_LABELS = {"node": "node text", "node+edge": "+ edge text", "node+edge (shuffled edge text)":
                  "+ shuffled edge text", "node+edge (sum)": "+ Σ edge text (sum)", "node+nbr": "+ neighbours",
                  "node+nbr+edge": "+ neighbours + edge text"}


def plot_plm_variants(res: Results, ax=None):
    """Bars: logistic-regression accuracy per feature variant and encoder (mean ± std over splits; dots: splits)."""
    ax = ax or plt.subplots(figsize=(8, 3.4))[1]
    variants = list(VARIANT_LABELS)
    for j, enc in enumerate(("minilm", "tfidf")):
        for i, v in enumerate(variants):
            vals = res.get(enc, v)
            x = i + (j - 0.5) * 0.38
            ax.bar(x, vals.mean(), 0.36, yerr=vals.std(ddof=1), color=f"C{j}", alpha=0.75, capsize=2,
                   label={"minilm": "all-MiniLM-L6-v2", "tfidf": "TF-IDF + SVD"}[enc] if i == 0 else None)
            ax.plot(np.full(vals.size, x), vals, "k.", ms=3)
    ax.set_xticks(range(len(variants)), [VARIANT_LABELS[v] for v in variants], rotation=12)
    lo = min(res.get(e, "node").min() for e in ("minilm", "tfidf"))
    ax.set_ylim(lo - 0.05, 0.9)
    ax.set_ylabel("test accuracy (16 classes)")
    ax.set_title("Node classification, logistic regression on PLM features")
    ax.legend(loc="upper left", fontsize=8)
    return ax


def plot_gnn(nodes: Results, links: Results, encoder: str = "minilm", metric: str = "hits@50"):
    """Two panels: node accuracy and link-prediction ``metric`` per GNN and edge-text mode, dots per split."""
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.2))
    for ax, res, m, title in ((axes[0], nodes, None, "node classification: accuracy"),
                              (axes[1], links, metric, f"link prediction: {metric}")):
        keys = [k for k in res.values if k[0] == encoder]
        for i, k in enumerate(keys):
            vals = res.get(*k, metric=m)
            colour = "C0" if k[1] not in ("GINE", "GAT") else {"real": "C2", "none": "C7", "shuffled": "C3"}[k[2]]
            ax.bar(i, vals.mean(), 0.7, color=colour, alpha=0.8)
            ax.plot(np.full(vals.size, i), vals, "k.", ms=3)
        ax.set_xticks(range(len(keys)), [k[1] if k[1] not in ("GINE", "GAT") else f"{k[1]}\n{k[2]} text"
                                         for k in keys], fontsize=8)
        ax.set_title(title, fontsize=10)
        lows = [res.get(*k, metric=m).min() for k in keys]
        ax.set_ylim(max(0.0, min(lows) - 0.1), None)
    axes[0].set_ylabel("test value (5 splits)")
    fig.tight_layout()
    return fig


def plot_explore(acc: dict, keep_fraction: float, encoder: str, ax=None):
    """Bars of :func:`neurips24.teg.experiment.explore_edge_text`'s accuracies (mean over splits, dots per split)."""
    ax = ax or plt.subplots(figsize=(5.5, 3))[1]
    for i, vals in enumerate(acc.values()):
        ax.bar(i, vals.mean(), 0.6, color=f"C{i}", alpha=0.8)
        ax.plot(np.full(vals.size, i), vals, "k.", ms=4)
    ax.set_xticks(range(len(acc)), [VARIANT_LABELS[v] for v in acc], fontsize=8)
    ax.set_ylim(min(v.min() for v in acc.values()) - 0.05, max(v.max() for v in acc.values()) + 0.03)
    ax.set_ylabel("test accuracy")
    ax.set_title(f"{encoder}, {keep_fraction:.0%} of the edge texts kept", fontsize=10)
    return ax
