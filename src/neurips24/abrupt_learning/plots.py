"""Figures of the abrupt-learning chapter (matplotlib)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

PAPER_FINAL_MSE = 4e-3          # the paper's final MSE after the drop (abstract; Fig. 1)


def plot_training(logs: dict, var: float, nuclear_masked: float | None = None, ax=None):
    """Masked (solid) and observed (dashed) held-out MSE against the training step, one colour per run.

    logs : {label: list of {step, masked, observed}}; var : Var(X_ij), the copy solution's masked MSE;
    nuclear_masked : the nuclear-norm baseline's masked MSE on held-out matrices (drawn as a line).
    """
    ax = ax or plt.subplots(figsize=(7.5, 4.2))[1]
    for k, (label, log) in enumerate(logs.items()):
        s = np.array([r["step"] for r in log])
        ax.plot(s, [r["masked"] for r in log], color=f"C{k}", label=f"{label}: masked")
        ax.plot(s, [r["observed"] for r in log], color=f"C{k}", ls="--", label=f"{label}: observed")
    ax.axhline(var, color="k", lw=0.8, ls=":", label="Var$(X_{ij})$: copy solution (masked)")
    if nuclear_masked is not None:
        ax.axhline(nuclear_masked, color="C3", lw=1.2, ls="-.", label="nuclear-norm min. (masked)")
    ax.axhline(PAPER_FINAL_MSE, color="0.5", lw=0.8, ls=(0, (1, 3)), label="paper after the drop (≈4e-3)")
    ax.set_yscale("log")
    ax.set_xlabel("training step")
    ax.set_ylabel("held-out MSE")
    ax.legend(fontsize=7, ncol=2)
    return ax


def plot_attention_scores(scores: dict, chance: float, ax=None):
    """Row/column attention score of every layer and head (bars) for each checkpoint; dotted: uniform attention.

    scores : {label: (layers, heads) array of :func:`probes.row_column_score` at masked queries}.
    """
    ax = ax or plt.subplots(figsize=(7, 3.6))[1]
    labels = list(scores)
    L, H = np.asarray(scores[labels[0]]).shape
    width = 0.8 / len(labels)
    x = np.arange(L * H)
    for k, lab in enumerate(labels):
        ax.bar(x + k * width, np.asarray(scores[lab]).ravel(), width, label=lab)
    ax.axhline(chance, color="k", ls=":", lw=0.9, label="uniform attention")
    ax.set_xticks(x + width * (len(labels) - 1) / 2, [f"L{l + 1}H{h + 1}" for l in range(L) for h in range(H)])
    ax.set_ylim(0, 1)
    ax.set_xlabel("layer and head")
    ax.set_ylabel("attention on own row + column")
    ax.legend(fontsize=7)
    return ax


def plot_attention_map(att: np.ndarray, m: int, n: int, query: int, title: str = "", ax=None):
    """One head's attention from one query position, drawn as an m × n grid (the query marked ×)."""
    ax = ax or plt.subplots(figsize=(3, 3))[1]
    im = ax.imshow(np.asarray(att)[query].reshape(m, n), cmap="Blues", vmin=0)
    i, j = divmod(query, n)
    ax.plot(j, i, "x", color="C3", ms=10, mew=2)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title, fontsize=8)
    plt.colorbar(im, ax=ax, fraction=0.046)
    return ax


def plot_masked_predictions(preds: dict, truth: np.ndarray, ax=None):
    """Prediction against truth at the masked entries, one panel per model (the identity line is exact)."""
    fig, axes = plt.subplots(1, len(preds), figsize=(3.2 * len(preds), 3.2), sharey=True)
    axes = np.atleast_1d(axes)
    for ax, (label, p) in zip(axes, preds.items(), strict=True):
        ax.scatter(truth, p, s=3, alpha=0.4)
        lim = np.abs(truth).max()
        ax.plot([-lim, lim], [-lim, lim], color="k", lw=0.8)
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("true masked entry")
    axes[0].set_ylabel("prediction")
    return axes
