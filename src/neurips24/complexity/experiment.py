"""The chapter's experiments: feature complexity on EfficientNet-Lite0 (ImageNet) and on digits ResNets.

Sizes come from the run scale (``neurips24.scale()``): ``SIZES[scale]``. Each model is analysed the same way
(:func:`analyse`): an NMF dictionary of the penultimate layer, complexity K over the blocks, importance Γ, and
CKA of the simple and complex features with every block's output. The control is the same analysis of the
network at random initialisation.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.stats import spearmanr

from ..scale import check_scale
from . import images as image_data
from .features import fit_dictionary
from .layers import pooled_activations
from .resnet import digits_tensors, train_resnet
from .vinfo import complexity, decodability, importance, linear_cka, split_halves, v_information

SIZES = {
    "fast": dict(n_crops=512, image_size=96, k_imagenet=64, seeds=(0, 1, 2), epochs=10, width=24, n_blocks=4,
                 k_digits=24),
    "full": dict(n_crops=4096, image_size=224, k_imagenet=512, seeds=(0, 1, 2, 3, 4), epochs=30, width=64,
                 n_blocks=6, k_digits=48),
}
LAM = 0.1          # ridge strength, relative to the number of fitting inputs (mild: a linear feature keeps R² ~ 1)


@dataclass
class Analysis:
    """One network's features: K (k,), Γ (k,), the per-block decodability (n_blocks, k), CKA by block."""

    name: str
    K: np.ndarray
    gamma: np.ndarray
    per_block: np.ndarray
    block_names: list
    cka_simple: np.ndarray
    cka_complex: np.ndarray
    Z: np.ndarray
    D: np.ndarray
    extra: dict = field(default_factory=dict)

    @property
    def iqr(self) -> float:
        q1, q3 = np.percentile(self.K, [25, 75])
        return float(q3 - q1)

    @property
    def rho(self) -> float:
        """Spearman correlation of complexity and importance across features."""
        return float(spearmanr(self.K, self.gamma).statistic)


def analyse(name, acts: dict, blocks: list, penultimate: str, W_fc, k: int, seed: int = 0) -> Analysis:
    """Features, complexity, importance and CKA of one network from its pooled activations.

    ``acts`` maps layer names (``blocks`` and ``penultimate``) and 'logits' to (n, ·) arrays
    (:func:`pooled_activations`); ``W_fc`` is the (C, d) head. The complexity uses a fixed half split.
    """
    dic = fit_dictionary(acts[penultimate], k, seed=seed)
    tr, te = split_halves(len(dic.Z), seed=seed)
    per_block = decodability({b: acts[b] for b in blocks}, dic.Z, tr, te, LAM)
    K = 1.0 - per_block.mean(0)
    gamma = importance(dic.Z, dic.D, W_fc, acts["logits"].argmax(1))
    order = np.argsort(K)
    third = max(1, len(K) // 3)
    simple, complex_ = order[:third], order[-third:]
    cka_s = np.array([linear_cka(acts[b], dic.Z[:, simple]) for b in blocks])
    cka_c = np.array([linear_cka(acts[b], dic.Z[:, complex_]) for b in blocks])
    return Analysis(name, K, gamma, per_block, list(blocks), cka_s, cka_c, dic.Z, dic.D,
                    extra={"blocks": {b: acts[b] for b in blocks}, "seed": seed})


def shuffled_complexity(analysis: Analysis, seed: int = 0) -> np.ndarray:
    """K of the same features with their values permuted across inputs: a null no block can decode (K ~ 1)."""
    Z = analysis.Z[np.random.default_rng(seed).permutation(len(analysis.Z))]
    tr, te = split_halves(len(Z), seed=analysis.extra["seed"])
    return complexity(analysis.extra["blocks"], Z, tr, te, LAM)


def spearman_interval(a, b, level: float = 0.95, seed: int = 0):
    """Spearman's ρ of paired samples with a paired bootstrap interval (scipy.stats.bootstrap, percentile)."""
    from scipy.stats import bootstrap

    from ..claims import Interval

    a, b = np.asarray(a, float), np.asarray(b, float)
    rho = float(spearmanr(a, b).statistic)
    res = bootstrap((a, b), lambda x, y: spearmanr(x, y).statistic, paired=True, vectorized=False,
                    confidence_level=level, method="percentile", n_resamples=999,
                    rng=np.random.default_rng(seed))
    return Interval(rho, float(res.confidence_interval.low), float(res.confidence_interval.high), level,
                    f"paired bootstrap (percentile) over {a.size} features")


# ---------------------------------------------------------------- EfficientNet-Lite0 on shipped photographs
EFF_BLOCKS = [f"_blocks.{i}" for i in range(16)]
EFF_PENULTIMATE = "_avg_pooling"


def efficientnet_activations(weights: str, n_crops: int, image_size: int, seed: int = 0) -> dict:
    """Pooled activations of EfficientNet-Lite0's 16 blocks and penultimate layer on photo crops (cached).

    ``weights``: 'imagenet' (the shared loader's weights) or 'random' (the same architecture re-initialised
    with torch's default initialisers under ``torch.manual_seed(seed)``, batch-norm statistics reset).
    The result is cached in ``neurips24.assets.cache_root() / 'complexity'`` as an .npz file.
    """
    import torch

    from ..assets import cache_root, load_efficientnet_lite

    if weights not in ("imagenet", "random"):
        raise ValueError(f"weights must be 'imagenet' or 'random', got {weights!r}")
    path = cache_root() / "complexity" / f"effnet_{weights}_{n_crops}_{image_size}_{seed}.npz"
    model = load_efficientnet_lite()
    if weights == "random":
        torch.manual_seed(seed)
        for m in model.modules():
            if hasattr(m, "reset_parameters") and m is not model:
                m.reset_parameters()
            if hasattr(m, "reset_running_stats"):
                m.reset_running_stats()
    W_fc = model._fc.weight.detach().double().numpy()
    if path.exists():
        with np.load(path, allow_pickle=False) as f:
            acts = {k.replace("__", "."): f[k] for k in f.files}
        return {"acts": acts, "W_fc": W_fc}
    x = image_data.photo_crops(n_crops, image_size, seed=seed)
    acts = pooled_activations(model, x, EFF_BLOCKS + [EFF_PENULTIMATE], batch_size=64)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **{k.replace(".", "__"): v.astype(np.float32) for k, v in acts.items()})
    return {"acts": {k: v.astype(np.float32).astype(np.float64) for k, v in acts.items()}, "W_fc": W_fc}


