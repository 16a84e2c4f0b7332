"""Classical fusion baselines from libraries, to anchor the network's numbers.

- :func:`laplacian_pyramid_fusion`: Burt & Adelson's Laplacian pyramid (scikit-image's ``pyramid_reduce`` and
  ``resize`` build it), details fused by the larger magnitude, the coarsest level averaged.
- :func:`wavelet_fusion`: the same rule on a discrete wavelet transform (PyWavelets, optional).
"""
from __future__ import annotations

import numpy as np


def _check_pair(a, b) -> tuple[np.ndarray, np.ndarray]:
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.ndim != 2 or x.shape != y.shape:
        raise ValueError(f"a and b must be 2-d images of the same shape, got {x.shape} and {y.shape}")
    if min(x.shape) < 8:
        raise ValueError(f"images must be at least 8 x 8 pixels, got {x.shape}")
    if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        raise ValueError("a and b must be finite (no NaN or inf)")
    return x, y


def laplacian_pyramid(image, levels: int) -> list[np.ndarray]:
    """Laplacian pyramid [L_0, ..., L_{levels−1}, G_levels] with L_k = G_k − up(G_{k+1}); summing back with
    :func:`collapse` gives the image exactly."""
    from skimage.transform import pyramid_reduce, resize

    g = [np.asarray(image, dtype=np.float64)]
    for _ in range(levels):
        g.append(pyramid_reduce(g[-1], downscale=2, preserve_range=True))
    return [g[k] - resize(g[k + 1], g[k].shape, order=1, preserve_range=True) for k in range(levels)] + [g[-1]]


def collapse(pyramid) -> np.ndarray:
    """Invert :func:`laplacian_pyramid`: G_k = L_k + up(G_{k+1}), from the top."""
    from skimage.transform import resize

    img = pyramid[-1]
    for lap in reversed(pyramid[:-1]):
        img = lap + resize(img, lap.shape, order=1, preserve_range=True)
    return img


def laplacian_pyramid_fusion(a, b, levels: int = 4) -> np.ndarray:
    """Fuse two registered images: per level the detail coefficient of larger magnitude, the top level averaged;
    the output is clipped to [0, 1].

    Parameters
    ----------
    a, b : (H, W) finite float in [0, 1].   levels : int ≥ 1.

    Returns
    -------
    (H, W) float64 in [0, 1].

    Raises
    ------
    ValueError for shapes that differ, non-finite pixels or levels < 1.
    """
    x, y = _check_pair(a, b)
    if isinstance(levels, bool) or not isinstance(levels, (int, np.integer)) or levels < 1:
        raise ValueError(f"levels must be an integer >= 1, got {levels!r}")
    px, py = laplacian_pyramid(x, levels), laplacian_pyramid(y, levels)
    fused = [np.where(np.abs(u) >= np.abs(v), u, v) for u, v in zip(px[:-1], py[:-1], strict=True)]
    fused.append((px[-1] + py[-1]) / 2)
    return np.clip(collapse(fused), 0, 1)


def wavelet_fusion(a, b, wavelet: str = "db2", levels: int = 3) -> np.ndarray:
    """The max-magnitude rule on PyWavelets' ``wavedec2`` (details), approximation averaged; clipped to [0, 1].

    Raises
    ------
    ValueError as :func:`laplacian_pyramid_fusion`; ImportError if PyWavelets is not installed.
    """
    import pywt

    x, y = _check_pair(a, b)
    cx, cy = pywt.wavedec2(x, wavelet, level=levels), pywt.wavedec2(y, wavelet, level=levels)
    fused = [(cx[0] + cy[0]) / 2] + [tuple(np.where(np.abs(u) >= np.abs(v), u, v) for u, v in zip(dx, dy, strict=True))
                                     for dx, dy in zip(cx[1:], cy[1:], strict=True)]
    return np.clip(pywt.waverec2(fused, wavelet)[: x.shape[0], : x.shape[1]], 0, 1)
