"""The chapter's figures (matplotlib)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np


def plot_auroc(res, ax=None):
    """Mean AUROC per data set and model, with the seed range as error bars."""
    ax = ax or plt.subplots(figsize=(8, 3.2))[1]
    sets = list(res.auroc)
    models = list(next(iter(res.auroc.values())))
    width = 0.8 / len(models)
    for j, m in enumerate(models):
        v = np.array([res.auroc[s][m] for s in sets])
        mu = v.mean(1)
        ax.bar(np.arange(len(sets)) + j * width, mu, width, label=m,
               yerr=[mu - v.min(1), v.max(1) - mu], capsize=2)
    ax.set_xticks(np.arange(len(sets)) + 0.4 - width / 2, sets)
    ax.set_ylim(0.8, 1.005)
    ax.set_ylabel("test AUROC (mean, seed range)")
    ax.legend(fontsize=7, ncol=3, loc="lower left")
    return ax


def plot_impacts(example, n_show: int = 200):
    """IMN impacts against the ground truth beta_m x_m (left), and a trained vs untrained hypernetwork's
    impacts for one instance (right)."""
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.4))
    imp, truth = example["impacts"][:n_show], example["truth"][:n_show]
    for m in range(truth.shape[1]):
        a.scatter(truth[:, m], imp[:, m], s=6, label=f"x{m} (β={example['beta'][m]:g})")
    a.set_xlabel("ground truth β_m x_m (logit units)")
    a.set_ylabel("IMN impact x_m W_m(x) (logit units)")
    a.legend(fontsize=6, ncol=2)
    idx = np.arange(truth.shape[1])
    b.bar(idx - 0.27, truth[0], 0.27, label="β ⊙ x")
    b.bar(idx, imp[0], 0.27, label="IMN")
    b.bar(idx + 0.27, example["untrained"][0], 0.27, label="untrained IMN")
    b.set_xlabel("feature m")
    b.set_ylabel("impact on the logit")
    b.set_title("one test instance", fontsize=9)
    b.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_deletion(deletion, ax=None):
    """Deletion curves: mean probability of the predicted class as the top-ranked features are replaced."""
    ax = ax or plt.subplots(figsize=(5, 3.2))[1]
    for k, curve in deletion.items():
        ax.plot(np.arange(len(curve)), curve, marker="o", ms=3, label=k)
    ax.set_xlabel("features removed (replaced by the training mean)")
    ax.set_ylabel("P(originally predicted class)")
    ax.legend(fontsize=8)
    return ax
