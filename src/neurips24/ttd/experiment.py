"""The chapter's experiment: static vs test-time dynamic fusion on held-out pairs with a ground truth.

:func:`run_fusion` (a miniature of the paper's Tables 1, 2 and 4):

1. training pairs of the three kinds from crops of twelve scikit-image photographs (made-up smooth depth maps,
   warm and shadow regions);
2. a :class:`~neurips24.ttd.network.FusionNet` trained for fusion (unsupervised loss) and the same network
   trained for reconstruction only (the control);
3. held-out pairs from crops of a scene neither network saw: the Middlebury motorcycle with its measured
   disparity (near/far focus), under/over exposure, and the synthetic infrared stand-in;
4. per pair and method: the fusion metrics, the weights' correlation with the uni-source loss and with the true
   degradation, the Theorem 3.1 bound terms.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch

from .. import seeding
from ..assets import natural_images
from ..checks import check_count
from . import classical, data, network, weights
from . import metrics as mt

SETTINGS = {
    # crops per training image and kind, crop side; held-out crops per kind, side; training steps; channels
    "fast": dict(train_crops=2, train_size=128, test_crops=8, test_size=160, steps=300, channels=8,
                 n_seeds=3),
    "full": dict(train_crops=8, train_size=192, test_crops=24, test_size=256, steps=3000, channels=32,
                 n_seeds=5),
}
METHODS = ("static", "TTD (code form, γ = 50)", "Softmax(−γℓ), γ = 50", "TTD (paper form, γ = 1)",
           "reversed RD (M − ω), γ = 50", "reconstruction net: static", "reconstruction net: TTD, γ = 50",
           "Laplacian pyramid (scikit-image)")
TTD = METHODS[1]
GAMMAS = (weights.GAMMA_PAPER, weights.GAMMA_CODE)   # the mechanism checks run at the paper's γ and the code's


def _settings(scale: str) -> dict:
    if scale not in SETTINGS:
        raise ValueError(f"scale must be one of {sorted(SETTINGS)}, got {scale!r}")
    return SETTINGS[scale]


def _crop(rng, shape, size):
    i, j = rng.integers(0, shape[0] - size + 1), rng.integers(0, shape[1] - size + 1)
    return slice(i, i + size), slice(j, j + size)


def training_pairs(n_crops: int, size: int, seed: int = 0) -> list[data.FusionPair]:
    """Pairs of all three kinds from ``n_crops`` random crops per training photograph and kind (none of them
    the motorcycle): random smooth depth maps for defocus, random warm and shadow regions."""
    rng = np.random.default_rng(seed)
    pairs = []
    for name, im in natural_images(data.TRAINING_IMAGES).items():
        g = data.to_grey(im)
        for k in range(n_crops):
            x = g[_crop(rng, g.shape, size)]
            pairs.append(data.multi_focus_pair(x, data.smooth_field(x.shape, rng, size / 10), focus=(1.0, 0.0),
                                               name=f"{name} {k}"))
            pairs.append(data.multi_exposure_pair(x, gains=(rng.uniform(0.2, 0.4), rng.uniform(2, 3.5)), rng=rng,
                                                  name=f"{name} {k}"))
            warm = data.soft_mask(data.smooth_field(x.shape, rng, size / 12), 0.7)
            shadow = data.soft_mask(data.smooth_field(x.shape, rng, size / 8), 0.5)
            pairs.append(data.infrared_visible_pair(x, warm, shadow, rng=rng, name=f"{name} {k}"))
    return pairs


def held_out_pairs(n_crops: int, size: int, seed: int = 1) -> list[data.FusionPair]:
    """Pairs from ``n_crops`` random crops of the motorcycle scene per kind: near/far focus from its measured
    disparity, under/over exposure, infrared stand-in whose warm objects are the near ones (disparity above
    the 60th percentile of the scene's range)."""
    rng = np.random.default_rng(seed)
    img, disp = data.motorcycle()
    near = (disp - disp.min()) / np.ptp(disp)
    pairs = []
    for k in range(n_crops):
        sl = _crop(rng, img.shape, size)
        x, d = img[sl], near[sl]
        pairs.append(data.multi_focus_pair(x, d, focus=(0.9, 0.1), name=f"motorcycle {k}"))
        pairs.append(data.multi_exposure_pair(x, rng=rng, name=f"motorcycle {k}"))
        shadow = data.soft_mask(data.smooth_field(x.shape, rng, size / 8), 0.5)
        pairs.append(data.infrared_visible_pair(x, data.soft_mask(d, 0.6), shadow, rng=rng, name=f"motorcycle {k}"))
    return sorted(pairs, key=lambda p: data.KINDS.index(p.kind))


def quality_correlation(w, degradation) -> float:
    """corr(ω_1, δ_1 − δ_2) over the pixels (for M = 2, ω_2 = 2 − ω_1, so it is the same for either source):
    negative when a source gets more weight where it is *less* degraded than the other — the right way."""
    w, dg = np.asarray(w), np.asarray(degradation)
    return float(np.corrcoef(w[0].ravel(), (dg[0] - dg[1]).ravel())[0, 1])


@dataclass
class FusionResult:
    """What :func:`run_fusion` computed. Per-pair lists follow the order of ``pairs``."""

    scale: str
    pairs: list
    n_train_pairs: int
    fusion_net: network.FusionNet
    reconstruction_net: network.FusionNet
    history: dict
    metrics: dict = field(default_factory=dict)       # method -> list of metric dicts
    quality_corr: dict = field(default_factory=dict)  # 'fusion' / 'reconstruction' -> (n_pairs,)
    loss_corr: dict = field(default_factory=dict)     # 'fusion' / 'reconstruction' -> (n_pairs,) corr(ω_1, ℓ_1)
    bound: dict = field(default_factory=dict)         # 'static' / 'TTD' / 'mismatched' -> list of dicts
    weight_sum_error: float = 0.0
    seconds: dict = field(default_factory=dict)
    per_gamma: dict = field(default_factory=dict)     # γ -> {measurement: (n_pairs,)}, see _gamma_numbers
    seed: int = 0

    @property
    def kinds(self) -> np.ndarray:
        return np.array([p.kind for p in self.pairs])

    def values(self, method: str, metric: str) -> np.ndarray:
        """(n_pairs,) one metric of one method."""
        return np.array([m[metric] for m in self.metrics[method]])

    def gain(self, method: str, metric: str, base: str = "static") -> np.ndarray:
        """(n_pairs,) relative change of ``metric`` from ``base`` to ``method`` (PSNR_gt: difference in dB)."""
        a, b = self.values(method, metric), self.values(base, metric)
        return a - b if metric == "PSNR_gt" else a / b - 1

    def table(self, methods=(METHODS[0], TTD), names=mt.NAMES + ("PSNR_gt", "SSIM_gt")) -> tuple:
        """(rows, header): mean of each metric per pair kind and method."""
        rows = []
        for kind in data.KINDS:
            sel = self.kinds == kind
            for meth in methods:
                rows.append([kind, meth] + [f"{self.values(meth, n)[sel].mean():.3g}" for n in names])
        return rows, ["pairs", "method"] + list(names)


N_SHUFFLES = 19     # pixel permutations of the weights behind the covariance's null (p < 0.05 when below all)


def covariance_term(w, ell) -> float:
    """Theorem 3.1's Σ_m Cov(ω_m / M, ℓ_m) over the pixels: w, ell (M, H, W) -> float (as ``weights.bound_terms``)."""
    w, ell = np.asarray(w, np.float64) / w.shape[0], np.asarray(ell, np.float64)
    wc = w - w.mean(axis=(1, 2), keepdims=True)
    return float(np.sum(np.mean(wc * (ell - ell.mean(axis=(1, 2), keepdims=True)), axis=(1, 2))))


def _shuffle_pixels(w, rng) -> np.ndarray:
    """The weight map with its pixels permuted (one permutation for every source, so Σ_m ω_m = M still)."""
    flat = w.reshape(w.shape[0], -1)
    return flat[:, rng.permutation(flat.shape[1])].reshape(w.shape)


def _gamma_numbers(res, comps, r_comps, gamma: float) -> dict:
    """Per held-out pair, at one γ: the mechanism's measurements and their controls, (n_pairs,) arrays.

    'quality' corr(ω_1, δ_1 − δ_2) of the fusion network's weights, control 'quality_control' the
    reconstruction network's; 'cov' the bound's covariance term minus the smallest of its values under
    ``N_SHUFFLES`` random permutations of the weights' pixels (< 0: more negative than every shuffle), control
    'cov_control' the same for one more shuffled weight map (the weights' spread without their link to each pixel);
    'AG', 'SF' (relative gains) and 'psnr' (dB) of TTD over the static rule, controls '*_control' with the
    reversed weights M − ω, and 'psnr_recon' the reconstruction network's TTD over its own static rule."""
    fnet, rnet = res.fusion_net, res.reconstruction_net
    out = {k: [] for k in ("quality", "quality_control", "cov", "cov_control", "AG", "AG_control", "SF",
                           "SF_control", "psnr", "psnr_control", "psnr_recon")}
    ws = []
    for p, comp, r_comp in zip(res.pairs, comps, r_comps, strict=True):
        x = p.sources.astype(np.float64)
        w = weights.rd_weights(weights.component_loss(comp, x), gamma, "exp")
        ws.append(w)
        out["quality"].append(quality_correlation(w, p.degradation))
        r_w = weights.rd_weights(weights.component_loss(r_comp, x), gamma, "exp")
        out["quality_control"].append(quality_correlation(r_w, p.degradation))
        out["psnr_recon"].append(mt.psnr_truth(weights.fuse(rnet, x, r_w), p.truth)
                                 - mt.psnr_truth(weights.fuse(rnet, x), p.truth))
        out["cov"].append(covariance_term(w, (comp - x) ** 2))       # the theorem's ℓ_m, whatever the weights read
        static = weights.fuse(fnet, x)
        for key, F in (("", weights.fuse(fnet, x, w)), ("_control", weights.fuse(fnet, x, x.shape[0] - w))):
            out["AG" + key].append(mt.average_gradient(F) / mt.average_gradient(static) - 1)
            out["SF" + key].append(mt.spatial_frequency(F) / mt.spatial_frequency(static) - 1)
            out["psnr" + key].append(mt.psnr_truth(F, p.truth) - mt.psnr_truth(static, p.truth))
    rng = np.random.default_rng(res.seed)
    for i, p in enumerate(res.pairs):
        ell = (comps[i] - p.sources.astype(np.float64)) ** 2
        null = [covariance_term(_shuffle_pixels(ws[i], rng), ell) for _ in range(N_SHUFFLES)]
        out["cov"][i] -= min(null)
        out["cov_control"].append(covariance_term(_shuffle_pixels(ws[i], rng), ell) - min(null))
    return {k: np.array(v, dtype=np.float64) for k, v in out.items()}


def _evaluate(res: FusionResult, gamma: float = weights.GAMMA_CODE) -> None:
    fnet, rnet = res.fusion_net, res.reconstruction_net
    res.metrics = {m: [] for m in METHODS}
    for key in ("fusion", "reconstruction"):
        res.quality_corr[key], res.loss_corr[key] = [], []
    res.bound = {"static": [], "TTD": [], "mismatched": []}
    err = 0.0
    ttd_weights, comps, r_comps = [], [], []
    for p in res.pairs:
        x = p.sources
        a, b = x
        comp = weights.uni_source_components(fnet, x).astype(np.float64)
        ell = weights.component_loss(comp, x)
        comps.append(comp)
        w = weights.rd_weights(ell, gamma, "exp")
        ttd_weights.append(w)
        err = max(err, float(np.abs(w.sum(0) - x.shape[0]).max()))
        fused = {
            METHODS[0]: weights.fuse(fnet, x),
            METHODS[1]: weights.fuse(fnet, x, w),
            METHODS[2]: weights.fuse(fnet, x, weights.rd_weights(ell, gamma, "neg")),
            METHODS[3]: weights.fuse(fnet, x, weights.rd_weights(ell, weights.GAMMA_PAPER, "exp")),
            METHODS[4]: weights.fuse(fnet, x, x.shape[0] - w),
        }
        r_comp = weights.uni_source_components(rnet, x).astype(np.float64)
        r_comps.append(r_comp)
        r_ell = weights.component_loss(r_comp, x)
        r_w = weights.rd_weights(r_ell, gamma, "exp")
        fused[METHODS[5]] = weights.fuse(rnet, x)
        fused[METHODS[6]] = weights.fuse(rnet, x, r_w)
        fused[METHODS[7]] = classical.laplacian_pyramid_fusion(a, b)
        for meth, F in fused.items():
            res.metrics[meth].append(mt.fusion_metrics(F, a, b, p.truth))
        for key, ww, ll in (("fusion", w, ell), ("reconstruction", r_w, r_ell)):
            res.quality_corr[key].append(quality_correlation(ww, p.degradation))
            res.loss_corr[key].append(float(np.corrcoef(ww[0].ravel(), ll[0].ravel())[0, 1]))
        res.bound["static"].append(weights._bound_terms(comp, x.astype(np.float64), np.ones_like(w)))
        res.bound["TTD"].append(weights._bound_terms(comp, x.astype(np.float64), w))
    # control of the covariance claim: weights of the next pair of the same kind (a mismatched weight map)
    for i, p in enumerate(res.pairs):
        same = [j for j, q in enumerate(res.pairs) if q.kind == p.kind]
        j = same[(same.index(i) + 1) % len(same)]
        res.bound["mismatched"].append(weights._bound_terms(comps[i], p.sources.astype(np.float64), ttd_weights[j]))
    res.quality_corr = {k: np.array(v) for k, v in res.quality_corr.items()}
    res.loss_corr = {k: np.array(v) for k, v in res.loss_corr.items()}
    res.weight_sum_error = err
    res.per_gamma = {float(g): _gamma_numbers(res, comps, r_comps, g) for g in GAMMAS}


def train_networks(scale: str = "fast", seed: int | None = None, rule: str = "sum") -> FusionResult:
    """Steps 1–3 of the module docstring: the pairs and both trained networks, in a :class:`FusionResult` whose
    metrics are still empty (:func:`evaluate` fills them). Arguments and errors as :func:`run_fusion`."""
    cfg = _settings(scale)
    seed = seeding.seed(0) if seed is None else check_count("seed", seed, 0)
    if rule not in network.RULES:
        raise ValueError(f"rule must be one of {network.RULES}, got {rule!r}")
    t0 = time.perf_counter()
    train = training_pairs(cfg["train_crops"], cfg["train_size"], seed)
    test = held_out_pairs(cfg["test_crops"], cfg["test_size"], seed + 1)
    t1 = time.perf_counter()
    fnet, hf = network.train_fusion(train, steps=cfg["steps"], channels=cfg["channels"], seed=seed, rule=rule)
    t2 = time.perf_counter()
    rnet, hr = network.train_reconstruction(train, steps=cfg["steps"], channels=cfg["channels"], seed=seed)
    res = FusionResult(scale, test, len(train), fnet, rnet, {"fusion": hf, "reconstruction": hr}, seed=seed)
    res.seconds = {"pairs": t1 - t0, "train fusion": t2 - t1, "train reconstruction": time.perf_counter() - t2}
    return res


def evaluate(res: FusionResult, gamma: float = weights.GAMMA_CODE) -> FusionResult:
    """Step 4: every method on every held-out pair (metrics, correlations, bound terms), in place; returns ``res``.

    Raises
    ------
    ValueError for γ ≤ 0.
    """
    weights._check_gamma(gamma)
    t0 = time.perf_counter()
    _evaluate(res, gamma)
    res.seconds["evaluate"] = time.perf_counter() - t0
    return res


def run_fusion(scale: str = "fast", seed: int | None = None, rule: str = "sum") -> FusionResult:
    """Train both networks and evaluate every method on the held-out pairs (see the module docstring).

    Parameters
    ----------
    scale : 'fast' (CPU, about half a minute) or 'full' (larger crops, more pairs, 10× the training).
    seed : seeds the training crops, the initialisations and the patch sampling (held-out crops use seed + 1);
        None: ``neurips24.seed(0)`` (the book's seed offset applies).
    rule : the fusion network's rule, 'sum' (the official code's) or 'mean' (IFCNN's); the reconstruction
        network always averages its features.

    Returns
    -------
    :class:`FusionResult`.

    Raises
    ------
    ValueError for an unknown scale or rule.
    """
    return evaluate(train_networks(scale, seed, rule))


def training_seeds(scale: str = "fast") -> tuple[int, ...]:
    """The training seeds a scale uses: ``neurips24.seeds(n)``, n = 3 at 'fast' and 5 at 'full' (the book's seed
    offset applies). Raises ValueError for an unknown scale."""
    return seeding.seeds(_settings(scale).get("n_seeds", 3))


def run_seeds(scale: str = "fast", seeds=None, rule: str = "sum") -> list[FusionResult]:
    """:func:`run_fusion` once per training seed: the runs the reproduction checks judge together.

    Parameters
    ----------
    scale, rule : as :func:`run_fusion`.
    seeds : iterable of ints ≥ 0, or None: ``neurips24.seeds(n)`` with n = 3 at 'fast', 5 at 'full'.

    Returns
    -------
    list of :class:`FusionResult`, one per seed, in the order of ``seeds``.

    Raises
    ------
    ValueError for an unknown scale or rule, fewer than 3 seeds, or a seed that is not an integer ≥ 0.
    """
    seeds = training_seeds(scale) if seeds is None else tuple(check_count("seeds", s, 0) for s in seeds)
    if len(seeds) < 3:
        raise ValueError(f"seeds must hold at least 3 training seeds, got {seeds!r}")
    return [run_fusion(scale, s, rule) for s in seeds]


@torch.no_grad()
def explore_gamma(res: FusionResult, index: int, gamma: float, form: str = "exp") -> dict:
    """One held-out pair fused with weights at another γ or form: sources, truth, weights, static and dynamic
    outputs, and the PSNR/SF of both. Raises ValueError for an index out of range or γ ≤ 0."""
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < len(res.pairs):
        raise ValueError(f"index must be an integer in [0, {len(res.pairs) - 1}], got {index!r}")
    p = res.pairs[index]
    ell = weights.uni_source_loss(res.fusion_net, p.sources)
    w = weights.rd_weights(ell, gamma, form)
    static, dyn = weights.fuse(res.fusion_net, p.sources), weights.fuse(res.fusion_net, p.sources, w)
    return {"pair": p, "weights": w, "loss": ell, "static": static, "dynamic": dyn,
            "psnr": (mt.psnr_truth(static, p.truth), mt.psnr_truth(dyn, p.truth)),
            "sf": (mt.spatial_frequency(static), mt.spatial_frequency(dyn)),
            "quality_corr": quality_correlation(w, p.degradation)}


def most(k: int, n: int) -> bool:
    """The rule of the chapter's "on most held-out pairs" checks: the Wilson 95 % lower bound of k/n is > 1/2."""
    from ..claims import binomial_interval

    return binomial_interval(int(k), int(n)).low > 0.5


def check_numbers(res: FusionResult) -> dict:
    """Counts over the held-out pairs that the reproduction checks read (claim and control for each).

    - 'cov': pairs whose Theorem 3.1 covariance term is < 0 with TTD's weights; control: with the weights of
      another pair of the same kind ('cov_control');
    - 'quality': pairs where the fusion network's ω points the right way, corr(ω_1, δ_1 − δ_2) < 0; control:
      the reconstruction-only network ('quality_control');
    - 'sharper': pairs where TTD raises both AG and SF over the static rule; control: the reversed weights
      M − ω, the same modulation pointing the other way ('sharper_control'); 'gamma1_sharper': the paper's γ = 1;
      'recon_sharper': the reconstruction network's TTD over its static rule;
    - 'psnr': pairs where TTD's PSNR to the ground truth is ≥ the static rule's; control: M − ω.
    """
    n = len(res.pairs)

    def sharper(meth, base="static"):
        return int(np.sum((res.gain(meth, "AG", base) > 0) & (res.gain(meth, "SF", base) > 0)))

    cov = {k: np.array([b["covariance"] for b in v]) for k, v in res.bound.items()}
    return {
        "n": n,
        "cov": int(np.sum(cov["TTD"] < 0)), "cov_control": int(np.sum(cov["mismatched"] < 0)),
        "quality": int(np.sum(res.quality_corr["fusion"] < 0)),
        "quality_control": int(np.sum(res.quality_corr["reconstruction"] < 0)),
        "sharper": sharper(TTD), "sharper_control": sharper(METHODS[4]), "gamma1_sharper": sharper(METHODS[3]),
        "recon_sharper": sharper(METHODS[6], METHODS[5]),
        "psnr": int(np.sum(res.gain(TTD, "PSNR_gt") >= 0)),
        "psnr_control": int(np.sum(res.gain(METHODS[4], "PSNR_gt") >= 0)),
    }
