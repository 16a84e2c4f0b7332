"""V-information with linear decoders, feature complexity K, importance Γ and linear CKA.

Source: Fel et al., NeurIPS 2024, Sec. 2 (the book's reading, see the chapter). With V the family of linear
predictors with Gaussian posteriors (fixed variance), the V-information from a representation f to a
standardised feature z is the variance that the best linear decoder explains: its R². We estimate it on
held-out inputs with a ridge decoder fitted on the others, and clip it at 0 (a decoder worse than the mean
carries no usable information). Complexity: K(z) = 1 - (1/n) Σ_ℓ I_V(f_ℓ(x) -> z) over the n block outputs.

The ridge fit for all features at once is W = (FᵀF + λ n I)⁻¹ Fᵀ Z by a Cholesky factorisation
(``scipy.linalg.cho_factor``/``cho_solve``) and one matrix product; the tests compare it with scikit-learn's
``Ridge`` and ``r2_score``.
"""
from __future__ import annotations

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from .features import check_activations


def _standardise(train: np.ndarray, test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mu, sd = train.mean(0), train.std(0)
    sd = np.where(sd > 1e-12, sd, 1.0)
    return (train - mu) / sd, (test - mu) / sd


def split_halves(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A fixed random split of n inputs into a fitting half and a held-out half (index arrays)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 4:
        raise ValueError(f"n must be an integer >= 4, got {n!r}")
    perm = np.random.default_rng(seed).permutation(int(n))
    return np.sort(perm[: n // 2]), np.sort(perm[n // 2:])


def check_split(train, test, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``train`` and ``test`` as disjoint 1-D integer index arrays into n rows, each of size >= 2.

    Raises
    ------
    ValueError naming the argument otherwise.
    """
    train, test = np.asarray(train), np.asarray(test)
    for nm, ix in (("train", train), ("test", test)):
        if ix.ndim != 1 or ix.size < 2 or not np.issubdtype(ix.dtype, np.integer) or \
                ix.min() < 0 or ix.max() >= n:
            raise ValueError(f"{nm} must be >= 2 integer indices in 0..{n - 1}")
    if np.intersect1d(train, test).size:
        raise ValueError("train and test indices must be disjoint (held-out R²)")
    return train, test


def v_information(F, Z, train, test, lam: float = 1.0) -> np.ndarray:
    """Held-out R² of a ridge decoder from a representation F to each feature, clipped at 0: I_V(F -> z_j).

    Parameters
    ----------
    F : (n, p) finite representation (a block's output after global average pooling), one row per input.
    Z : (n, k) finite features.
    train, test : integer index arrays (disjoint) of the fitting and held-out inputs, each of size >= 2.
    lam : ridge strength λ > 0, relative to the number of fitting inputs (the penalty is λ n_train ||w||²) on
        standardised F and Z.

    Returns
    -------
    (k,) float64 in [0, 1]: 1 - SSE / SST on the held-out inputs (SST about their own mean, as
    ``sklearn.metrics.r2_score``), clipped at 0. A feature that is constant on the held-out inputs gets 0.

    Raises
    ------
    ValueError for non-finite values, mismatched rows, bad indices or λ <= 0.
    """
    F = check_activations(F, "F")
    Z = check_activations(Z, "Z")
    if F.shape[0] != Z.shape[0]:
        raise ValueError(f"F and Z must have the same rows, got {F.shape[0]} and {Z.shape[0]}")
    train, test = check_split(train, test, F.shape[0])
    if not (np.isfinite(lam) and lam > 0):
        raise ValueError(f"lam must be a finite number > 0, got {lam!r}")
    Ftr, Fte = _standardise(F[train], F[test])
    Ztr, Zte = _standardise(Z[train], Z[test])
    gram = Ftr.T @ Ftr + lam * len(train) * np.eye(F.shape[1])
    W = cho_solve(cho_factor(gram), Ftr.T @ Ztr)
    resid = Zte - Fte @ W
    sst = ((Zte - Zte.mean(0)) ** 2).sum(0)
    r2 = 1.0 - (resid ** 2).sum(0) / np.where(sst > 0, sst, 1.0)
    return np.where(sst > 0, np.clip(r2, 0.0, 1.0), 0.0)


def decodability(blocks: dict, Z, train, test, lam: float = 1.0) -> np.ndarray:
    """I_V(f_ℓ -> z_j) for every block ℓ and feature j: (n_blocks, k), in the order of ``blocks``."""
    if not isinstance(blocks, dict) or not blocks:
        raise ValueError("blocks must be a non-empty dict name -> (n, p) activations")
    return np.stack([v_information(F, Z, train, test, lam) for F in blocks.values()])


def complexity(blocks: dict, Z, train, test, lam: float = 1.0) -> np.ndarray:
    """K(z_j) = 1 - mean over blocks ℓ of I_V(f_ℓ -> z_j) (Fel et al. 2024, Sec. 2): (k,) in [0, 1].

    A feature that every block decodes linearly has K = 0; one that only the last blocks decode has K near
    1 - 1/n. See :func:`v_information` for the arguments and errors.
    """
    return 1.0 - decodability(blocks, Z, train, test, lam).mean(0)


def importance(Z, D, W_fc, predicted) -> np.ndarray:
    """Γ(z_i) = E_x |∂y_c/∂z_i · z_i| with y_c the logit of the predicted class (gradient x input).

    The logits are W_fc h + b with h ~ z D, so ∂y_c/∂z_i = (W_fc Dᵀ)[c, i] (Fel et al. 2024, Sec. 2, as the
    book reads it); the absolute value counts inhibiting features too.

    Parameters
    ----------
    Z : (n, k) features of n inputs. D : (k, d) dictionary. W_fc : (C, d) weights of the linear head.
    predicted : (n,) integer class index c(x) of each input, in 0..C-1.

    Returns
    -------
    (k,) float64 >= 0.

    Raises
    ------
    ValueError on non-finite values, mismatched shapes or class indices out of range.
    """
    Z, D, W = check_activations(Z, "Z"), check_activations(D, "D"), check_activations(W_fc, "W_fc")
    c = np.asarray(predicted)
    if Z.shape[1] != D.shape[0] or D.shape[1] != W.shape[1]:
        raise ValueError(f"shapes must chain as Z (n, k), D (k, d), W_fc (C, d); got {Z.shape}, {D.shape}, "
                         f"{W.shape}")
    if c.shape != (Z.shape[0],) or not np.issubdtype(c.dtype, np.integer) or c.min() < 0 or c.max() >= W.shape[0]:
        raise ValueError(f"predicted must be ({Z.shape[0]},) integers in 0..{W.shape[0] - 1}")
    G = W @ D.T                      # (C, k): ∂logit_c / ∂z_i
    return np.abs(Z * G[c]).mean(0)


def linear_cka(X, Y) -> float:
    """Linear centred kernel alignment ||YᵀX||_F² / (||XᵀX||_F ||YᵀY||_F) of centred X (n, p), Y (n, q).

    Kornblith et al., ICML 2019, Eq. (5); in [0, 1], invariant to rotations and isotropic scaling.
    """
    X, Y = check_activations(X, "X"), check_activations(Y, "Y")
    if X.shape[0] != Y.shape[0]:
        raise ValueError(f"X and Y must have the same rows, got {X.shape[0]} and {Y.shape[0]}")
    X, Y = X - X.mean(0), Y - Y.mean(0)
    den = np.linalg.norm(X.T @ X) * np.linalg.norm(Y.T @ Y)
    if den == 0:
        raise ValueError("X or Y is constant over the inputs: CKA is undefined")
    return float(np.linalg.norm(Y.T @ X) ** 2 / den)
