"""Measures of how faithful an explanation is, where the truth is known or can be probed.

- :func:`impact_correlation`: per-instance Pearson correlation between attributions and the ground truth
  beta * x of logistic data (the book's measure; the paper uses the XAI benchmark of Liu et al., 2021).
- :func:`occlusion_attributions`: a post-hoc local attribution for any model (replace one feature by a baseline,
  read the change of the logit); the comparison for models that are not explainable by design.
- :func:`neighbour_hyperplane_accuracy`: how well one instance's linear model predicts its k nearest neighbours
  (in the style of the paper's Table 1; scikit-learn's ``NearestNeighbors`` finds them).
- :func:`deletion_curve`: remove the top-ranked features one by one and watch the predicted probability.
"""
from __future__ import annotations

import numpy as np

from .data import check_x


def _same_shape(a, b, names=("attributions", "truth")) -> tuple[np.ndarray, np.ndarray]:
    a, b = check_x(a, names[0]), check_x(b, names[1])
    if a.shape != b.shape:
        raise ValueError(f"{names[0]} and {names[1]} have mismatched shapes {a.shape} and {b.shape}")
    return a, b


def impact_correlation(attributions, truth) -> float:
    """Mean over instances of the Pearson correlation across features between ``attributions[i]`` and
    ``truth[i]`` (both (n, M), finite). Rows where either side is constant are skipped (correlation undefined);
    raises ValueError if every row is. Returns a float in [-1, 1]."""
    a, t = _same_shape(attributions, truth)
    a, t = a - a.mean(1, keepdims=True), t - t.mean(1, keepdims=True)
    na, nt = np.linalg.norm(a, axis=1), np.linalg.norm(t, axis=1)
    ok = (na > 1e-12) & (nt > 1e-12)
    if not ok.any():
        raise ValueError("every row of attributions or truth is constant: the correlation is undefined")
    return float(np.mean((a[ok] * t[ok]).sum(1) / (na[ok] * nt[ok])))


def occlusion_attributions(logit_fn, X, baseline) -> np.ndarray:
    """a_m(x) = f(x) - f(x with x_m := baseline_m), for a scalar score f (e.g. the logit of class 1).

    Parameters
    ----------
    logit_fn : callable (n, M) float64 -> (n,) scores. X : (n, M) finite. baseline : (M,) finite (e.g. the
    training mean). Returns (n, M) float64. For a linear f(x) = w.x + b this is exactly w_m (x_m - baseline_m).
    """
    X = check_x(X)
    baseline = check_x(np.asarray(baseline, dtype=float).reshape(1, -1), "baseline")[0]
    if baseline.size != X.shape[1]:
        raise ValueError(f"baseline has {baseline.size} entries, X has {X.shape[1]} features")
    n, M = X.shape
    Xo = np.repeat(X[None], M, axis=0)                 # (M, n, M): copy m has feature m occluded
    Xo[np.arange(M), :, np.arange(M)] = baseline[:, None]
    f0 = np.asarray(logit_fn(X), dtype=float)
    fo = np.asarray(logit_fn(Xo.reshape(M * n, M)), dtype=float).reshape(M, n)
    return (f0[None, :] - fo).T


def neighbour_hyperplane_accuracy(X, W, labels, k: int) -> float:
    """Accuracy of each instance's own linear model on its k nearest neighbours (binary tasks).

    Parameters
    ----------
    X : (n, M) instances. W : (n, M + 1) each instance's weights and bias (the binary IMN's W(x)[:, :, 0]).
    labels : (n,) in {0, 1}, what the neighbours should be predicted as (true labels). k : 1 <= k < n.

    Returns the fraction over all (i, neighbour j) pairs with 1[x_j . w_i + b_i > 0] == labels[j].
    """
    from sklearn.neighbors import NearestNeighbors
    X = check_x(X)
    W = check_x(W, "W")
    labels = np.asarray(labels)
    if W.shape != (X.shape[0], X.shape[1] + 1) or labels.shape != (X.shape[0],):
        raise ValueError(f"W must be (n, M + 1) and labels (n,) for X {X.shape}; got {W.shape}, {labels.shape}")
    if not np.isin(labels, (0, 1)).all():
        raise ValueError("labels must be 0 or 1")
    if not 1 <= int(k) < X.shape[0]:
        raise ValueError(f"k must be in [1, n - 1] = [1, {X.shape[0] - 1}], got {k}")
    idx = NearestNeighbors(n_neighbors=int(k) + 1).fit(X).kneighbors(X, return_distance=False)[:, 1:]
    z = np.einsum("ikm,im->ik", X[idx], W[:, :-1]) + W[:, -1:]
    return float(np.mean((z > 0) == (labels[idx] == 1)))


def deletion_curve(proba_fn, X, order, baseline) -> np.ndarray:
    """Mean probability of each instance's originally predicted class after replacing its first j features in
    ``order[i]`` by ``baseline``, for j = 0..M.

    proba_fn : (n, M) -> (n, C) probabilities. X : (n, M). order : (n, M) int, a permutation of range(M) per row
    (e.g. features sorted by |impact|, largest first). baseline : (M,). Returns (M + 1,) float64, starting at the
    mean top-class probability.
    """
    X = check_x(X)
    order = np.asarray(order)
    baseline = np.asarray(baseline, dtype=float)
    n, M = X.shape
    if order.shape != (n, M) or not (np.sort(order, 1) == np.arange(M)).all():
        raise ValueError(f"order must be (n, M) = {(n, M)} with a permutation of range(M) in every row")
    if baseline.shape != (M,) or not np.isfinite(baseline).all():
        raise ValueError(f"baseline must be finite with shape ({M},)")
    top = np.argmax(proba_fn(X), axis=1)
    Xd, curve = X.copy(), []
    for j in range(M + 1):
        if j:
            Xd[np.arange(n), order[:, j - 1]] = baseline[order[:, j - 1]]
        curve.append(np.asarray(proba_fn(Xd))[np.arange(n), top].mean())
    return np.array(curve)
