"""Concept dictionaries by several methods, one API: U (K, D) atoms, V (M, K) activations (Parekh et al. 2024, §3.2).

Methods (the official code's ``decompose_activations`` offers snmf, pca, kmeans and simple; the book adds two
scikit-learn baselines):

========================  ===========================================================================
``'snmf'``                Semi-NMF, the book's NumPy solver (:mod:`.seminmf`), the paper's choice.
``'dict'``                scikit-learn ``DictionaryLearning(positive_code=True, fit_algorithm='cd',
                          transform_algorithm='lasso_cd')``: the official code's Semi-NMF, same objective.
``'pca'``                 scikit-learn ``PCA``: signed activations, orthonormal atoms.
``'kmeans'``              scikit-learn ``KMeans``: centres as atoms, activation 1 / (1 + distance).
``'simple'``              the K samples of largest norm as atoms, activation 1 / (1 + distance).
``'nmf'``                 scikit-learn ``NMF`` of the shifted data Z − min(Z) (NMF needs Z ≥ 0).
========================  ===========================================================================

Each method's *reconstruction* is its own natural one: V U for the dictionary methods, the mean plus the projection
for PCA, the nearest atom for k-means and simple (the k-means objective), W H + min(Z) for NMF.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .seminmf import _check_fit, _check_Z, semi_nmf

METHODS = ("snmf", "dict", "pca", "kmeans", "simple", "nmf")
LABELS = {"snmf": "Semi-NMF", "dict": "Semi-NMF (scikit-learn)", "pca": "PCA", "kmeans": "k-means",
          "simple": "Simple", "nmf": "NMF (shifted)"}


@dataclass
class Decomposition:
    """A fitted concept dictionary.

    Attributes
    ----------
    method : one of :data:`METHODS`.
    U : (K, D) float64, the concepts (atoms) in representation space.
    V : (M, K) float64, the activations of the training representations.
    model : the fitted object behind :meth:`transform` / :meth:`reconstruct`.
    shift : float, the shift subtracted before NMF (0 for the other methods).
    """

    method: str
    U: np.ndarray
    V: np.ndarray
    model: object
    shift: float = 0.0

    def transform(self, Z: np.ndarray) -> np.ndarray:
        """Activations (M', K) of new representations Z (M', D), as the official ``project_representations``."""
        Z = _check_Z(Z, "Z")
        if Z.shape[1] != self.U.shape[1]:
            raise ValueError(f"Z must have D = {self.U.shape[1]} columns, got {Z.shape[1]}")
        if self.method in ("kmeans", "simple"):
            return 1.0 / (1.0 + _distances(Z, self.U))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            if self.method == "nmf":
                return self.model.transform(np.maximum(Z - self.shift, 0.0))
            return self.model.transform(Z)

    def reconstruct(self, Z: np.ndarray) -> np.ndarray:
        """The method's reconstruction Ẑ (M', D) of Z (see the module's text)."""
        Z = _check_Z(Z, "Z")
        if self.method in ("kmeans", "simple"):
            return self.U[np.argmin(_distances(Z, self.U), axis=1)]
        if self.method == "pca":
            return self.model.inverse_transform(self.model.transform(Z))
        if self.method == "nmf":
            return self.transform(Z) @ self.U + self.shift
        return self.transform(Z) @ self.U


def _distances(Z: np.ndarray, U: np.ndarray) -> np.ndarray:
    d2 = (Z * Z).sum(1)[:, None] - 2.0 * Z @ U.T + (U * U).sum(1)[None, :]
    return np.sqrt(np.maximum(d2, 0.0))


class _SemiNMFModel:
    def __init__(self, fit):
        self.fit = fit

    def transform(self, Z):
        return self.fit.transform(Z)


def decompose(Z: np.ndarray, K: int, method: str = "snmf", alpha: float = 1.0, seed: int = 0,
              max_iter: int = 200) -> Decomposition:
    """Learn K concepts from the representations Z of one token (the official ``decompose_activations``).

    Parameters
    ----------
    Z : (M, D) float, finite. K : int in [1, M]. method : one of :data:`METHODS`.
    alpha : float ≥ 0, the L1 weight of 'snmf' and 'dict'. seed : int, for every randomised method.
    max_iter : int ≥ 1, outer iterations of 'snmf', 'dict', 'kmeans' and 'nmf'.

    Returns
    -------
    :class:`Decomposition`.

    Raises
    ------
    ValueError for an unknown method, K outside [1, M], non-finite or non-2-D Z, negative alpha.
    TypeError for a non-float Z or a non-int K.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    Z = _check_fit(Z, K, alpha, max_iter)
    if method == "snmf":
        fit = semi_nmf(Z, K, alpha=alpha, n_iter=max_iter, seed=seed)
        return Decomposition(method, fit.U, fit.V, _SemiNMFModel(fit))
    if method == "dict":
        from sklearn.decomposition import DictionaryLearning

        model = DictionaryLearning(n_components=K, alpha=alpha, positive_code=True, fit_algorithm="cd",
                                   transform_algorithm="lasso_cd", max_iter=max_iter, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            V = model.fit_transform(Z)
        return Decomposition(method, model.components_.copy(), V, model)
    if method == "pca":
        from sklearn.decomposition import PCA

        model = PCA(n_components=K, random_state=seed)
        V = model.fit_transform(Z)
        return Decomposition(method, model.components_.copy(), V, model)
    if method == "kmeans":
        from sklearn.cluster import KMeans

        model = KMeans(n_clusters=K, n_init=4, max_iter=max_iter, random_state=seed).fit(Z)
        U = model.cluster_centers_.copy()
        return Decomposition(method, U, 1.0 / (1.0 + _distances(Z, U)), model)
    if method == "simple":
        U = Z[np.argsort(np.linalg.norm(Z, axis=1))[-K:]].copy()
        return Decomposition(method, U, 1.0 / (1.0 + _distances(Z, U)), None)
    from sklearn.decomposition import NMF

    shift = float(Z.min())
    model = NMF(n_components=K, init="nndsvda", max_iter=max_iter, random_state=seed)
    with warnings.catch_warnings():          # a baseline at a fixed budget: its convergence warning is expected
        warnings.simplefilter("ignore", ConvergenceWarning)
        V = model.fit_transform(Z - shift)
    return Decomposition(method, model.components_.copy(), V, model, shift=shift)
