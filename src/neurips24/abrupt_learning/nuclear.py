"""The nuclear-norm baseline of the paper (§3, Fig. 3; official ``src/cvx_nuc_norm.py``): complete each matrix by

    minimise ||Z||_*  subject to  Z_ij = X_ij for every observed (i, j),                         (1)

the convex relaxation of rank minimisation (Candès & Recht 2009). The official code hands (1) to cvxpy one
matrix at a time. Here (1) is solved for a whole batch at once by ADMM whose Z-step is singular-value
thresholding (Cai, Candès & Shen 2010), D_τ(Y) = U diag(max(σ − τ, 0)) Vᵀ, computed with NumPy's batched SVD
(``numpy.linalg.svd``); ``cvx_complete`` keeps the cvxpy formulation as an independent cross-check.
"""
from __future__ import annotations

import numpy as np


def _check_completion_input(X, observed):
    X = np.asarray(X)
    observed = np.asarray(observed)
    if X.ndim not in (2, 3):
        raise ValueError(f"X must have shape (m, n) or (B, m, n), got {X.shape}")
    if observed.shape != X.shape:
        raise ValueError(f"observed must have the shape of X {X.shape}, got {observed.shape}")
    if observed.dtype != bool:
        raise TypeError(f"observed must be a bool array, got dtype {observed.dtype}")
    if not np.issubdtype(X.dtype, np.floating):
        raise TypeError(f"X must be a float array, got dtype {X.dtype}")
    if not np.isfinite(X[observed]).all():
        raise ValueError("X must be finite on the observed entries (found NaN or inf)")
    return X.astype(np.float64), observed


def svt(Y: np.ndarray, tau: float) -> np.ndarray:
    """Singular-value thresholding D_τ(Y) = U diag(max(σ − τ, 0)) Vᵀ, the proximal map of τ||·||_*.

    Parameters
    ----------
    Y : (..., m, n) float — one matrix or a batch.
    tau : threshold τ >= 0.

    Returns
    -------
    (..., m, n) float64.

    Raises
    ------
    ValueError if Y is not finite or tau < 0.
    """
    Y = np.asarray(Y, dtype=np.float64)
    if not np.isfinite(Y).all():
        raise ValueError("Y must be finite (found NaN or inf)")
    if not (np.isfinite(tau) and tau >= 0):
        raise ValueError(f"tau must be a finite number >= 0, got {tau}")
    U, s, Vt = np.linalg.svd(Y, full_matrices=False)
    return (U * np.maximum(s - tau, 0.0)[..., None, :]) @ Vt


def nuclear_norm_complete(X: np.ndarray, observed: np.ndarray, rho: float = 3.0, iters: int = 2000,
                          tol: float = 1e-6) -> np.ndarray:
    """Solve (1) for each matrix of a batch by ADMM with an SVT step.

    Splitting (1) as min ||Z||_* + 1[P_Ω(W) = P_Ω(X)] s.t. W = Z, the scaled ADMM iterations are
        Z <- D_{1/ρ}(W + Λ),   W <- P_Ω(X) + P_Ω⊥(Z − Λ),   Λ <- Λ + W − Z,
    run per matrix until max |W − Z| < tol (W meets the constraints exactly and is returned). Matrices that
    have converged leave the batch, so one slow matrix does not make the others iterate.

    Parameters
    ----------
    X : (m, n) or (B, m, n) float — the matrices; entries where ``observed`` is False are ignored (may be NaN).
    observed : bool array of X's shape, True where the entry is shown.
    rho : ADMM penalty ρ > 0 (ρ = 3 converges fastest for entries of order 1).
    iters : maximal number of iterations.
    tol : primal-residual tolerance.

    Returns
    -------
    float64 array of X's shape: the completed matrices (observed entries equal X).

    Raises
    ------
    ValueError for a shape mismatch, non-finite observed entries, rho <= 0; TypeError for a non-bool mask.
    """
    X, observed = _check_completion_input(X, observed)
    if not rho > 0:
        raise ValueError(f"rho must be > 0, got {rho}")
    single = X.ndim == 2
    obs = observed[None] if single else observed
    M = np.where(obs, X[None] if single else X, 0.0)
    W, Lam = M.copy(), np.zeros_like(M)
    active = np.arange(M.shape[0])
    for _ in range(int(iters)):
        Z = svt(W[active] + Lam[active], 1.0 / rho)
        Wa = np.where(obs[active], M[active], Z - Lam[active])
        Lam[active] += Wa - Z
        W[active] = Wa
        active = active[np.abs(Wa - Z).max(axis=(1, 2)) >= tol]
        if active.size == 0:
            break
    return W[0] if single else W


def cvx_complete(X: np.ndarray, observed: np.ndarray) -> np.ndarray:
    """Solve (1) for one matrix with cvxpy (``cp.normNuc``), as the official code does. Needs cvxpy.

    X : (m, n) float; observed : (m, n) bool. Returns the (m, n) float64 minimiser.
    """
    import cvxpy as cp

    X, observed = _check_completion_input(X, observed)
    if X.ndim != 2:
        raise ValueError(f"cvx_complete takes one (m, n) matrix, got shape {X.shape}")
    Z = cp.Variable(X.shape)
    mask = observed.astype(float)
    prob = cp.Problem(cp.Minimize(cp.normNuc(Z)),
                      [cp.multiply(mask, Z) == mask * np.where(observed, X, 0.0)])
    prob.solve()
    return np.asarray(Z.value, dtype=np.float64)