def run_efficientnet(scale: str = "fast") -> dict:
    """:func:`analyse` of EfficientNet-Lite0 with its ImageNet weights and at random initialisation."""
    s = SIZES[check_scale(scale)]
    out = {}
    for weights in ("imagenet", "random"):
        r = efficientnet_activations(weights, s["n_crops"], s["image_size"])
        out[weights] = analyse(f"EfficientNet-Lite0 ({weights})", r["acts"], EFF_BLOCKS, EFF_PENULTIMATE,
                               r["W_fc"], s["k_imagenet"])
    return out


# ---------------------------------------------------------------- digits ResNets with their training history
@dataclass
class DigitsResult:
    trained: dict          # seed -> Analysis of the final network
    initial: dict          # seed -> Analysis of the same network at initialisation (epoch 0)
    Lambda: dict           # seed -> (k,) temporal decoding score of the trained features
    Lambda_initial: dict   # seed -> (k,) the same score for the initial network's features
    per_epoch: dict        # seed -> (epochs, k) decodability of the final features from each epoch
    accuracy: dict         # seed -> test accuracy per epoch


def digits_analysis(run, x, k: int, seed: int, n_blocks: int, epoch: int | None = None):
    """Analysis of one checkpoint of a digits run (default: the last)."""
    t = len(run.checkpoints) - 1 if epoch is None else epoch
    model = run.at_epoch(t)
    blocks = ["stem"] + [f"blocks.{i}" for i in range(n_blocks)]
    acts = pooled_activations(model, x, blocks + ["pool"], batch_size=512)
    return analyse(f"digits ResNet, seed {seed}, epoch {t}", acts, blocks, "pool",
                   model.fc.weight.detach().double().numpy(), k, seed=seed)


def penultimate_history(run, x) -> list:
    """The penultimate activations (n, width) of every checkpoint after epochs 1..T."""
    return [pooled_activations(run.at_epoch(t), x, ["pool"], batch_size=512)["pool"]
            for t in range(1, len(run.checkpoints))]


def temporal_score(history: list, Z, seed: int) -> np.ndarray:
    """Per epoch t = 1..T, I_V(penultimate of checkpoint t -> z) for the features Z: (T, k); Λ is its mean
    over epochs (the temporal decoding score, as the book reads the paper's Sec. 4)."""
    tr, te = split_halves(len(Z), seed=seed)
    return np.stack([v_information(h, Z, tr, te, LAM) for h in history])


def run_digits(scale: str = "fast") -> DigitsResult:
    """Train one digits ResNet per seed (2/3 of the 1,797 digits) and analyse it before and after training."""
    s = SIZES[check_scale(scale)]
    x, y = digits_tensors()
    perm = np.random.default_rng(0).permutation(len(y))
    train, test = perm[: 2 * len(y) // 3], perm[2 * len(y) // 3:]
    res = DigitsResult({}, {}, {}, {}, {}, {})
    for seed in s["seeds"]:
        run = train_resnet(x, y, train, test, seed, s["epochs"], s["width"], s["n_blocks"])
        res.accuracy[seed] = run.test_accuracy
        res.trained[seed] = digits_analysis(run, x, s["k_digits"], seed, s["n_blocks"])
        res.initial[seed] = digits_analysis(run, x, s["k_digits"], seed, s["n_blocks"], epoch=0)
        history = penultimate_history(run, x)
        res.per_epoch[seed] = temporal_score(history, res.trained[seed].Z, seed)
        res.Lambda[seed] = res.per_epoch[seed].mean(0)
        res.Lambda_initial[seed] = temporal_score(history, res.initial[seed].Z, seed).mean(0)
    return res


__all__ = ["SIZES", "Analysis", "analyse", "shuffled_complexity", "spearman_interval", "efficientnet_activations",
           "run_efficientnet", "DigitsResult", "digits_analysis", "penultimate_history", "temporal_score",
           "run_digits", "complexity"]
