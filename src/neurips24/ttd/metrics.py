"""The fusion metrics of the paper (EN, SD, AG, EI, SF, SCD, CE, SSIM) and PSNR/SSIM against a ground truth.

Images are read on the 0–255 scale, as CDDFuse's evaluator (``utils/Evaluator.py`` of MMIF-CDDFuse, which the
paper's tables use) reads them. scikit-image computes the entropy (``skimage.measure.shannon_entropy``), SSIM
(``skimage.metrics.structural_similarity``) and PSNR (``peak_signal_noise_ratio``); SciPy the Sobel filters.
EI and CE are not in CDDFuse's evaluator: we use the usual definitions (mean Sobel magnitude; the mean over the
sources of the relative entropy Σ h_m log₂(h_m / h_F) of the grey-level histograms).

No-reference metrics reward contrast and edges, not correctness: SD, AG, EI and SF all grow when noise is added
or when the output is stretched (the min-max normalisation of the official code does that). Our pairs have a
ground truth, so :func:`psnr_truth` and :func:`ssim_truth` say whether the fused image is closer to the scene.
"""
from __future__ import annotations

import numpy as np
from scipy import ndimage

from .data import _check_image

NAMES = ("EN", "SD", "AG", "EI", "SF", "SCD", "CE", "SSIM")


def _img(name, x, shape=None) -> np.ndarray:
    """``x`` checked as :func:`neurips24.ttd.data` checks its images (2-d, real, finite, in [0, 1]), of ``shape``
    when given, on the 0–255 scale the metrics read."""
    a = _check_image(name, x)
    if shape is not None and a.shape != shape:
        raise ValueError(f"{name} must have the fused image's shape {shape}, got {a.shape}")
    return 255.0 * a


def entropy(F) -> float:
    """EN: Shannon entropy (bits) of the 8-bit grey levels of F (scikit-image's ``shannon_entropy``)."""
    from skimage.measure import shannon_entropy

    return float(shannon_entropy(np.round(_img("F", F)).astype(np.uint8), base=2))


def standard_deviation(F) -> float:
    """SD: standard deviation of F on the 0–255 scale."""
    return float(_img("F", F).std())


def average_gradient(F) -> float:
    """AG: mean of sqrt((Δx² + Δy²) / 2) over the pixels, forward differences, 0–255 scale."""
    f = _img("F", F)
    gx = f[:-1, 1:] - f[:-1, :-1]
    gy = f[1:, :-1] - f[:-1, :-1]
    return float(np.mean(np.sqrt((gx ** 2 + gy ** 2) / 2)))


def edge_intensity(F) -> float:
    """EI: mean Sobel gradient magnitude sqrt(s_x² + s_y²) (SciPy's ``ndimage.sobel``), 0–255 scale."""
    f = _img("F", F)
    return float(np.mean(np.hypot(ndimage.sobel(f, 0), ndimage.sobel(f, 1))))


def spatial_frequency(F) -> float:
    """SF = sqrt(RF² + CF²), RF² and CF² the mean squared horizontal and vertical differences, 0–255 scale."""
    f = _img("F", F)
    return float(np.sqrt(np.mean(np.diff(f, axis=1) ** 2) + np.mean(np.diff(f, axis=0) ** 2)))


def _corr(x, y) -> float:
    x, y = x - x.mean(), y - y.mean()
    return float((x * y).sum() / max(np.sqrt((x * x).sum() * (y * y).sum()), 1e-12))


def scd(F, A, B) -> float:
    """SCD: sum of the correlations of differences, corr(F − B, A) + corr(F − A, B) (Aslantas & Bendes, 2015).

    F, A, B : (H, W) images of one shape (see ``_img``). Returns a float in [−2, 2].

    Raises
    ------
    ValueError if F is constant: F − B = c − B then correlates perfectly negatively with A wherever A and B are
    alike, and SCD would read a blank image as −2 (the worst score) instead of saying it is undefined; also for
    images of other shapes or non-finite pixels.
    """
    f = _img("F", F)
    if np.ptp(f) == 0:
        raise ValueError("F is constant: SCD is undefined for a blank fused image (it would read -2)")
    a, b = _img("A", A, f.shape), _img("B", B, f.shape)
    return _corr(f - b, a) + _corr(f - a, b)


def cross_entropy(F, A, B) -> float:
    """CE: mean over the sources of Σ_g h_m(g) log₂(h_m(g) / h_F(g)), 256-bin histograms (bins empty in either
    histogram are skipped). Lower is better."""
    f = _img("F", F)
    hf = np.bincount(np.round(f).astype(int).ravel(), minlength=256) / f.size
    out = []
    for name, src in (("A", A), ("B", B)):
        s = _img(name, src, f.shape)
        hs = np.bincount(np.round(s).astype(int).ravel(), minlength=256) / s.size
        ok = (hs > 0) & (hf > 0)
        out.append(float(np.sum(hs[ok] * np.log2(hs[ok] / hf[ok]))))
    return float(np.mean(out))


def ssim_sum(F, A, B) -> float:
    """SSIM as the paper reports it: ssim(F, A) + ssim(F, B) (scikit-image, data range 255), so up to 2."""
    from skimage.metrics import structural_similarity

    f = _img("F", F)
    a, b = _img("A", A, f.shape), _img("B", B, f.shape)
    return float(structural_similarity(f, a, data_range=255) + structural_similarity(f, b, data_range=255))


def psnr_truth(F, truth) -> float:
    """PSNR (dB) of F against the ground truth (scikit-image, data range 1)."""
    from skimage.metrics import peak_signal_noise_ratio

    f = _img("F", F) / 255
    return float(peak_signal_noise_ratio(_img("truth", truth, f.shape) / 255, f, data_range=1.0))


def ssim_truth(F, truth) -> float:
    """SSIM of F against the ground truth (scikit-image, data range 1)."""
    from skimage.metrics import structural_similarity

    f = _img("F", F) / 255
    return float(structural_similarity(_img("truth", truth, f.shape) / 255, f, data_range=1.0))


def fusion_metrics(F, A, B, truth=None) -> dict[str, float]:
    """All of :data:`NAMES` for a fused image F of sources A, B (each (H, W) in [0, 1]), plus 'PSNR_gt' and
    'SSIM_gt' when a ground truth is given.

    Raises
    ------
    ValueError for images that are not 2-d, of different shapes, non-finite or outside [0, 1]; TypeError for
    non-numeric arrays.
    """
    out = {"EN": entropy(F), "SD": standard_deviation(F), "AG": average_gradient(F), "EI": edge_intensity(F),
           "SF": spatial_frequency(F), "SCD": scd(F, A, B), "CE": cross_entropy(F, A, B), "SSIM": ssim_sum(F, A, B)}
    if truth is not None:
        out["PSNR_gt"] = psnr_truth(F, truth)
        out["SSIM_gt"] = ssim_truth(F, truth)
    return out
