"""The chapter's data: a realizable mixture of Gaussians (paper Sec. 6, Fig. 1a) and digits with an expert.

- :func:`mixture_data`: the synthetic recipe of Mozannar et al. (2023), which the paper's realizable experiment
  uses (read in github.com/clinicalml/human_ai_deferral, ``datasetsdefer/synthetic_data.py``; re-implemented
  here in NumPy): x from a mixture of Gaussians in R^d; a random linear *rejector* splits the space into a
  deferral region (20–80 % of the points) and the rest; on the rest the label is a random linear classifier's
  output, in the deferral region a fair coin; the expert is right in the deferral region and right with
  probability 1/2 elsewhere. A linear model with n + 1 = 3 outputs then reaches zero deferral loss (up to
  the points next to the rejector's boundary): the data are *realizable*. Error knobs make it non-realizable.
- :func:`digits_data`: scikit-learn's 8×8 digits (loaded through the book's shared ``neurips24.assets``, no
  download) with a synthetic expert who is always right on some classes and guesses uniformly on the others.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class DeferData:
    """A learning-to-defer data set: train and test points, labels and the expert's predictions.

    x_train (N, d) float32, y_train (N,) int64, g_train (N,) int64; the same for the test split.
    n_classes : n.   name : a short description.
    optimal_acc : system accuracy of the generating rejector + classifier on the test split (None if unknown).
    defer_share : share of test points in the generating deferral region (None if unknown).

    Raises
    ------
    ValueError (on construction) for n_classes < 2, a split without points, x not 2-D or not finite, y or g
    not 1-D with one entry per row of x, labels or expert predictions outside [0, n_classes), or a test split
    whose feature count differs from the training split's; TypeError for non-integer labels.
    """

    x_train: np.ndarray
    y_train: np.ndarray
    g_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    g_test: np.ndarray
    n_classes: int
    name: str
    optimal_acc: float | None = None
    defer_share: float | None = None

    def __post_init__(self):
        _check_split("train", self.x_train, self.y_train, self.g_train, None, self.n_classes)
        _check_split("test", self.x_test, self.y_test, self.g_test, self.x_train.shape[1], self.n_classes)

    def first(self, n_train: int) -> DeferData:
        """The same data with only the first ``n_train`` training points (nested training sets).

        Raises
        ------
        ValueError if n_train is not in [1, len(x_train)].
        """
        if isinstance(n_train, bool) or not isinstance(n_train, (int, np.integer)) \
                or not 1 <= n_train <= len(self.x_train):
            raise ValueError(f"n_train must be an int in [1, {len(self.x_train)}], got {n_train!r}")
        return DeferData(self.x_train[:n_train], self.y_train[:n_train], self.g_train[:n_train], self.x_test,
                         self.y_test, self.g_test, self.n_classes, self.name, self.optimal_acc, self.defer_share)


def _check_split(split: str, x, y, g, d: int | None, n_classes) -> None:
    """Shapes, dtypes and ranges of one split of :class:`DeferData` (see its Raises)."""
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)) or n_classes < 2:
        raise ValueError(f"n_classes must be an int >= 2, got {n_classes!r}")
    x = np.asarray(x)
    if x.ndim != 2 or x.shape[0] < 1 or x.shape[1] < 1:
        raise ValueError(f"x_{split} must have shape (N, d) with N >= 1 points and d >= 1 features, "
                         f"got {x.shape}")
    if d is not None and x.shape[1] != d:
        raise ValueError(f"x_{split} has {x.shape[1]} features but x_train has {d}")
    if x.dtype.kind not in "fiu" or not np.all(np.isfinite(x)):
        raise ValueError(f"x_{split} must hold finite real numbers")
    for name, v in ((f"y_{split}", y), (f"g_{split}", g)):
        v = np.asarray(v)
        if v.shape != (x.shape[0],):
            raise ValueError(f"{name} must have shape ({x.shape[0]},) (one entry per row of x_{split}), "
                             f"got {v.shape}")
        if v.dtype.kind not in "iu":
            raise TypeError(f"{name} must hold integer class indices, got dtype {v.dtype}")
        if int(v.min()) < 0 or int(v.max()) >= n_classes:
            raise ValueError(f"{name} must lie in [0, {n_classes}) (n_classes = {n_classes}), got values in "
                             f"[{int(v.min())}, {int(v.max())}]")


def _check_int(name: str, value, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _check_prob(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1], got {value!r}")
    return float(value)


def _random_halfspace(rng: np.random.Generator, x: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A random affine rule 1{w·x + b > 0}, w, b ~ U(±1/√d) (torch.nn.Linear's initialisation), redrawn
    until it is positive on 20–80 % of the points in ``mask``. Returns (decisions (N,) bool, (w, b))."""
    d = x.shape[1]
    bound = 1.0 / np.sqrt(d)
    for _ in range(10_000):
        w = rng.uniform(-bound, bound, size=d)
        b = rng.uniform(-bound, bound)
        side = x @ w + b > 0
        share = side[mask].mean()
        if 0.2 <= share <= 0.8:
            return side, np.append(w, b)
    raise RuntimeError("no random half-space splits the data 20-80 %: check the data")  # pragma: no cover


