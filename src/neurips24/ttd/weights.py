"""Test-time dynamic fusion: per-pixel weights from the uni-source components' losses (paper Sec. 3–4, Alg. 1).

For a trained network (encoder E, fusion rule, decoder D) and sources x_1..x_M:

1. uni-source components D(E(x_m)) — each source alone through the frozen network (Eq. 4);
2. their per-pixel losses ℓ_m = (D(E(x_m)) − x_m)²  (the code's ``MSELoss(reduction='none')``);
3. relative dominability (Eq. 6): ω_m = Softmax_m(e^{−γ ℓ_m}); the paper writes γ = 1, the official code
   (``test_IVF.py`` at 7166b48c) uses γ = 50 and multiplies the weights by M so that they sum to M;
4. fusion with the weights on the *features*, I_F = D(Σ_m ω_m E(x_m)) (the code's sum; or the mean rule),
   then min-max normalisation of the output (as the code does).

All weight forms here sum to M at every pixel (the code's scaling), so that ω_m = 1 is the static rule; the
paper's normalised weights are ω_m / M. The forms of the paper's Table 4: 'static' (0.5 each, normalised),
'neg' = Softmax(−γℓ), 'exp' = Softmax(e^{−γℓ}) (RD).
"""
from __future__ import annotations

import numpy as np
import torch

GAMMA_CODE = 50.0      # official code, test_IVF.py: w = exp(-50 * mse)
GAMMA_PAPER = 1.0      # paper, Eq. 6: Softmax(e^{-l})
FORMS = ("static", "neg", "exp")


def _check_sources(sources) -> np.ndarray:
    x = np.asarray(sources)
    if x.ndim != 3:
        raise ValueError(f"sources must be an (M, H, W) stack of registered images, got shape {x.shape} "
                         "(sources of different shapes cannot be stacked)")
    if x.shape[0] < 2:
        raise ValueError(f"fusion needs M >= 2 sources, got M = {x.shape[0]}")
    if min(x.shape[1:]) < 8:
        raise ValueError(f"sources must be at least 8 x 8 pixels, got {x.shape[1:]}")
    if not np.issubdtype(x.dtype, np.number) or np.iscomplexobj(x):
        raise TypeError(f"sources must hold real numbers, got dtype {x.dtype}")
    if not np.all(np.isfinite(x)):
        raise ValueError("sources must be finite (no NaN or inf pixels)")
    return x.astype(np.float32)


def _check_gamma(gamma) -> float:
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float, np.floating)) or not np.isfinite(gamma) \
            or gamma <= 0:
        raise ValueError(f"gamma must be a finite number > 0, got {gamma!r}")
    return float(gamma)


def stack_sources(*images) -> np.ndarray:
    """(M, H, W) float32 from M registered 2-d images. Raises ValueError if their shapes differ or M < 2."""
    shapes = {np.shape(im) for im in images}
    if len(shapes) != 1:
        raise ValueError(f"sources must all have the same shape (registered images), got {sorted(shapes)}")
    return _check_sources(np.stack([np.asarray(im) for im in images]))


@torch.no_grad()
def uni_source_components(net, sources) -> np.ndarray:
    """D(E(x_m)) for every source alone (paper Eq. 4): (M, H, W) sources -> (M, H, W) float32.

    Raises
    ------
    ValueError for sources that are not (M, H, W) with M ≥ 2 and H, W ≥ 8, or hold NaN/inf; TypeError for
    non-numeric sources.
    """
    x = torch.from_numpy(_check_sources(sources))
    return net(x[:, None]).numpy()


def uni_source_loss(net, sources) -> np.ndarray:
    """ℓ_m = (D(E(x_m)) − x_m)² per pixel (the code's MSE with reduction='none'): (M, H, W) float32 ≥ 0.

    Raises
    ------
    As :func:`uni_source_components`.
    """
    x = _check_sources(sources)
    return component_loss(uni_source_components(net, x), x)


def component_loss(components, sources) -> np.ndarray:
    """ℓ_m = (c_m − x_m)² per pixel, each uni-source component c_m against its own source x_m (Eq. 5, the
    code's squared error): (M, H, W), (M, H, W) -> (M, H, W), float64 when either input is.

    Raises
    ------
    ValueError if the shapes differ.
    """
    c, x = np.asarray(components), np.asarray(sources)
    if c.shape != x.shape:
        raise ValueError(f"components and sources must have one shape, got {c.shape} and {x.shape}")
    return (c - x) ** 2


