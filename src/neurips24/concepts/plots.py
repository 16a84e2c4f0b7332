"""Figures and tables of the multimodal-concepts chapter: the concept gallery, the metrics, one explained sample."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .collection import images
from .decompositions import LABELS


def _token_images(run, target):
    tokens = run.tokens[target]
    return images(target, tokens.seed, run.meta["n_images"], tokens.index)


def plot_gallery(run, target: str, model: str = "trained", method: str = "snmf", concepts=None, n_words: int = 5):
    """Each concept of one dictionary as a row: its first grounded words, then its most activating images.

    Parameters
    ----------
    run : :class:`.experiment.ConceptsRun`. target, model, method : which dictionary. concepts : which concept
    indices (default: all K). n_words : words shown per concept.

    Returns
    -------
    matplotlib Figure.
    """
    from .experiment import attribute_vocabulary
    from .metrics import first_attribute_word

    res = run.get(target, model, method)
    imgs = _token_images(run, target)
    vocab = attribute_vocabulary(target)
    ks = range(len(res.words)) if concepts is None else list(concepts)
    n_img = res.mas.shape[1]
    fig, axes = plt.subplots(len(ks), n_img + 1, figsize=(1.25 * (n_img + 2.4), 1.25 * len(ks)),
                             gridspec_kw={"width_ratios": [2.6] + [1] * n_img}, squeeze=False)
    for r, k in enumerate(ks):
        ax = axes[r, 0]
        ax.axis("off")
        words = ", ".join(res.words[k][:n_words]) or "(no valid word)"
        w_k = first_attribute_word(res.words[k], vocab, (target,))
        scored = f"p = {res.precision[k]:.1f} for '{w_k}'" if w_k else "no attribute word: p = 0"
        ax.text(0.0, 0.5, f"concept {k}  ({scored})\n{words}", va="center", ha="left", fontsize=8,
                transform=ax.transAxes, wrap=True)
        for c, i in enumerate(res.mas[k]):
            axes[r, c + 1].imshow(imgs[i])
            axes[r, c + 1].set_xticks([])
            axes[r, c + 1].set_yticks([])
    fig.suptitle(f"'{target}': {LABELS[method]} concepts, {model} projector (words | 5 most activating images)",
                 fontsize=9)
    fig.tight_layout()
    return fig


def metrics_rows(run, model: str = "trained"):
    """Rows of the metrics table: per method, the mean over targets of each metric (and the random-words row)."""
    targets = list(run.tokens)
    rows = []
    for method in run.config["methods"]:
        rs = [run.get(t, model, method) for t in targets]
        rows.append([LABELS[method], np.mean([r.recon_train for r in rs]), np.mean([r.recon_test for r in rs]),
                     np.mean([r.overlap for r in rs]), np.mean([r.precision.mean() for r in rs])])
    rand = np.mean([run.random_precision[(t, model)].mean() for t in targets])
    rows.append(["random words (Semi-NMF's images)", "", "", "", rand])
    header = ["method", "reconstruction (train)", "reconstruction (test)", "overlap ↓", "attribute precision ↑"]
    return rows, header


def plot_metrics(run):
    """Attribute precision and overlap per method, trained vs untrained projector (mean over targets)."""
    methods = list(run.config["methods"])
    targets = list(run.tokens)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.4))
    x = np.arange(len(methods))
    for j, (model, colour) in enumerate((("trained", "C0"), ("untrained", "C7"))):
        prec = [np.mean([run.get(t, model, m).precision.mean() for t in targets]) for m in methods]
        ov = [np.mean([run.get(t, model, m).overlap for t in targets]) for m in methods]
        axes[0].bar(x + (j - 0.5) * 0.38, prec, 0.38, color=colour, label=f"{model} projector")
        axes[1].bar(x + (j - 0.5) * 0.38, ov, 0.38, color=colour, label=f"{model} projector")
        rand = np.mean([run.random_precision[(t, model)].mean() for t in targets])
        axes[0].axhline(rand, color=colour, ls="--", lw=1, label=f"random words ({model})")
    for ax, label in zip(axes, ("attribute precision (mean over concepts)", "overlap of grounded words"), strict=True):
        ax.set_xticks(x)
        ax.set_xticklabels([LABELS[m] for m in methods], rotation=25, ha="right", fontsize=8)
        ax.set_ylabel(label)
        ax.set_ylim(0, 1)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_explained(run, target: str, explanation: dict, n_images: int = 3):
    """One test image, its activations on the Semi-NMF concepts, and the images of its top concepts."""
    from .experiment import attribute_vocabulary
    from .metrics import first_attribute_word

    res = run.get(target, "trained", "snmf")
    tokens = run.tokens[target]
    imgs = _token_images(run, target)
    top = explanation["concepts"]
    fig = plt.figure(figsize=(11, 3.2))
    gs = fig.add_gridspec(len(top), 3 + n_images, width_ratios=[2.2, 2.6] + [3.4] + [1] * n_images)
    ax = fig.add_subplot(gs[:, 0])
    ax.imshow(imgs[explanation["row"]])
    ax.set_title("test image\n" + tokens.captions[explanation["row"]], fontsize=8)
    ax.axis("off")
    ax = fig.add_subplot(gs[:, 1])
    v = explanation["activations"]
    ax.barh(np.arange(len(v)), v, color=["C3" if k in top else "C7" for k in range(len(v))])
    ax.set_yticks(np.arange(len(v)))
    ax.invert_yaxis()
    ax.set_xlabel("activation v_k")
    ax.set_ylabel("concept k")
    for r, k in enumerate(top):
        a = fig.add_subplot(gs[r, 2])
        a.axis("off")
        w_k = first_attribute_word(res.words[k], attribute_vocabulary(target), (target,)) or "none"
        a.text(0, 0.5, f"concept {k} (attribute word: {w_k})\n" + ", ".join(res.words[k][:4]), fontsize=8,
               va="center")
        for c, i in enumerate(res.mas[k][:n_images]):
            b = fig.add_subplot(gs[r, 3 + c])
            b.imshow(imgs[i])
            b.set_xticks([])
            b.set_yticks([])
    fig.tight_layout()
    return fig


def plot_explore(run, data, W_U, vocab, K: int = 8, target=None, method: str = "snmf", n_show: int = 6):
    """The Explore view: refit one target's dictionary with K concepts by ``method``; show the first concepts."""
    from .experiment import ConceptsRun, analyse

    target = target or next(iter(run.tokens))
    cfg = run.config
    res = analyse(data[target], W_U, vocab, method, "trained", K, cfg["alpha"], cfg["n_test"], cfg["max_iter"],
                  cfg["n_words"], cfg["pre_top"], cfg["n_mas"])
    view = ConceptsRun(config=cfg, meta=run.meta, tokens=run.tokens, results={(target, "trained", method): res})
    fig = plot_gallery(view, target, "trained", method, concepts=range(min(K, n_show)))
    fig.suptitle(f"'{target}', {LABELS[method]}, K = {K}: mean precision {res.precision.mean():.2f}, "
                 f"overlap {res.overlap:.2f}, test reconstruction {res.recon_test:.2f}", fontsize=9)
    return fig
