"""Redundancy of a feature: how much of its linear CKA with a layer survives random neuron masks.

Source: Fel et al., NeurIPS 2024, Sec. 4 (the book's reading of it, see the chapter): for a layer's
representation F = f_n(X) (n, p) and a feature z (n,),

    R(z) = E_m [ min(1, CKA(F ⊙ m, z) / CKA(F, z)) ],

over random masks m that keep a fixed number of the p neurons (chosen uniformly, without replacement) and
zero the others. CKA is linear CKA (Kornblith et al., ICML 2019, :func:`.vinfo.linear_cka`). For one feature
column the masked CKA has a closed form in the centred cross-products C = F_cᵀ z_c and the Gram matrix
G = F_cᵀ F_c:

    CKA(F ⊙ m, z) = Σ_{i ∈ m} C_i² / (‖G_{mm}‖_F ‖z_c‖²),

so every mask and every feature come from two matrix products (NumPy); the tests compare it with a direct
HSIC computation on the masked matrices, one mask and feature at a time.

The clip at 1 is the book's addition. Without it the mean says nothing about redundancy: the numerator is
linear in the mask, and over uniform masks E_m Σ_{i ∈ m} C_i² = keep · Σ_i C_i² whether the feature lives in
one neuron or in all of them. With it, a feature carried by one neuron scores 1 when that neuron is kept and
~0 otherwise (R near ``keep``), while a feature spread evenly over many neurons keeps a steady share under every
mask (R near sqrt(keep) on an isotropic layer, since ‖G_mm‖_F shrinks like sqrt(keep) too): higher R, more
redundant, but on a compressed scale.
"""
from __future__ import annotations

import numpy as np

from .features import check_activations


def _check_masks(keep, n_masks, p: int) -> tuple[int, int]:
    if isinstance(keep, bool) or not isinstance(keep, (int, float, np.integer, np.floating)) or \
            not (np.isfinite(keep) and 0 < keep <= 1):
        raise ValueError(f"keep must be a fraction of neurons in (0, 1], got {keep!r}")
    if isinstance(n_masks, bool) or not isinstance(n_masks, (int, np.integer)) or n_masks < 1:
        raise ValueError(f"n_masks must be an integer >= 1, got {n_masks!r}")
    return max(1, int(round(keep * p))), int(n_masks)


def random_neuron_masks(p: int, keep: float = 0.5, n_masks: int = 64, seed: int = 0) -> np.ndarray:
    """``n_masks`` boolean masks (n_masks, p), each keeping max(1, round(keep p)) neurons chosen uniformly.

    Raises
    ------
    ValueError if p < 1, keep is not in (0, 1] or n_masks < 1.
    """
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 1:
        raise ValueError(f"p must be an integer >= 1, got {p!r}")
    s, n_masks = _check_masks(keep, n_masks, p)
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random((n_masks, p)), axis=1)
    masks = np.zeros((n_masks, p), dtype=bool)
    np.put_along_axis(masks, order[:, :s], True, axis=1)
    return masks


def masked_cka_ratios(F, Z, masks) -> np.ndarray:
    """CKA(F ⊙ m, z_j) / CKA(F, z_j) for every mask m and feature j: (n_masks, k) float64 >= 0.

    Parameters
    ----------
    F : (n, p) finite representation (one row per input). Z : (n, k) finite features, same rows.
    masks : (n_masks, p) boolean, True for a kept neuron (:func:`random_neuron_masks`).

    Returns
    -------
    (n_masks, k) float64. A mask that keeps only neurons that are constant over the inputs gives 0 (the masked
    layer carries nothing about any feature).

    Raises
    ------
    ValueError for non-finite values, mismatched rows, masks of the wrong shape or dtype, a constant F or a
    feature that is constant or uncorrelated with every neuron (CKA(F, z) = 0: the ratio is undefined).
    """
    F, Z = check_activations(F, "F"), check_activations(Z, "Z")
    if F.shape[0] != Z.shape[0]:
        raise ValueError(f"F and Z must have the same rows, got {F.shape[0]} and {Z.shape[0]}")
    masks = np.asarray(masks)
    if masks.dtype != bool or masks.ndim != 2 or masks.shape[1] != F.shape[1] or masks.shape[0] < 1:
        raise ValueError(f"masks must be a boolean (n_masks >= 1, {F.shape[1]}) array, got "
                         f"{masks.dtype} {masks.shape}")
    Fc, Zc = F - F.mean(0), Z - Z.mean(0)
    C2 = (Fc.T @ Zc) ** 2                        # (p, k) squared centred cross-products
    G2 = (Fc.T @ Fc) ** 2                        # (p, p) squared Gram entries
    total = C2.sum(0)
    if not (G2.sum() > 0):
        raise ValueError("F is constant over the inputs: CKA is undefined")
    if not (total > 0).all():
        raise ValueError(f"feature(s) {np.flatnonzero(~(total > 0)).tolist()} are constant or uncorrelated "
                         "with every neuron of F: CKA(F, z) = 0 and the ratio is undefined")
    M = masks.astype(np.float64)
    gram_norm = np.sqrt(((M @ G2) * M).sum(1))   # ‖G_mm‖_F per mask
    kept = M @ C2                                 # (n_masks, k)
    safe = np.where(gram_norm > 0, gram_norm, 1.0)
    ratio = (kept / total) * (np.sqrt(G2.sum()) / safe)[:, None]
    return np.where(gram_norm[:, None] > 0, ratio, 0.0)


def redundancy(F, Z, keep: float = 0.5, n_masks: int = 64, seed: int = 0) -> np.ndarray:
    """R(z_j) = E_m[min(1, CKA(F ⊙ m, z_j) / CKA(F, z_j))] over ``n_masks`` random masks keeping a fraction
    ``keep`` of the neurons (Fel et al. 2024, as the book reads it; the clip is the book's, see the module
    docstring): (k,) float64 in [0, 1].

    See :func:`masked_cka_ratios` (arguments, errors) and :func:`random_neuron_masks` (keep, n_masks, seed).
    """
    F = check_activations(F, "F")
    return np.minimum(masked_cka_ratios(F, Z, random_neuron_masks(F.shape[1], keep, n_masks, seed)), 1.0).mean(0)


__all__ = ["random_neuron_masks", "masked_cka_ratios", "redundancy"]