def rd_weights(loss, gamma: float = GAMMA_CODE, form: str = "exp") -> np.ndarray:
    """Per-pixel fusion weights from the uni-source losses, scaled to sum to M at every pixel.

    'exp' (relative dominability, Eq. 6):  ω_m = M · e^{z_m} / Σ_k e^{z_k},  z_m = exp(−γ ℓ_m);
    'neg' (Table 4's middle row):           ω_m = M · Softmax_m(−γ ℓ_m);
    'static':                               ω_m = 1.

    Parameters
    ----------
    loss : (M, H, W) finite float ≥ 0, M ≥ 2.
    gamma : γ > 0 (code: 50, :data:`GAMMA_CODE`; paper: 1, :data:`GAMMA_PAPER`).
    form : 'exp', 'neg' or 'static'.

    Returns
    -------
    (M, H, W) float64, Σ_m ω_m = M. For M = 2 and form 'exp', each ω_m lies in
    [2/(1 + e), 2e/(1 + e)] ≈ [0.54, 1.46].

    Raises
    ------
    ValueError for a non-(M, H, W) or non-finite or negative loss, M < 2, γ ≤ 0 or an unknown form.
    """
    ell = np.asarray(loss, dtype=np.float64)
    if ell.ndim != 3 or ell.shape[0] < 2:
        raise ValueError(f"loss must be (M, H, W) with M >= 2, got shape {ell.shape}")
    if not np.all(np.isfinite(ell)) or ell.min() < 0:
        raise ValueError("loss must be finite and >= 0")
    gamma = _check_gamma(gamma)
    if form not in FORMS:
        raise ValueError(f"form must be one of {FORMS}, got {form!r}")
    M = ell.shape[0]
    if form == "static":
        return np.ones_like(ell)
    z = np.exp(-gamma * ell) if form == "exp" else -gamma * ell
    z = z - z.max(0)
    return M * np.exp(z) / np.exp(z).sum(0)


def minmax(image) -> np.ndarray:
    """(x − min) / (max − min), the code's output normalisation; a constant image maps to 0."""
    x = np.asarray(image, dtype=np.float64)
    return (x - x.min()) / max(np.ptp(x), 1e-12)


@torch.no_grad()
def fuse(net, sources, weights=None, normalise: bool = True) -> np.ndarray:
    """I_F = D(Σ_m ω_m E(x_m)) (or the mean, by the network's rule), min-max normalised as in the official code.

    Parameters
    ----------
    net : a :class:`~neurips24.ttd.network.FusionNet` (or anything with its call signature).
    sources : (M, H, W) finite float, M ≥ 2.
    weights : (M, H, W) finite float or None (static rule, ω_m = 1).
    normalise : apply the min-max normalisation.

    Returns
    -------
    (H, W) float64.

    Raises
    ------
    ValueError for bad sources, or weights of another shape or non-finite.
    """
    x = _check_sources(sources)
    w = None
    if weights is not None:
        w = np.asarray(weights, dtype=np.float32)
        if w.shape != x.shape or not np.all(np.isfinite(w)):
            raise ValueError(f"weights must be a finite array of the sources' shape {x.shape}, got {w.shape}")
        w = torch.from_numpy(w)[None]
    out = net(torch.from_numpy(x)[None], w)[0].numpy().astype(np.float64)
    return minmax(out) if normalise else out


def ttd_fuse(net, sources, gamma: float = GAMMA_CODE, form: str = "exp") -> dict:
    """Algorithm 1: uni-source losses, weights, weighted fusion. Returns a dict with ``fused`` (H, W),
    ``weights`` (M, H, W) and ``loss`` (M, H, W). Raises as :func:`rd_weights` and :func:`fuse`."""
    x = _check_sources(sources)
    _check_gamma(gamma)
    loss = uni_source_loss(net, x)
    w = rd_weights(loss, gamma, form)
    return {"fused": fuse(net, x, w), "weights": w, "loss": loss}


def bound_terms(net, sources, weights) -> dict:
    """The two terms of Theorem 3.1's bound on the generalisation error, estimated over the pixels of one pair.

    With normalised weights ω̃_m = ω_m / M (Σ_m ω̃_m = 1), ℓ_m the uni-source loss and
    c_{i,m} = (D(E(x_i)) − x_m)² the loss of component i against source m:

        covariance = Σ_m Cov(ω̃_m, ℓ_m),
        expectation = (1/M) Σ_m E[(2M − 1) ℓ_m + (M − 1) Σ_{i≠m} c_{i,m}],   bound = covariance + expectation.

    Static weights have covariance 0; the theorem says weights negatively correlated with ℓ_m lower the bound.

    Returns
    -------
    dict with 'covariance', 'expectation', 'bound' (floats) and 'corr' ((M,) Pearson correlations of ω_m, ℓ_m;
    NaN where ω_m is constant).

    Raises
    ------
    ValueError for bad sources, or weights not of the sources' shape or not summing to M.
    """
    x = _check_sources(sources)
    w = np.asarray(weights, dtype=np.float64)
    M = x.shape[0]
    if w.shape != x.shape or not np.all(np.isfinite(w)) or not np.allclose(w.sum(0), M, atol=1e-4):
        raise ValueError(f"weights must be finite, of shape {x.shape}, and sum to M = {M} at every pixel")
    return _bound_terms(uni_source_components(net, x).astype(np.float64), x.astype(np.float64), w)


def _bound_terms(comp, x, w) -> dict:
    M = x.shape[0]
    ell = (comp - x) ** 2
    wn = w / M
    cov = sum(float(np.mean((wn[m] - wn[m].mean()) * (ell[m] - ell[m].mean()))) for m in range(M))
    cross = [[float(np.mean((comp[i] - x[m]) ** 2)) for m in range(M)] for i in range(M)]
    expect = sum((2 * M - 1) * ell[m].mean() + (M - 1) * sum(cross[i][m] for i in range(M) if i != m)
                 for m in range(M)) / M
    corr = np.array([np.nan if np.ptp(w[m]) == 0 else np.corrcoef(w[m].ravel(), ell[m].ravel())[0, 1]
                     for m in range(M)])
    return {"covariance": cov, "expectation": float(expect), "bound": cov + float(expect), "corr": corr}
