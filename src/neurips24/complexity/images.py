"""A few hundred crops of the photographs that ship with scikit-image, as EfficientNet inputs."""
from __future__ import annotations

import numpy as np

from ..assets import NATURAL_IMAGES, natural_images, preprocess


def photo_crops(n: int, size: int, seed: int = 0, min_frac: float = 0.25, max_frac: float = 0.6):
    """``n`` random square crops (side a fraction in [min_frac, max_frac] of the short side, random position,
    random horizontal flip) of the 13 shipped photographs, resized to ``size`` by :func:`preprocess`.

    Returns
    -------
    torch.Tensor (n, 3, size, size) float32, scaled as EfficientNet-Lite expects.

    Raises
    ------
    ValueError if n < 1 or the fractions are not 0 < min_frac <= max_frac <= 1 (and as :func:`preprocess`).
    """
    import torch

    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if not 0 < min_frac <= max_frac <= 1:
        raise ValueError(f"need 0 < min_frac <= max_frac <= 1, got {min_frac}, {max_frac}")
    photos = list(natural_images(tuple(NATURAL_IMAGES)).values())
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        img = photos[i % len(photos)]
        h, w = img.shape[:2]
        side = int(min(h, w) * rng.uniform(min_frac, max_frac))
        top, left = rng.integers(0, h - side + 1), rng.integers(0, w - side + 1)
        crop = img[top:top + side, left:left + side]
        if rng.random() < 0.5:
            crop = crop[:, ::-1]
        out.append(preprocess(np.ascontiguousarray(crop), size=size, crop_fraction=1.0))
    return torch.cat(out)
