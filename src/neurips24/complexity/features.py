"""Features as non-negative directions of a layer: an NMF dictionary of the penultimate activations.

Source: Fel et al., NeurIPS 2024, Sec. 2 (the book's reading of it, see the chapter): the activations
A = f_n(X) >= 0 are factored as A ~ Z D with Z >= 0, D >= 0, and a new input's features are the non-negative
least-squares code z = argmin_{z >= 0} ||f_n(x) - z D||. scikit-learn's ``NMF`` fits the dictionary
(``fit_transform``); new inputs are encoded by SciPy's active-set NNLS (with a vanishing ridge) for small
dictionaries and by ``NMF.transform`` for large ones. This module validates the inputs and keeps the dictionary.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def check_activations(acts, name: str = "acts", nonnegative: bool = False) -> np.ndarray:
    """``acts`` as a finite (n, d) float64 array, or a clear error.

    Raises
    ------
    TypeError if ``acts`` is not numeric. ValueError if it is not 2-D with n >= 2 and d >= 1, holds NaN or
    inf, or (with ``nonnegative``) a negative entry.
    """
    a = np.asarray(acts)
    if a.dtype == object or not (np.issubdtype(a.dtype, np.number) or a.dtype == bool):
        raise TypeError(f"{name} must be a numeric array, got dtype {a.dtype}")
    a = a.astype(np.float64)
    if a.ndim != 2 or a.shape[0] < 2 or a.shape[1] < 1:
        raise ValueError(f"{name} must be a 2-D (n_inputs >= 2, n_units >= 1) array, got shape {a.shape}")
    if not np.isfinite(a).all():
        raise ValueError(f"{name} holds {int((~np.isfinite(a)).sum())} non-finite values (NaN or inf); "
                         "activations must be finite")
    if nonnegative and (a < 0).any():
        raise ValueError(f"{name} must be non-negative for NMF (take a ReLU layer), min is {a.min():.3g}")
    return a


EXACT_NNLS_MAX = 4096   # dictionaries with k * d up to this are encoded by active-set NNLS (SciPy)
RIDGE = 1e-6            # vanishing ridge of that NNLS, relative to ||D||_F² / k


@dataclass
class Dictionary:
    """A fitted NMF dictionary: ``D`` (k, d) non-negative atoms, ``Z`` (n, k) the codes of the fitting data."""

    D: np.ndarray
    Z: np.ndarray
    nmf: object

    @property
    def k(self) -> int:
        return self.D.shape[0]

    def encode(self, acts) -> np.ndarray:
        """The features z >= 0 of new activations (m, d): z = argmin_{z >= 0} ||a - z D|| for each row a.

        Small dictionaries (k d <= ``EXACT_NNLS_MAX``) are solved row by row by SciPy's active-set
        ``scipy.optimize.nnls`` with a vanishing ridge ``RIDGE`` ||D||_F² / k on ||z||² (an NMF of a layer with
        dead units has a rank-deficient D, and the ridge makes z unique and continuous in a, which the noise
        sensitivity needs); larger ones by scikit-learn's coordinate descent (``NMF.transform``), whose
        iterations stop at the NMF's tolerance. Returns (m, k) float64 >= 0.

        Raises
        ------
        TypeError / ValueError as :func:`check_activations` (non-finite or negative activations), and
        ValueError if the number of units is not the dictionary's.
        """
        a = check_activations(acts, "acts", nonnegative=True)
        if a.shape[1] != self.D.shape[1]:
            raise ValueError(f"acts must have {self.D.shape[1]} units (the dictionary's), got {a.shape[1]}")
        if self.D.size <= EXACT_NNLS_MAX:
            from scipy.optimize import nnls

            k = self.D.shape[0]
            M = np.vstack([self.D.T, np.sqrt(RIDGE * (self.D ** 2).sum() / k) * np.eye(k)])
            pad = np.zeros(k)
            return np.stack([nnls(M, np.concatenate([row, pad]), maxiter=50 * k)[0] for row in a])
        import warnings

        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Maximum number of iterations")
            return self.nmf.transform(a).astype(np.float64)


def fit_dictionary(acts, k: int, seed: int = 0, max_iter: int = 500) -> Dictionary:
    """NMF of the activations into k non-negative features, A ~ Z D (Fel et al. 2024, Sec. 2).

    Parameters
    ----------
    acts : (n, d) non-negative, finite activations of one layer (e.g. a ReLU layer after global average
        pooling), one row per input.
    k : number of features, 1 <= k <= min(n, d). The paper's dictionary is overcomplete (k = 10,000 atoms on
        2,048 units); scikit-learn's NNDSVD initialisation needs k <= min(n, d), which the chapter keeps.
    seed : random state of the NMF (the 'nndsvda' initialisation fills zeros with the data's mean).
    max_iter : iterations of scikit-learn's coordinate-descent solver.

    Returns
    -------
    Dictionary with D (k, d) float64 >= 0 and Z (n, k) float64 >= 0.

    Raises
    ------
    TypeError / ValueError from :func:`check_activations` (non-finite or negative activations).
    ValueError if k is not an integer in 1..min(n, d) or the activations are all zero.
    """
    from sklearn.decomposition import NMF

    a = check_activations(acts, "acts", nonnegative=True)
    limit = min(a.shape)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= limit:
        raise ValueError(f"k must be an integer in 1..min(n_inputs, n_units) = 1..{limit}, got {k!r}")
    if not a.any():
        raise ValueError("acts are all zero: there is nothing to factor")
    nmf = NMF(n_components=int(k), init="nndsvda", max_iter=max_iter, tol=1e-4, random_state=seed)
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Maximum number of iterations")
        Z = nmf.fit_transform(a)
    return Dictionary(D=nmf.components_.astype(np.float64), Z=Z.astype(np.float64), nmf=nmf)
