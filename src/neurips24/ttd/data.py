"""Two-source image pairs with a ground truth, from photographs that ship offline (no download).

The paper evaluates on LLVIP/MSRS (infrared–visible), MEFB (multi-exposure) and MFI-WHU (multi-focus), which have
no ground truth. Here each pair is *made* from one clean photograph, which stays as the ground truth:

- :func:`multi_focus_pair`: a near-focus and a far-focus version of a scene, each blurred by a Gaussian whose
  width grows with the distance of the pixel's depth from the focal plane (thin-lens defocus, no occlusion
  effects). The held-out scene is scikit-image's ``stereo_motorcycle`` (Middlebury 2014), whose *measured*
  disparity map gives the depth.
- :func:`multi_exposure_pair`: an under- and an over-exposed version (gain, gamma, clipping to [0, 1], sensor
  noise in the dark frame).
- :func:`infrared_visible_pair`: a **synthetic** infrared stand-in (a low-pass copy of the scene plus "warm"
  objects) and a visible image with a shadowed region. Real thermal images do not ship with any package.

Every function returns a :class:`FusionPair`: the two sources, the ground truth, and per-source degradation maps
δ_m = G_σ * |x_m − truth| (local error of each source, used to judge whether weights point the right way).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage

KINDS = ("multi-focus", "multi-exposure", "infrared-visible (synthetic)")
DEGRADATION_SIGMA = 4.0      # px, smoothing of |x_m − truth| into the degradation map δ_m
TRAINING_IMAGES = ("camera", "astronaut", "coffee", "rocket", "chelsea", "coins", "moon", "brick", "grass",
                   "gravel", "immunohistochemistry", "hubble_deep_field")


@dataclass(frozen=True)
class FusionPair:
    """Two registered sources of one scene and the scene itself.

    Attributes
    ----------
    name : str, e.g. 'motorcycle crop 3'.   kind : one of :data:`KINDS`.
    sources : (M, H, W) float32 in [0, 1], M = 2.
    truth : (H, W) float32 in [0, 1], the clean image the sources were made from.
    degradation : (M, H, W) float32 ≥ 0, δ_m = G_σ * |x_m − truth| (σ = :data:`DEGRADATION_SIGMA` px).
    """

    name: str
    kind: str
    sources: np.ndarray
    truth: np.ndarray
    degradation: np.ndarray


def _check_image(name: str, image) -> np.ndarray:
    x = np.asarray(image)
    if x.ndim != 2 or min(x.shape) < 8:
        raise ValueError(f"{name} must be a 2-d grey image of at least 8 x 8 pixels, got shape {x.shape}")
    if not np.issubdtype(x.dtype, np.number) or np.iscomplexobj(x):
        raise TypeError(f"{name} must hold real numbers, got dtype {x.dtype}")
    x = x.astype(np.float64)
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if x.min() < 0 or x.max() > 1:
        raise ValueError(f"{name} must lie in [0, 1], got [{x.min():.3g}, {x.max():.3g}]")
    return x


def _pair(name, kind, a, b, truth) -> FusionPair:
    src = np.stack([a, b]).astype(np.float32)
    deg = np.stack([ndimage.gaussian_filter(np.abs(s - truth), DEGRADATION_SIGMA) for s in (a, b)])
    return FusionPair(name, kind, src, truth.astype(np.float32), deg.astype(np.float32))


def defocus(image, sigma_map, levels: int = 12) -> np.ndarray:
    """Blur each pixel by its own Gaussian width: a stack of ``levels`` blurs (SciPy's ``gaussian_filter``),
    linearly interpolated per pixel between the two nearest widths.

    Parameters
    ----------
    image : (H, W) float in [0, 1].
    sigma_map : (H, W) float ≥ 0, the blur width of each pixel, in pixels.
    levels : int ≥ 2, widths sampled evenly on [0, max σ].

    Returns
    -------
    (H, W) float64. Where σ is constant the result is ``gaussian_filter(image, σ)`` exactly (up to float error).

    Raises
    ------
    ValueError if the shapes differ, σ is negative or non-finite, or ``levels`` < 2.
    """
    x = _check_image("image", image)
    s = np.asarray(sigma_map, dtype=np.float64)
    if s.shape != x.shape or not np.all(np.isfinite(s)) or s.min() < 0:
        raise ValueError(f"sigma_map must be a finite (H, W) = {x.shape} array >= 0, got shape {s.shape}")
    if isinstance(levels, bool) or not isinstance(levels, (int, np.integer)) or levels < 2:
        raise ValueError(f"levels must be an integer >= 2, got {levels!r}")
    grid = np.linspace(0.0, max(s.max(), 1e-9), levels)
    stack = np.stack([x if g == 0 else ndimage.gaussian_filter(x, g, mode="reflect") for g in grid])
    pos = s / grid[-1] * (levels - 1)
    lo = np.clip(np.floor(pos).astype(int), 0, levels - 2)
    t = pos - lo
    rows, cols = np.indices(x.shape)
    return (1 - t) * stack[lo, rows, cols] + t * stack[lo + 1, rows, cols]


def multi_focus_pair(image, depth, focus=(0.9, 0.1), max_sigma: float = 4.0, name: str = "multi-focus") -> FusionPair:
    """A near-focus and a far-focus photograph of one scene (defocus grows with |depth − focal plane|).

    Parameters
    ----------
    image : (H, W) float in [0, 1], the all-in-focus scene (the ground truth).
    depth : (H, W) finite float, any units (disparity: large = near); rescaled to [0, 1] inside.
    focus : two focal planes in [0, 1] of the rescaled depth, one per source (default: near, far).
    max_sigma : blur width in pixels at a depth distance of 1, > 0.
    name : label of the pair.

    Returns
    -------
    FusionPair of kind 'multi-focus'; source m has σ_m(x) = max_sigma · |d(x) − focus_m|.

    Raises
    ------
    ValueError for shapes that differ, non-finite depth, focal planes outside [0, 1] or max_sigma ≤ 0.
    """
    x = _check_image("image", image)
    d = np.asarray(depth, dtype=np.float64)
    if d.shape != x.shape or not np.all(np.isfinite(d)):
        raise ValueError(f"depth must be a finite array of the image's shape {x.shape}, got shape {d.shape}")
    f = np.asarray(focus, dtype=np.float64)
    if f.shape != (2,) or not np.all((f >= 0) & (f <= 1)):
        raise ValueError(f"focus must be two focal planes in [0, 1], got {focus!r}")
    if not (np.isfinite(max_sigma) and max_sigma > 0):
        raise ValueError(f"max_sigma must be a finite number > 0, got {max_sigma!r}")
    d = (d - d.min()) / max(np.ptp(d), 1e-12)
    a, b = (defocus(x, max_sigma * np.abs(d - fm)) for fm in f)
    return _pair(name, KINDS[0], a, b, x)


def multi_exposure_pair(image, gains=(0.3, 2.5), gamma: float = 1 / 2.2, noise: float = 0.01,
                        rng: np.random.Generator | None = None, name: str = "multi-exposure") -> FusionPair:
    """An under- and an over-exposed shot: x_m = clip(g_m · L, 0, 1)^γ with L = truth^(1/γ) the linear radiance,
    plus Gaussian sensor noise (std ``noise`` before the gamma) in the shot with the smaller gain.

    Parameters
    ----------
    image : (H, W) float in [0, 1], the well-exposed image (ground truth, gamma-encoded).
    gains : two exposure gains > 0 (default 0.3 and 2.5, as in the book's brief).
    gamma : display gamma in (0, 1].
    noise : std of the dark frame's noise in linear units, ≥ 0.
    rng : NumPy Generator for the noise (default: seed 0).
    name : label of the pair.

    Returns
    -------
    FusionPair of kind 'multi-exposure'.

    Raises
    ------
    ValueError for gains not two positive numbers, gamma outside (0, 1] or negative noise.
    """
    x = _check_image("image", image)
    g = np.asarray(gains, dtype=np.float64)
    if g.shape != (2,) or not np.all(np.isfinite(g) & (g > 0)):
        raise ValueError(f"gains must be two finite numbers > 0, got {gains!r}")
    if not (np.isfinite(gamma) and 0 < gamma <= 1):
        raise ValueError(f"gamma must be in (0, 1], got {gamma!r}")
    if not (np.isfinite(noise) and noise >= 0):
        raise ValueError(f"noise must be a finite number >= 0, got {noise!r}")
    rng = np.random.default_rng(0) if rng is None else rng
    radiance = x ** (1 / gamma)
    shots = []
    for gm in g:
        lin = gm * radiance
        if gm == g.min():
            lin = lin + noise * rng.standard_normal(x.shape)
        shots.append(np.clip(lin, 0, 1) ** gamma)
    return _pair(name, KINDS[1], shots[0], shots[1], x)


def infrared_visible_pair(image, warm, shadow, ir_blur: float = 2.0, noise: float = 0.02,
                          rng: np.random.Generator | None = None, name: str = "infrared-visible") -> FusionPair:
    """A **synthetic** infrared–visible pair (a stand-in: no thermal physics).

    infrared = 0.35 · G_{ir_blur} * truth + 0.6 · warm;  visible = truth · (1 − 0.85 · shadow) + noise.

    Parameters
    ----------
    image : (H, W) float in [0, 1], the fully lit scene (ground truth).
    warm : (H, W) float in [0, 1], where objects are warm (bright in the infrared).
    shadow : (H, W) float in [0, 1], where the visible image is in the dark.
    ir_blur : Gaussian blur of the infrared's scene copy, in pixels, ≥ 0 (thermal cameras are low-resolution).
    noise : std of the visible image's noise, ≥ 0.
    rng : NumPy Generator (default: seed 0).   name : label of the pair.

    Returns
    -------
    FusionPair of kind 'infrared-visible (synthetic)'; sources are (infrared, visible).

    Raises
    ------
    ValueError for maps of another shape or outside [0, 1], negative blur or noise.
    """
    x = _check_image("image", image)
    w = _check_image("warm", warm)
    s = _check_image("shadow", shadow)
    if w.shape != x.shape or s.shape != x.shape:
        raise ValueError(f"warm and shadow must have the image's shape {x.shape}, got {w.shape} and {s.shape}")
    for nm, v in (("ir_blur", ir_blur), ("noise", noise)):
        if not (np.isfinite(v) and v >= 0):
            raise ValueError(f"{nm} must be a finite number >= 0, got {v!r}")
    rng = np.random.default_rng(0) if rng is None else rng
    ir = np.clip(0.35 * ndimage.gaussian_filter(x, ir_blur) + 0.6 * w, 0, 1)
    vis = np.clip(x * (1 - 0.85 * s) + noise * rng.standard_normal(x.shape), 0, 1)
    return _pair(name, KINDS[2], ir, vis, x)


# ----------------------------------------------------------------------------------------------- the photographs
def to_grey(rgb) -> np.ndarray:
    """(H, W) float64 in [0, 1] from a uint8 grey or RGB(A) image (scikit-image's ``rgb2gray``)."""
    from skimage.color import rgb2gray

    a = np.asarray(rgb)
    if a.ndim == 3:
        a = rgb2gray(a[..., :3])
        return np.clip(a, 0, 1)
    return a.astype(np.float64) / 255.0


def motorcycle() -> tuple[np.ndarray, np.ndarray]:
    """The left view of scikit-image's ``stereo_motorcycle`` (Middlebury 2014, shipped in the wheel) in grey, and
    its measured disparity with the invalid (infinite) pixels filled from their nearest valid neighbour.

    Returns
    -------
    image (500, 741) float64 in [0, 1]; disparity (500, 741) float64, pixels (large = near).
    """
    from skimage import data

    left, _, disp = data.stereo_motorcycle()
    disp = np.asarray(disp, dtype=np.float64)
    bad = ~np.isfinite(disp)
    idx = ndimage.distance_transform_edt(bad, return_distances=False, return_indices=True)
    return to_grey(left), disp[tuple(idx)]


def smooth_field(shape, rng: np.random.Generator, scale: float = 24.0) -> np.ndarray:
    """A random smooth field in [0, 1] (Gaussian-filtered white noise, min-max scaled): a made-up depth map or
    a warm/shadow region for the training images, which have no measured depth."""
    f = ndimage.gaussian_filter(rng.standard_normal(shape), scale)
    return (f - f.min()) / max(np.ptp(f), 1e-12)


def soft_mask(field, threshold: float, width: float = 0.05) -> np.ndarray:
    """A soft region: 1 where ``field`` > threshold, 0 below, a logistic ramp of ``width`` between."""
    return 1.0 / (1.0 + np.exp(-(np.asarray(field) - threshold) / width))