def mixture_data(n_train: int, n_test: int = 2000, d: int = 10, n_gaussians: int = 10, *, seed: int = 0,
                 expert_error_deferred: float = 0.0, expert_error_elsewhere: float = 0.5,
                 machine_error: float = 0.0) -> DeferData:
    """The realizable mixture-of-Gaussians learning-to-defer data (binary labels, n = 2).

    Parameters
    ----------
    n_train, n_test : numbers of points (≥ 1); all are drawn from one distribution, so ``first(k)`` gives
        nested training sets of one problem.
    d : dimension (≥ 1).   n_gaussians : mixture components (≥ 1): means ~ N(0, 1), per-axis scales ~ U(0, 1).
    seed : seeds the whole draw (distribution and points).
    expert_error_deferred : the expert's error in the deferral region (0: realizable).
    expert_error_elsewhere : the expert's error outside it (the recipe's 0.5).
    machine_error : chance that a label outside the deferral region is re-drawn by a fair coin (so it
        disagrees with the classifier with probability machine_error / 2; 0: realizable).

    Returns
    -------
    :class:`DeferData` with n_classes = 2, optimal_acc and defer_share of the generating rules.

    Raises
    ------
    ValueError for sizes < 1 or error rates outside [0, 1].
    """
    n_train, n_test = _check_int("n_train", n_train, 1), _check_int("n_test", n_test, 1)
    d, n_gaussians = _check_int("d", d, 1), _check_int("n_gaussians", n_gaussians, 1)
    seed = _check_int("seed", seed, 0)
    e_def = _check_prob("expert_error_deferred", expert_error_deferred)
    e_else = _check_prob("expert_error_elsewhere", expert_error_elsewhere)
    m_err = _check_prob("machine_error", machine_error)
    rng = np.random.default_rng(seed)
    total = n_train + n_test
    means = rng.standard_normal((n_gaussians, d))
    scales = rng.uniform(0.0, 1.0, size=(n_gaussians, d))
    comp = rng.integers(0, n_gaussians, size=total)
    x = means[comp] + scales[comp] * rng.standard_normal((total, d))
    defer, _ = _random_halfspace(rng, x, np.ones(total, bool))
    machine, _ = _random_halfspace(rng, x, ~defer)
    y = rng.integers(0, 2, size=total)
    follow = ~defer & (rng.random(total) >= m_err)
    y = np.where(follow, machine.astype(np.int64), y)
    right = np.where(defer, rng.random(total) >= e_def, rng.random(total) >= e_else)
    g = np.where(right, y, 1 - y)
    opt_correct = np.where(defer, g == y, machine.astype(np.int64) == y)
    tr, te = slice(0, n_train), slice(n_train, total)
    realizable = e_def == 0.0 and m_err == 0.0
    name = f"mixture of {n_gaussians} Gaussians, d = {d}" + ("" if realizable else " (non-realizable)")
    return DeferData(x[tr].astype(np.float32), y[tr].astype(np.int64), g[tr].astype(np.int64),
                     x[te].astype(np.float32), y[te].astype(np.int64), g[te].astype(np.int64), 2, name,
                     optimal_acc=float(opt_correct[te].mean()), defer_share=float(defer[te].mean()))


def digits_data(expert_classes=(0, 1, 2, 3, 4), test_share: float = 0.4, *, seed: int = 0,
                pool: int = 1) -> DeferData:
    """scikit-learn's handwritten digits (1797 images, 10 classes) with a synthetic expert.

    The expert predicts the true label on ``expert_classes`` and a uniformly random class (possibly the right
    one, with chance 1/10) on the others. Pixels are scaled to [0, 1]; ``pool`` > 1 averages pool×pool
    blocks (pool = 2 gives 4×4 images, 16 features), which makes the model's own task harder. The split is
    stratified (scikit-learn's ``train_test_split``).

    Parameters
    ----------
    expert_classes : iterable of distinct ints in [0, 10).   test_share : in (0, 1).   seed : int ≥ 0.
    pool : 1, 2 or 4.

    Returns
    -------
    :class:`DeferData` with n_classes = 10.

    Raises
    ------
    ValueError for classes outside [0, 10) or repeated, a test share outside (0, 1), or pool ∉ {1, 2, 4}.
    """
    from sklearn.model_selection import train_test_split

    from ..assets import digits_8x8

    classes = [int(k) for k in expert_classes]
    if len(set(classes)) != len(classes) or any(not 0 <= k < 10 for k in classes):
        raise ValueError(f"expert_classes must be distinct digits in [0, 10), got {expert_classes!r}")
    if isinstance(test_share, bool) or not isinstance(test_share, float) or not 0.0 < test_share < 1.0:
        raise ValueError(f"test_share must be a float in (0, 1), got {test_share!r}")
    if pool not in (1, 2, 4):
        raise ValueError(f"pool must be 1, 2 or 4, got {pool!r}")
    seed = _check_int("seed", seed, 0)
    images, y = digits_8x8()
    images = images / 16.0
    if pool > 1:
        images = images.reshape(-1, 8 // pool, pool, 8 // pool, pool).mean(axis=(2, 4))
    x = images.reshape(len(images), -1).astype(np.float32)
    rng = np.random.default_rng(seed)
    guess = rng.integers(0, 10, size=len(y))
    g = np.where(np.isin(y, classes), y, guess).astype(np.int64)
    x_tr, x_te, y_tr, y_te, g_tr, g_te = train_test_split(x, y, g, test_size=test_share, stratify=y,
                                                          random_state=seed)
    name = f"digits {8 // pool}x{8 // pool}, expert right on classes {sorted(classes)}"
    return DeferData(x_tr, y_tr, g_tr, x_te, y_te, g_te, 10, name)
