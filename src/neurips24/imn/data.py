"""Data for the chapter: input validation, scikit-learn's shipped tabular sets, and two synthetic sets.

- :func:`check_xy`: the public boundary every fit/predict goes through (numeric, finite, matching shapes, >= 2
  classes).
- :func:`load_tabular`: scikit-learn's ``load_breast_cancer`` / ``load_wine`` (shipped with the library, no
  download) and the synthetic sets, split and standardised with scikit-learn.
- :func:`make_logistic`: logistic data with a known coefficient vector beta (the ground truth of the impacts).
- :func:`make_noisy_moons`: scikit-learn's two moons plus pure-noise features (a set a global linear model fails).
"""
from __future__ import annotations

import numpy as np

BETA = np.array([3.0, -2.0, 1.5, 1.0, -1.0, 0.5, 0.0, 0.0, 0.0, 0.0])   # the ground truth
DATASETS = ("breast_cancer", "wine", "noisy_moons", "logistic")


def check_x(X, name: str = "X") -> np.ndarray:
    """Validate a feature matrix: 2-d, numeric (not bool/object/str), finite; returns float64 of shape (n, M).

    Raises
    ------
    TypeError if X is not numeric (e.g. a column of strings); ValueError if it is not 2-d, empty, or has NaN/inf.
    """
    arr = np.asarray(X)
    if arr.dtype == object or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be numeric (int or float columns), got dtype {arr.dtype}; "
                        "encode non-numeric columns first")
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-d array (n_samples, n_features), got shape {arr.shape}")
    arr = arr.astype(np.float64)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} has non-finite values (NaN or inf); impute or drop them first")
    return arr


def check_xy(X, y) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate (X, y) for classification.

    Parameters
    ----------
    X : array (n, M), numeric and finite.
    y : array (n,), class labels (any hashable values), at least two distinct classes.

    Returns
    -------
    X : float64 (n, M); y : int64 (n,) codes 0..K-1; classes : (K,) the sorted original labels.

    Raises
    ------
    TypeError / ValueError as :func:`check_x`; ValueError if y is not 1-d, its length differs from X's rows,
    it has NaN, or only one class.
    """
    X = check_x(X)
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-d (n_samples,), got shape {y.shape}")
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X and y have mismatched shapes: {X.shape[0]} rows in X, {y.shape[0]} labels in y")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError("y has non-finite labels (NaN or inf)")
    classes, codes = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(f"y must have at least 2 classes, got only {classes.tolist()}")
    return X, codes.astype(np.int64), classes


def make_logistic(n: int, seed: int, beta=BETA) -> tuple[np.ndarray, np.ndarray]:
    """Logistic data with known coefficients: x ~ N(0, I_M), P(y = 1 | x) = sigmoid(beta . x).

    Returns X float64 (n, M) and y int64 (n,) in {0, 1}. The per-instance ground-truth impacts are beta * x.
    """
    if int(n) < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    beta = np.asarray(beta, dtype=float)
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((int(n), beta.size))
    y = (rng.random(int(n)) < 1.0 / (1.0 + np.exp(-X @ beta))).astype(np.int64)
    return X, y


def make_noisy_moons(n: int, seed: int, n_noise: int = 8, noise: float = 0.25) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's ``make_moons`` (2 informative features, label noise ``noise``) plus ``n_noise`` N(0, 1)
    features that carry no signal. Returns X float64 (n, 2 + n_noise), y int64 (n,)."""
    from sklearn.datasets import make_moons
    if int(n) < 2 or int(n_noise) < 0:
        raise ValueError(f"n must be >= 2 and n_noise >= 0, got n={n}, n_noise={n_noise}")
    X2, y = make_moons(n_samples=int(n), noise=noise, random_state=seed)
    rng = np.random.default_rng(seed + 10_000)
    return np.hstack([X2, rng.standard_normal((int(n), int(n_noise)))]), y.astype(np.int64)


def load_tabular(name: str, seed: int, test_size: float = 0.3, n: int = 600):
    """One data set, split (stratified, ``test_size``) and standardised on the training part.

    ``name`` is one of :data:`DATASETS`; ``n`` sizes the synthetic sets only. scikit-learn does the loading
    (shipped files), the split (``train_test_split``) and the scaling (``StandardScaler``).

    Returns
    -------
    dict with X_train, X_test (float64), y_train, y_test (int64 codes), feature_names (list of str), and for
    'logistic' also beta.
    """
    from sklearn import datasets
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler
    if name not in DATASETS:
        raise ValueError(f"name must be one of {DATASETS}, got {name!r}")
    extra = {}
    if name == "breast_cancer":
        d = datasets.load_breast_cancer()
        X, y, names = d.data, d.target, list(d.feature_names)
    elif name == "wine":
        d = datasets.load_wine()
        X, y, names = d.data, d.target, list(d.feature_names)
    elif name == "noisy_moons":
        X, y = make_noisy_moons(n, seed)
        names = ["moon x", "moon y"] + [f"noise {i}" for i in range(X.shape[1] - 2)]
    else:
        X, y = make_logistic(n, seed)
        names = [f"x{i}" for i in range(X.shape[1])]
        extra["beta"] = BETA.copy()
    X, y, _ = check_xy(X, y)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=test_size, random_state=seed, stratify=y)
    if name != "logistic":          # the logistic set is standard normal already; scaling would change beta
        sc = StandardScaler().fit(Xtr)
        Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)
    return dict(X_train=Xtr, X_test=Xte, y_train=ytr, y_test=yte, feature_names=names, **extra)
