"""Figures of the VLM-classification chapter: accuracies by protocol, accuracy vs frequency, training curves."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..claims import binomial_interval
from .evaluation import label_set_accuracy, per_class_accuracy

PROTOCOLS = (("open", "open-world\n(generate)"), ("probabilistic", "class-name\nlikelihood"),
             ("closed2", "closed-world\n2 choices"), ("probe", "linear probe\n(LM hidden state)"))


def _err(acc: float, n: int) -> tuple[float, float]:
    iv = binomial_interval(int(round(acc * n)), n)
    return acc - iv.low, iv.high - acc


def plot_accuracies(result, ax=None):
    """Grouped bars: accuracy (%) of each protocol for each projector and the untrained control; open world,
    likelihood and closed world on the held-out pool (95 % Wilson intervals over its digits), probes as the mean
    over the probe splits (error bars: the range over the splits); the vision-feature probe as a line."""
    ax = ax or plt.subplots(figsize=(8.0, 4.0))[1]
    y = result.labels
    names = list(result.variants)
    width = 0.8 / len(names)
    for k, name in enumerate(names):
        v = result.variants[name]
        acc = v.accuracy(y)
        keys = [p for p, _ in PROTOCOLS if np.isfinite(acc[p]) and not (name == "untrained" and p != "probe")]
        xs = [i + (k - (len(names) - 1) / 2) * width for i, (p, _) in enumerate(PROTOCOLS) if p in keys]
        vals = [100 * acc[p] for p in keys]
        errs = []
        for p in keys:
            if p == "probe":
                per = 100 * np.array(list(v.probe_accuracy.values()))
                errs.append((per.mean() - per.min(), per.max() - per.mean()))
            else:
                n = len(result.closed_rows) if p == "closed2" else len(y)
                errs.append(tuple(100 * e for e in _err(acc[p], n)))
        ax.bar(xs, vals, width, yerr=np.array(errs).T, capsize=3, label=f"projector: {name}")
    vision = 100 * float(np.mean(list(result.vision_probe_accuracy.values())))
    ax.axhline(vision, color="k", ls="--", lw=1, label=f"probe on vision features ({vision:.0f} %)")
    ax.axhline(10, color="grey", ls=":", lw=1, label="chance (10 classes)")
    ax.set_xticks(range(len(PROTOCOLS)), [t for _, t in PROTOCOLS])
    ax.set_ylabel("accuracy on held-out digits (%)")
    ax.set_ylim(0, 105)
    ax.legend(loc="upper left", fontsize=8)
    return ax


def plot_frequency(result, ax=None):
    """Per-class open-world accuracy vs how many training captions name the class (log scale), both projectors."""
    ax = ax or plt.subplots(figsize=(6.4, 4.0))[1]
    y = result.labels
    from .experiment import CLASS_NAMES

    for name, freq, marker in (("captions", result.frequency, "o"), ("balanced", result.frequency_balanced, "s")):
        if name not in result.variants:
            continue
        acc = 100 * per_class_accuracy(result.variants[name].open_correct, y, 10)
        ax.scatter(np.maximum(freq, 1), acc, marker=marker, s=40, label=f"projector: {name}")
        if name == "captions":
            for c in range(10):
                ax.annotate(CLASS_NAMES[c], (max(freq[c], 1), acc[c]), textcoords="offset points", xytext=(4, 3),
                            fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("training captions that name the class (freq, log scale)")
    ax.set_ylabel("open-world accuracy of the class (%)")
    ax.set_ylim(-5, 105)
    ax.legend(loc="lower right")
    return ax


def plot_training(metas: dict, live_losses=None, ax=None, window: int = 10):
    """Recorded projector losses (moving average over ``window`` steps) of the shipped runs, and a live run."""
    ax = ax or plt.subplots(figsize=(6.4, 4.0))[1]
    for name, meta in metas.items():
        loss = np.asarray(meta.get("losses", []), dtype=float)
        if loss.size >= window:
            smooth = np.convolve(loss, np.ones(window) / window, mode="valid")
            ax.plot(np.arange(window, loss.size + 1), smooth, label=f"shipped '{name}' ({loss.size} steps)")
    if live_losses is not None and len(live_losses):
        ax.plot(np.arange(1, len(live_losses) + 1), live_losses, "k.-", label="live run (this notebook)")
    ax.set_xscale("log")
    ax.set_xlabel("projector step (batch 8)")
    ax.set_ylabel("caption loss (nats / token)")
    ax.legend()
    return ax


def plot_label_set_size(result, n_candidates: int = 2, sizes=(2, 3, 5, 10), ax=None):
    """Accuracy of class-name likelihood among n candidates (the true class + n - 1 random ones) vs n."""
    ax = ax or plt.subplots(figsize=(6.4, 4.0))[1]
    y = result.labels
    for name, v in result.variants.items():
        if name == "untrained":          # hidden states only: no answers scored
            continue
        accs = [100 * label_set_accuracy(v.scores, y, n) for n in sizes]
        line, = ax.plot(sizes, accs, "o-", label=f"likelihood, projector: {name}")
        ax.plot([n_candidates], [100 * label_set_accuracy(v.scores, y, n_candidates)], "o", ms=12, mfc="none",
                color=line.get_color())
    vision = 100 * float(np.mean(list(result.vision_probe_accuracy.values())))
    ax.axhline(vision, color="k", ls="--", lw=1, label="probe on vision features (10 classes)")
    ax.plot(sizes, [100 / n for n in sizes], ":", color="grey", label="chance")
    ax.set_xscale("log")
    ax.set_xticks(list(sizes), [str(s) for s in sizes])
    ax.set_xlabel("label-set size n (candidates the model chooses among)")
    ax.set_ylabel("accuracy (%)")
    ax.set_ylim(0, 105)
    ax.legend(fontsize=8)
    return ax


def plot_examples(images, titles, ncols: int = 6):
    """A grid of images (uint8, grey or RGB) with a short title under each (e.g. the caption or the answer)."""
    n = len(images)
    nrows = int(np.ceil(n / ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(1.8 * ncols, 2.1 * nrows), squeeze=False)
    for ax, k in zip(axes.flat, range(nrows * ncols), strict=True):
        ax.axis("off")
        if k < n:
            ax.imshow(images[k], cmap="gray" if np.ndim(images[k]) == 2 else None)
            ax.set_title(titles[k], fontsize=8, wrap=True)
    fig.tight_layout()
    return fig
