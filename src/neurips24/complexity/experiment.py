"""The chapter's experiments: feature complexity on EfficientNet-Lite0 (ImageNet) and on digits ResNets.

Sizes come from the run scale (``neurips24.scale()``): ``SIZES[scale]``. Each model is analysed the same way
(:func:`analyse`): an NMF dictionary of the penultimate layer, complexity K over the blocks, importance Γ,
CKA of the simple and complex features with every block's output, and the redundancy of each feature (CKA with
the penultimate layer under random neuron masks); the runs add each feature's sensitivity to Gaussian input
noise. The control is the same analysis of the network at random initialisation.

The analyses run with one BLAS thread (``threadpoolctl``): the matrices are small, and on a shared 2-core
machine OpenBLAS's second thread made scikit-learn's NMF forty times slower in this book's measurements.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import spearmanr
from threadpoolctl import threadpool_limits

from .. import seeding
from ..checks import check_count
from ..scale import check_scale
from . import images as image_data
from .features import fit_dictionary
from .kernels import decodability_any
from .layers import pooled_activations
from .redundancy import redundancy
from .resnet import digits_tensors, train_resnet
from .robustness import feature_sensitivity, noisy_activations
from .vinfo import complexity, importance, linear_cka, split_halves, v_information

SIZES = {
    "fast": dict(n_crops=512, image_size=96, k_imagenet=64, n_seeds=5, epochs=10, width=24, n_blocks=4,
                 k_digits=24, n_noisy=256, n_draws=2, n_noisy_digits=600),
    "full": dict(n_crops=4096, image_size=224, k_imagenet=512, n_seeds=5, epochs=30, width=64,
                 n_blocks=6, k_digits=48, n_noisy=2048, n_draws=8, n_noisy_digits=1797),
}
LAM = 0.1          # ridge strength, relative to the number of fitting inputs (mild: a linear feature keeps R² ~ 1)
SIGMA = 0.1        # input noise (standard deviation, input units: digits in [0, 1], EfficientNet inputs ~[-1, 1])
KEEP = 0.5         # fraction of the penultimate neurons a redundancy mask keeps
N_MASKS = 64       # random masks per redundancy estimate


def one_blas_thread(fn):
    """Run ``fn`` with NumPy's BLAS limited to one thread (threadpoolctl); results are unchanged."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with threadpool_limits(limits=1, user_api="blas"):
            return fn(*args, **kwargs)
    return wrapper


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
    redundancy: np.ndarray | None = None     # (k,) E_m CKA(f_n ⊙ m, z) / CKA(f_n, z)
    sensitivity: np.ndarray | None = None    # (k,) value change under input noise / variance over inputs

    @property
    def iqr(self) -> float:
        q1, q3 = np.percentile(self.K, [25, 75])
        return float(q3 - q1)

    @property
    def rho(self) -> float:
        """Spearman correlation of complexity and importance across features."""
        return float(spearmanr(self.K, self.gamma).statistic)

    @property
    def rho_scale_free(self) -> float:
        """Spearman ρ(K, Γ / sd z): importance per unit of the feature's spread, which the features' magnitude
        cannot drive (Γ is linear in the scale of z)."""
        return float(spearmanr(self.K, self.gamma / self.Z.std(0)).statistic)

    @property
    def rho_magnitude(self) -> float:
        """Spearman ρ(K, E|z|): the importance a head that weighs every feature alike would give (no gradient)."""
        return float(spearmanr(self.K, np.abs(self.Z).mean(0)).statistic)

    @property
    def rho_size(self) -> float:
        """Spearman ρ(K, sd z): are the simple features the large ones?"""
        return float(spearmanr(self.K, self.Z.std(0)).statistic)

    @property
    def rho_redundancy(self) -> float:
        """Spearman correlation of complexity and redundancy across features."""
        return float(spearmanr(self.K, self.redundancy).statistic)

    @property
    def rho_sensitivity(self) -> float:
        """Spearman correlation of complexity and noise sensitivity across features."""
        return float(spearmanr(self.K, self.sensitivity).statistic)

    def terciles(self) -> tuple[np.ndarray, np.ndarray]:
        """Indices of the simplest and the most complex third of the features (by K)."""
        order = np.argsort(self.K)
        third = max(1, len(self.K) // 3)
        return order[:third], order[-third:]


@one_blas_thread
def analyse(name, acts: dict, blocks: list, penultimate: str, W_fc, k: int, seed: int = 0) -> Analysis:
    """Features, complexity, importance, CKA by block and redundancy of one network from its pooled activations.

    ``acts`` maps layer names (``blocks`` and ``penultimate``) and 'logits' to (n, ·) arrays
    (:func:`pooled_activations`); ``W_fc`` is the (C, d) head. The complexity uses a fixed half split (the
    batched ridge kernels on a GPU, SciPy otherwise); the redundancy uses ``N_MASKS`` masks keeping ``KEEP``
    of the penultimate neurons.
    """
    dic = fit_dictionary(acts[penultimate], k, seed=seed)
    tr, te = split_halves(len(dic.Z), seed=seed)
    per_block = decodability_any({b: acts[b] for b in blocks}, dic.Z, tr, te, LAM)
    K = 1.0 - per_block.mean(0)
    predicted = acts["logits"].argmax(1)
    gamma = importance(dic.Z, dic.D, W_fc, predicted)
    order = np.argsort(K)
    third = max(1, len(K) // 3)
    simple, complex_ = order[:third], order[-third:]
    cka_s = np.array([linear_cka(acts[b], dic.Z[:, simple]) for b in blocks])
    cka_c = np.array([linear_cka(acts[b], dic.Z[:, complex_]) for b in blocks])
    red = redundancy(acts[penultimate], dic.Z, keep=KEEP, n_masks=N_MASKS, seed=seed)
    return Analysis(name, K, gamma, per_block, list(blocks), cka_s, cka_c, dic.Z, dic.D,
                    extra={"blocks": {b: acts[b] for b in blocks}, "seed": seed, "dictionary": dic,
                           "penultimate": acts[penultimate], "W_fc": W_fc, "predicted": predicted}, redundancy=red)


@one_blas_thread
def rescore(analysis: Analysis) -> Analysis:
    """The same features' K and Γ computed again from the stored activations, dictionary and head (the steps of
    :func:`analyse` after the dictionary): a copy of ``analysis`` with new ``K``, ``per_block`` and ``gamma``
    (CKA, redundancy and sensitivity are kept). Used to re-judge the claims after a change to the V-information
    or the importance code without refitting the dictionary."""
    import dataclasses

    ex = analysis.extra
    tr, te = split_halves(len(analysis.Z), seed=ex["seed"])
    per_block = decodability_any(ex["blocks"], analysis.Z, tr, te, LAM)
    gamma = importance(analysis.Z, analysis.D, ex["W_fc"], ex["predicted"])
    return dataclasses.replace(analysis, K=1.0 - per_block.mean(0), per_block=per_block, gamma=gamma)


@one_blas_thread
def shuffled_complexity(analysis: Analysis, seed: int = 0) -> np.ndarray:
    """K of the same features with their values permuted across inputs: a null no block can decode (K ~ 1)."""
    Z = analysis.Z[np.random.default_rng(seed).permutation(len(analysis.Z))]
    tr, te = split_halves(len(Z), seed=analysis.extra["seed"])
    return complexity(analysis.extra["blocks"], Z, tr, te, LAM)


def _spearman_rows(x, y, axis=-1):
    """Spearman's ρ along ``axis`` of batched samples: Pearson's r of the average ranks (as ``spearmanr``)."""
    from scipy.stats import rankdata

    rx, ry = rankdata(x, axis=axis), rankdata(y, axis=axis)
    rx, ry = rx - rx.mean(axis, keepdims=True), ry - ry.mean(axis, keepdims=True)
    den = np.sqrt((rx ** 2).sum(axis) * (ry ** 2).sum(axis))
    return np.where(den > 0, (rx * ry).sum(axis) / np.where(den > 0, den, 1.0), np.nan)


def spearman_interval(a, b, level: float = 0.95, seed: int = 0):
    """Spearman's ρ of paired samples with a paired bootstrap interval (scipy.stats.bootstrap, percentile)."""
    from scipy.stats import bootstrap

    from ..claims import Interval

    a, b = np.asarray(a, float), np.asarray(b, float)
    rho = float(spearmanr(a, b).statistic)
    res = bootstrap((a, b), _spearman_rows, paired=True, vectorized=True,
                    confidence_level=level, method="percentile", n_resamples=999,
                    rng=np.random.default_rng(seed))
    return Interval(rho, float(res.confidence_interval.low), float(res.confidence_interval.high), level,
                    f"paired bootstrap (percentile) over {a.size} features")


# ---------------------------------------------------------------- EfficientNet-Lite0 on shipped photographs
EFF_BLOCKS = [f"_blocks.{i}" for i in range(16)]
EFF_PENULTIMATE = "_avg_pooling"


def efficientnet_model(weights: str, seed: int = 0):
    """EfficientNet-Lite0 (torch, eval mode): 'imagenet' (the shared loader's weights) or 'random' (the same
    architecture re-initialised with torch's default initialisers under ``torch.manual_seed(seed)``, batch-norm
    statistics reset).

    Raises
    ------
    ValueError for any other ``weights``.
    """
    import torch

    from ..assets import load_efficientnet_lite

    if weights not in ("imagenet", "random"):
        raise ValueError(f"weights must be 'imagenet' or 'random', got {weights!r}")
    model = load_efficientnet_lite()
    if weights == "random":
        torch.manual_seed(seed)
        for m in model.modules():
            if hasattr(m, "reset_parameters") and m is not model:
                m.reset_parameters()
            if hasattr(m, "reset_running_stats"):
                m.reset_running_stats()
    return model.eval()


def _cache_path(name: str):
    from ..assets import cache_root

    return cache_root() / "complexity" / name


def efficientnet_activations(weights: str, n_crops: int, image_size: int, seed: int = 0) -> dict:
    """Pooled activations of EfficientNet-Lite0's 16 blocks and penultimate layer on photo crops (cached).

    ``weights``: as :func:`efficientnet_model`. The activations and the head's weights are cached in
    ``neurips24.assets.cache_root() / 'complexity'`` as an .npz file (float32), so later runs load no model.

    Returns
    -------
    {'acts': dict layer -> (n_crops, channels) float64 and 'logits', 'W_fc': (1000, 1280) float64}.
    """
    if weights not in ("imagenet", "random"):
        raise ValueError(f"weights must be 'imagenet' or 'random', got {weights!r}")
    path = _cache_path(f"effnet_{weights}_{n_crops}_{image_size}_{seed}.npz")
    if path.exists():
        with np.load(path, allow_pickle=False) as f:
            acts = {k.replace("__", "."): f[k].astype(np.float64) for k in f.files}
        if "W_fc" in acts:
            return {"acts": acts, "W_fc": acts.pop("W_fc")}
    model = efficientnet_model(weights, seed)
    W_fc = model._fc.weight.detach().double().numpy()
    if not path.exists():
        x = image_data.photo_crops(n_crops, image_size, seed=seed)
        acts = pooled_activations(model, x, EFF_BLOCKS + [EFF_PENULTIMATE], batch_size=64)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, W_fc=W_fc.astype(np.float32),
                        **{k.replace(".", "__"): v.astype(np.float32) for k, v in acts.items()})
    return {"acts": {k: v.astype(np.float32).astype(np.float64) for k, v in acts.items()},
            "W_fc": W_fc.astype(np.float32).astype(np.float64)}


def efficientnet_noisy(weights: str, n_crops: int, image_size: int, n_noisy: int, n_draws: int,
                       sigma: float = SIGMA, seed: int = 0) -> np.ndarray:
    """The penultimate activations of the first ``n_noisy`` crops under ``n_draws`` Gaussian noise draws of
    standard deviation ``sigma`` (input units): (n_draws, n_noisy, 1280) float64, cached like
    :func:`efficientnet_activations`. The clean rows are ``efficientnet_activations(...)['acts'][...][:n_noisy]``.

    Raises
    ------
    ValueError for bad ``weights``, n_noisy outside 1..n_crops, and as :func:`.robustness.noisy_activations`.
    """
    if weights not in ("imagenet", "random"):
        raise ValueError(f"weights must be 'imagenet' or 'random', got {weights!r}")
    if isinstance(n_noisy, bool) or not isinstance(n_noisy, (int, np.integer)) or not 1 <= n_noisy <= n_crops:
        raise ValueError(f"n_noisy must be an integer in 1..n_crops = 1..{n_crops}, got {n_noisy!r}")
    path = _cache_path(f"effnet_{weights}_{n_crops}_{image_size}_{seed}_noise{sigma:g}_{n_noisy}x{n_draws}.npz")
    if path.exists():
        with np.load(path, allow_pickle=False) as f:
            return f["noisy"].astype(np.float64)
    x = image_data.photo_crops(n_crops, image_size, seed=seed)[:n_noisy]
    noisy = noisy_activations(efficientnet_model(weights, seed), x, EFF_PENULTIMATE, sigma, n_draws, seed=seed,
                              batch_size=64).astype(np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, noisy=noisy)
    return noisy.astype(np.float64)


@one_blas_thread
def run_efficientnet(scale: str = "fast") -> dict:
    """:func:`analyse` of EfficientNet-Lite0 with its ImageNet weights and at random initialisation, and the
    features' sensitivity to input noise on the first ``n_noisy`` crops (normalised by the variance over all)."""
    s = SIZES[check_scale(scale)]
    out = {}
    for weights in ("imagenet", "random"):
        r = efficientnet_activations(weights, s["n_crops"], s["image_size"])
        a = analyse(f"EfficientNet-Lite0 ({weights})", r["acts"], EFF_BLOCKS, EFF_PENULTIMATE,
                    r["W_fc"], s["k_imagenet"])
        noisy = efficientnet_noisy(weights, s["n_crops"], s["image_size"], s["n_noisy"], s["n_draws"])
        dic, pen = a.extra["dictionary"], r["acts"][EFF_PENULTIMATE]
        a.sensitivity = feature_sensitivity(dic, pen[: s["n_noisy"]], noisy, dic.encode(pen).var(0))
        out[weights] = a
    return out


# ---------------------------------------------------------------- digits ResNets with their training history
@dataclass
class DigitsResult:
    trained: dict          # seed -> Analysis of the final network
    initial: dict          # seed -> Analysis of the same network at initialisation (epoch 0)
    early: dict            # seed -> Analysis after the first epoch (the paper's Fig. 6 compares epoch 1 and 90)
    Lambda: dict           # seed -> (k,) temporal decoding score of the trained features
    Lambda_initial: dict   # seed -> (k,) the same score for the initial network's features
    per_epoch: dict        # seed -> (epochs, k) decodability of the final features from each epoch
    accuracy: dict         # seed -> test accuracy per epoch


def digits_analysis(run, x, k: int, seed: int, n_blocks: int, epoch: int | None = None, n_draws: int = 2,
                    n_noisy: int | None = None):
    """Analysis of one checkpoint of a digits run (default: the last), with the noise sensitivity of its
    features (``n_draws`` draws of N(0, SIGMA²) pixel noise on the first ``n_noisy`` inputs, default all;
    ``n_draws=0``: none), normalised by each feature's variance over all inputs (both encoded with the fixed
    dictionary)."""
    t = len(run.checkpoints) - 1 if epoch is None else epoch
    model = run.at_epoch(t)
    blocks = ["stem"] + [f"blocks.{i}" for i in range(n_blocks)]
    acts = pooled_activations(model, x, blocks + ["pool"], batch_size=2048)
    a = analyse(f"digits ResNet, seed {seed}, epoch {t}", acts, blocks, "pool",
                model.fc.weight.detach().double().numpy(), k, seed=seed)
    if n_draws == 0:
        return a
    n_noisy = len(x) if n_noisy is None else n_noisy
    noisy = noisy_activations(model, x[:n_noisy], "pool", SIGMA, n_draws, seed=seed, batch_size=2048)
    dic = a.extra["dictionary"]
    a.sensitivity = feature_sensitivity(dic, acts["pool"][:n_noisy], noisy, dic.encode(acts["pool"]).var(0))
    return a


def penultimate_history(run, x) -> list:
    """The penultimate activations (n, width) of every checkpoint after epochs 1..T."""
    return [pooled_activations(run.at_epoch(t), x, ["pool"], batch_size=512)["pool"]
            for t in range(1, len(run.checkpoints))]


def temporal_score(history: list, Z, seed: int) -> np.ndarray:
    """Per epoch t = 1..T, I_V(penultimate of checkpoint t -> z) for the features Z: (T, k); Λ is its mean
    over epochs (the temporal decoding score, as the book reads the paper's Sec. 4)."""
    tr, te = split_halves(len(Z), seed=seed)
    return np.stack([v_information(h, Z, tr, te, LAM) for h in history])


def cached_training(x, y, train, test, seed: int, epochs: int, width: int, n_blocks: int):
    """:func:`~neurips24.complexity.resnet.train_resnet`, its checkpoints cached in
    ``neurips24.assets.cache_root() / 'complexity'`` (torch.save; read back with ``weights_only=True``): the
    training is deterministic for a seed, so a second run of the chapter reads it instead of training again."""
    import torch

    from .resnet import TrainingRun, build_resnet

    path = _cache_path(f"digits_resnet_{seed}_{epochs}_{width}_{n_blocks}.pt")
    if path.exists():
        saved = torch.load(path, weights_only=True)
        return TrainingRun(build_resnet(width, n_blocks), saved["checkpoints"], saved["test_accuracy"])
    run = train_resnet(x, y, train, test, seed, epochs, width, n_blocks)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"checkpoints": run.checkpoints, "test_accuracy": run.test_accuracy}, path)
    return run


