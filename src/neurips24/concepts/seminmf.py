"""Semi-NMF concept dictionary: Z ≈ V U with V ≥ 0 and unit-bounded atoms (Parekh et al. 2024, §3.2, eq. (2)).

The objective (the one scikit-learn's ``DictionaryLearning(positive_code=True)`` minimises, which is what the
official code calls Semi-NMF):

    F(U, V) = ½ ‖Z − V U‖²_F + α Σ_{m,k} V_{mk},   V ≥ 0,   ‖u_k‖₂ ≤ 1 for every atom k,

with Z (M, D) the representations of one target token, U (K, D) the dictionary (rows u_k are the *concepts*,
signed) and V (M, K) the non-negative activations. On V ≥ 0 the L1 norm is the plain sum.

The solver alternates two exact-descent steps (book's own NumPy implementation):

- **V-step** (non-negative lasso, rows independent): accelerated projected gradient (FISTA),
  V ← max(0, Y − η (Y G − Z Uᵀ + α)), G = U Uᵀ, η = 1/λ_max(G). This is the update the CuPy kernel fuses.
- **U-step** (block coordinate descent over atoms, as scikit-learn's ``_update_dict``): for each k, with the
  residual R_k = Z − Σ_{j≠k} v_j u_j, the minimiser of ‖R_k − v_k u_k‖² over the unit ball is the projection of
  c_k = v_kᵀ R_k / ‖v_k‖² onto the ball (the quadratic in u_k is isotropic, so the projection is exact).

Both steps never increase F, so F decreases monotonically (tested). Initialisation follows Ding, Li & Jordan
(2010): k-means centres (scikit-learn ``KMeans``) scaled into the unit ball.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class SemiNMF:
    """A fitted Semi-NMF dictionary.

    Attributes
    ----------
    U : (K, D) float64, the concepts (dictionary atoms), ‖u_k‖₂ ≤ 1.
    V : (M, K) float64 ≥ 0, the activations of the training representations.
    alpha : float, the L1 weight α.
    objective : list of float, F(U, V) after each outer iteration (non-increasing).
    """

    U: np.ndarray
    V: np.ndarray
    alpha: float
    objective: list = field(default_factory=list)

    def transform(self, Z: np.ndarray, n_iter: int = 200) -> np.ndarray:
        """Activations V ≥ 0 of new representations ``Z`` (M', D) on the fixed dictionary: the V-step alone."""
        return encode_nonneg(_check_Z(Z, "Z"), self.U, self.alpha, n_iter=n_iter)


def _check_Z(Z, name: str = "Z") -> np.ndarray:
    if not isinstance(Z, np.ndarray):
        raise TypeError(f"{name} must be a NumPy array, got {type(Z).__name__}")
    if Z.ndim != 2 or Z.shape[0] < 1 or Z.shape[1] < 1:
        raise ValueError(f"{name} must have shape (M, D) with M, D >= 1, got {Z.shape}")
    if not np.issubdtype(Z.dtype, np.floating):
        raise TypeError(f"{name} must be a float array, got dtype {Z.dtype}")
    if not np.all(np.isfinite(Z)):
        raise ValueError(f"{name} has NaN or inf entries: representations must be finite")
    return Z.astype(np.float64, copy=False)


def _check_fit(Z, K, alpha, n_iter) -> np.ndarray:
    Z = _check_Z(Z, "Z")
    if isinstance(K, bool) or not isinstance(K, (int, np.integer)):
        raise TypeError(f"K must be an int, got {type(K).__name__}")
    if not 1 <= K <= Z.shape[0]:
        raise ValueError(f"K must be in [1, M] = [1, {Z.shape[0]}] (no more concepts than samples), got {K}")
    if not (isinstance(alpha, (int, float, np.floating)) and np.isfinite(alpha) and alpha >= 0):
        raise ValueError(f"alpha must be a finite float >= 0, got {alpha!r}")
    if isinstance(n_iter, bool) or not isinstance(n_iter, (int, np.integer)) or n_iter < 1:
        raise ValueError(f"n_iter must be an int >= 1, got {n_iter!r}")
    return Z


def objective(Z: np.ndarray, U: np.ndarray, V: np.ndarray, alpha: float) -> float:
    """F(U, V) = ½ ‖Z − V U‖²_F + α Σ|V| (eq. (2); scikit-learn's dictionary-learning cost).

    Parameters
    ----------
    Z : (M, D) float. U : (K, D) float. V : (M, K) float. alpha : float ≥ 0.

    Returns
    -------
    float, in the squared units of Z.
    """
    R = Z - V @ U
    return float(0.5 * np.sum(R * R) + alpha * np.sum(np.abs(V)))


def encode_nonneg(Z: np.ndarray, U: np.ndarray, alpha: float, n_iter: int = 200, V0: np.ndarray | None = None,
                  tol: float = 1e-7) -> np.ndarray:
    """V-step: argmin_{V ≥ 0} ½ ‖Z − V U‖² + α Σ V by FISTA with projection (book's own; eq. (2) with U fixed).

    Parameters
    ----------
    Z : (M, D) float64. U : (K, D) float64. alpha : float ≥ 0.
    n_iter : int, the most FISTA steps. V0 : (M, K) warm start (default zeros). tol : stop when the largest
    change of V is below ``tol`` times its largest entry.

    Returns
    -------
    (M, K) float64 ≥ 0. Tested against scikit-learn ``sparse_encode(positive=True, algorithm='lasso_cd')``.
    """
    G = U @ U.T                                   # (K, K) Gram matrix of the atoms
    ZUt = Z @ U.T                                 # (M, K)
    L = max(float(np.linalg.eigvalsh(G)[-1]), 1e-12)
    eta = 1.0 / L
    V = np.zeros((Z.shape[0], U.shape[0])) if V0 is None else np.maximum(V0, 0.0).copy()
    Y, t = V.copy(), 1.0
    for _ in range(n_iter):
        V_new = np.maximum(Y - eta * (Y @ G - ZUt + alpha), 0.0)      # projected gradient step
        t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        Y = V_new + ((t - 1.0) / t_new) * (V_new - V)                 # Nesterov momentum
        change = np.max(np.abs(V_new - V))
        V, t = V_new, t_new
        if change <= tol * max(np.max(V), 1e-12):
            break
    return V


def update_dictionary(Z: np.ndarray, U: np.ndarray, V: np.ndarray) -> np.ndarray:
    """U-step: one pass of block coordinate descent over the atoms, each kept in the unit ball (eq. (2), V fixed).

    Parameters
    ----------
    Z : (M, D) float64. U : (K, D) float64, the current atoms (not modified). V : (M, K) float64 ≥ 0.

    Returns
    -------
    (K, D) float64, the new atoms, ‖u_k‖₂ ≤ 1. An atom no sample uses (v_k = 0) is left as it was.
    """
    U = U.copy()
    R = Z - V @ U                                 # residual, updated in place atom by atom
    for k in range(U.shape[0]):
        vk = V[:, k]
        nk = float(vk @ vk)
        if nk <= 0.0:
            continue
        c = (vk @ R) / nk + U[k]                  # v_k^T R_k / ||v_k||^2, with R_k = R + v_k u_k
        new = c / max(1.0, float(np.linalg.norm(c)))   # projection onto the unit ball
        R -= np.outer(vk, new - U[k])             # the residual with the new atom
        U[k] = new
    return U


def kmeans_init(Z: np.ndarray, K: int, seed: int = 0) -> np.ndarray:
    """Initial atoms: k-means centres of Z (scikit-learn ``KMeans``, k-means++, 4 restarts), scaled to unit norm."""
    from sklearn.cluster import KMeans

    centres = KMeans(n_clusters=K, n_init=4, random_state=seed).fit(Z).cluster_centers_
    return centres / np.maximum(np.linalg.norm(centres, axis=1, keepdims=True), 1e-12)


def semi_nmf(Z: np.ndarray, K: int, alpha: float = 1.0, n_iter: int = 100, seed: int = 0, tol: float = 1e-5,
             U0: np.ndarray | None = None) -> SemiNMF:
    """Fit the Semi-NMF concept dictionary Z ≈ V U (Parekh et al. 2024, eq. (2); solver: book's own, see module).

    Parameters
    ----------
    Z : (M, D) float, one representation per row (finite).
    K : int in [1, M], the number of concepts (the paper: 20).
    alpha : float ≥ 0, the L1 weight α (scikit-learn's default 1; its effect depends on the scale of Z).
    n_iter : int ≥ 1, the most outer iterations (V-step, then U-step).
    seed : int, the seed of the k-means initialisation.
    tol : stop when F decreased by less than ``tol`` times F over an outer iteration.
    U0 : (K, D) optional initial atoms (default :func:`kmeans_init`).

    Returns
    -------
    :class:`SemiNMF`, with the objective after every outer iteration.

    Raises
    ------
    TypeError if Z is not a float NumPy array or K not an int. ValueError if Z is not 2-D or has NaN/inf, if K is
    outside [1, M], alpha < 0 or non-finite, or n_iter < 1.
    """
    Z = _check_fit(Z, K, alpha, n_iter)
    U = kmeans_init(Z, K, seed) if U0 is None else np.array(U0, dtype=np.float64)
    V = encode_nonneg(Z, U, alpha)
    history = [objective(Z, U, V, alpha)]
    for _ in range(n_iter):
        U = update_dictionary(Z, U, V)                           # dictionary step
        V = encode_nonneg(Z, U, alpha, V0=V)                     # activation step, warm-started
        history.append(objective(Z, U, V, alpha))
        if history[-2] - history[-1] <= tol * abs(history[-2]):
            break
    return SemiNMF(U=U, V=V, alpha=float(alpha), objective=history)
