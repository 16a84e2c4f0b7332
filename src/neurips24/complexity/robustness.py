"""Robustness of a feature to Gaussian input noise: how much its value moves, relative to its spread.

Source: Fel et al., NeurIPS 2024, Sec. 4 (the book's reading: the variance of z(x + N(0, σ²)) over noise
draws, for σ in {0.01, 0.1, 0.5}). The book normalises it so that features of different scales compare:

    S(z) = E_x E_ε [ (z(x + σ ε) − z(x))² ] / Var_x z(x),      ε ~ N(0, I),

0 for a feature the noise does not move, about 2 when the noisy value is as unrelated to the clean one as an
independent draw from the feature's distribution. Low S = robust. The noisy activations come from the model's
forward pass (torch) and are encoded with the fixed dictionary (``Dictionary.encode``, scikit-learn's NNLS).
"""
from __future__ import annotations

import numpy as np

from .features import check_activations


def noise_sensitivity(Z_clean, Z_noisy, variance=None) -> np.ndarray:
    """S(z_j) = mean over draws and inputs of (z_noisy − z_clean)², over Var_x z_j: (k,) float64 >= 0.

    Parameters
    ----------
    Z_clean : (n, k) finite features of n clean inputs.
    Z_noisy : (n_draws, n, k) finite features of the same inputs under n_draws independent noise draws.
    variance : optional (k,) positive Var_x z_j to normalise by (e.g. over a larger set of inputs than the
        noisy subset); default: the variance of ``Z_clean`` over its n inputs.

    Raises
    ------
    ValueError for non-finite values, mismatched shapes, or a zero (or non-positive) variance: the
    sensitivity of a feature that is constant over the inputs is undefined.
    """
    Zc = check_activations(Z_clean, "Z_clean")
    Zn = np.asarray(Z_noisy, dtype=np.float64) if np.asarray(Z_noisy).dtype != object else None
    if Zn is None or Zn.ndim != 3 or Zn.shape[1:] != Zc.shape or Zn.shape[0] < 1:
        raise ValueError(f"Z_noisy must be an (n_draws >= 1, {Zc.shape[0]}, {Zc.shape[1]}) array, got "
                         f"{getattr(Zn, 'shape', None)}")
    if not np.isfinite(Zn).all():
        raise ValueError("Z_noisy holds non-finite values (NaN or inf)")
    var = Zc.var(0) if variance is None else np.asarray(variance, dtype=np.float64)
    if var.shape != (Zc.shape[1],) or not np.isfinite(var).all():
        raise ValueError(f"variance must be a finite ({Zc.shape[1]},) array, got shape {var.shape}")
    if not (var > 0).all():
        raise ValueError(f"feature(s) {np.flatnonzero(~(var > 0)).tolist()} are constant over the clean inputs: "
                         "sensitivity is undefined")
    return ((Zn - Zc) ** 2).mean((0, 1)) / var


def noisy_activations(model, x, layer: str, sigma: float, n_draws: int = 2, seed: int = 0,
                      batch_size: int = 256) -> np.ndarray:
    """A layer's pooled activations under Gaussian input noise: (n_draws, n, d) float64.

    Parameters
    ----------
    model : torch.nn.Module. x : (n, C, H, W) float32 tensor, the clean inputs (in the model's input units).
    layer : a module name (:func:`.layers.pooled_activations`). sigma : noise standard deviation > 0, in input
    units. n_draws : independent noise draws >= 1. seed : seeds a torch.Generator for the noise.

    Raises
    ------
    ValueError for sigma <= 0 or not finite, n_draws < 1, and as :func:`.layers.pooled_activations`.
    """
    import torch

    from .layers import pooled_activations

    if isinstance(sigma, bool) or not isinstance(sigma, (int, float, np.integer, np.floating)) or \
            not (np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a finite number > 0 (input units), got {sigma!r}")
    if isinstance(n_draws, bool) or not isinstance(n_draws, (int, np.integer)) or n_draws < 1:
        raise ValueError(f"n_draws must be an integer >= 1, got {n_draws!r}")
    gen = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n_draws):
        noise = torch.randn(x.shape, generator=gen, dtype=x.dtype)
        out.append(pooled_activations(model, x + float(sigma) * noise, [layer], batch_size=batch_size)[layer])
    return np.stack(out)


def feature_sensitivity(dictionary, clean_acts, noisy_acts, variance=None) -> np.ndarray:
    """S(z_j) of a dictionary's features from a layer's clean (n, d) and noisy (n_draws, n, d) activations,
    both encoded with the fixed dictionary (:meth:`.features.Dictionary.encode`): (k,) float64. ``variance``
    as in :func:`noise_sensitivity`.

    Raises
    ------
    ValueError as :meth:`.features.Dictionary.encode` and :func:`noise_sensitivity`, and for a noisy array
    that is not (n_draws, n, d).
    """
    clean = check_activations(clean_acts, "clean_acts")
    noisy = np.asarray(noisy_acts, dtype=np.float64)
    if noisy.ndim != 3 or noisy.shape[1:] != clean.shape:
        raise ValueError(f"noisy_acts must be (n_draws, {clean.shape[0]}, {clean.shape[1]}), got {noisy.shape}")
    Z_clean = dictionary.encode(clean)
    Z_noisy = np.stack([dictionary.encode(a) for a in noisy])
    return noise_sensitivity(Z_clean, Z_noisy, variance)


__all__ = ["noise_sensitivity", "noisy_activations", "feature_sensitivity"]