@one_blas_thread
def run_digits(scale: str = "fast", seeds=None) -> DigitsResult:
    """Train one digits ResNet per seed (2/3 of the 1,797 digits) and analyse it at initialisation (epoch 0),
    after the first epoch (the paper's early checkpoint, K and Γ only) and after training.

    Parameters
    ----------
    scale : 'fast' or 'full' (:data:`SIZES`).
    seeds : iterable of ints ≥ 0, or None: ``neurips24.seeds(SIZES[scale]['n_seeds'])`` (the book's offset applies).

    Raises
    ------
    ValueError for an unknown scale, fewer than 3 seeds or a seed that is not an integer ≥ 0.
    """
    s = SIZES[check_scale(scale)]
    seeds = seeding.seeds(s["n_seeds"]) if seeds is None else tuple(check_count("seeds", v, 0) for v in seeds)
    if len(seeds) < 3:
        raise ValueError(f"seeds must hold at least 3 seeds, got {seeds!r}")
    x, y = digits_tensors()
    perm = np.random.default_rng(0).permutation(len(y))
    train, test = perm[: 2 * len(y) // 3], perm[2 * len(y) // 3:]
    res = DigitsResult({}, {}, {}, {}, {}, {}, {})
    for seed in seeds:
        run = cached_training(x, y, train, test, seed, s["epochs"], s["width"], s["n_blocks"])
        res.accuracy[seed] = run.test_accuracy
        noise = dict(n_draws=s["n_draws"], n_noisy=s["n_noisy_digits"])
        res.trained[seed] = digits_analysis(run, x, s["k_digits"], seed, s["n_blocks"], **noise)
        res.initial[seed] = digits_analysis(run, x, s["k_digits"], seed, s["n_blocks"], epoch=0, **noise)
        res.early[seed] = digits_analysis(run, x, s["k_digits"], seed, s["n_blocks"], epoch=1, n_draws=0)
        history = penultimate_history(run, x)
        res.per_epoch[seed] = temporal_score(history, res.trained[seed].Z, seed)
        res.Lambda[seed] = res.per_epoch[seed].mean(0)
        res.Lambda_initial[seed] = temporal_score(history, res.initial[seed].Z, seed).mean(0)
    return res


__all__ = ["SIZES", "Analysis", "analyse", "rescore", "shuffled_complexity", "cached_training",
           "spearman_interval", "efficientnet_model",
           "efficientnet_activations", "efficientnet_noisy", "run_efficientnet", "DigitsResult", "digits_analysis",
           "penultimate_history", "temporal_score", "run_digits", "complexity", "one_blas_thread"]
