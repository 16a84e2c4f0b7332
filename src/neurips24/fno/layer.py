"""The FNO layer without skip connection and its zero-mean Gaussian initialisation, in NumPy/CuPy.

Notation (this book's, :doc:`the chapter <../notebooks/fno_edge_of_chaos>` eqs. (1)–(3)):
a 1-D periodic grid of N points, width D (channels), K kept Fourier modes, depth L;
pre-activations Z^l ∈ R^{D×N} and

    Z^{l+1} = W φ(Z^l) + S[φ(Z^l)] + b 1ᵀ,     S[A]_c = irfft_N( 1[k < K] Σ_{c'} R_{cc'}(k) rfft(A_{c'})(k) )

with W_ij ~ N(0, σ_w²/D), R(k) circular complex Gaussian with E|R_{cc'}(k)|² = σ_r²/D for k ≥ 1,
R(0) real ~ N(0, σ_r²/D), b_c ~ N(0, σ_b²). FFTs use NumPy's default ('backward') normalisation.
Everything is batched over G independent random networks and S inputs per network.
The FFTs are NumPy's (``numpy.fft``) or CuPy's (cuFFT); the per-mode channel mix is :func:`mode_mix`.
"""
from __future__ import annotations

import numpy as np

ACTIVATIONS = ("tanh", "relu")


def check_positive(name: str, value) -> float:
    """``float(value)`` if it is a finite number > 0, else ValueError naming ``name``."""
    v = float(value)
    if not np.isfinite(v) or v <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return v


def check_nonnegative(name: str, value) -> float:
    """``float(value)`` if it is a finite number >= 0, else ValueError naming ``name``."""
    v = float(value)
    if not np.isfinite(v) or v < 0:
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
    return v


def check_int(name: str, value, minimum: int = 1) -> int:
    """``int(value)`` if it is an integer (not a bool or float) >= ``minimum``.

    Raises TypeError (not an integer) or ValueError (below ``minimum``), naming ``name``.
    """
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def check_modes(n_modes: int, n_grid: int) -> int:
    """Validate the number of kept modes: 1 <= K <= N/2 (the Nyquist bin is never kept)."""
    if isinstance(n_modes, bool) or not isinstance(n_modes, (int, np.integer)):
        raise TypeError(f"n_modes must be an int, got {type(n_modes).__name__}")
    if not 1 <= n_modes <= n_grid // 2:
        raise ValueError(f"n_modes K must satisfy 1 <= K <= N/2 = {n_grid // 2}, got {n_modes}")
    return int(n_modes)


def check_activation(activation: str) -> str:
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {ACTIVATIONS}, got {activation!r}")
    return activation


def phi(z, activation: str):
    """The activation φ applied elementwise (works on NumPy and CuPy arrays)."""
    if check_activation(activation) == "tanh":
        return _xp(z).tanh(z)
    return _xp(z).maximum(z, 0.0)


def _xp(a):
    if type(a).__module__.startswith("cupy"):
        import cupy

        return cupy
    return np


def draw_layer(rng, n_networks: int, width: int, n_modes: int,
               sigma_w2: np.ndarray, sigma_r2: np.ndarray, sigma_b2: float, xp=np):
    """Draw one layer's weights for G networks (eq. (2)).

    Parameters
    ----------
    rng : numpy.random.Generator (or cupy.random.Generator when xp is cupy).
    n_networks : G.
    width : D.
    n_modes : K.
    sigma_w2, sigma_r2 : (G,) float64, per-network variances σ_w², σ_r² (σ_w² may be 0).
    sigma_b2 : σ_b² >= 0.

    Returns
    -------
    W : (G, D, D) float64, R : (G, K, D, D) complex128 with R[:, 0] real, b : (G, D) float64.

    Raises
    ------
    TypeError if G, D or K is not an int; ValueError if one is < 1, or if ``sigma_w2``/``sigma_r2`` is not
    of shape (G,) with finite entries >= 0, or ``sigma_b2`` is not finite and >= 0 (each names the argument).
    """
    G = check_int("n_networks", n_networks, 1)
    D = check_int("width", width, 1)
    K = check_int("n_modes", n_modes, 1)
    for name, v in (("sigma_w2", sigma_w2), ("sigma_r2", sigma_r2)):
        v = np.asarray(v.get() if hasattr(v, "get") else v, dtype=np.float64)
        if v.shape not in ((G,), ()) or not np.all(np.isfinite(v)) or np.any(v < 0):
            raise ValueError(f"{name} must be finite variances >= 0 of shape ({G},), got {v!r}")
    sigma_b2 = check_nonnegative("sigma_b2", sigma_b2)
    sw = xp.sqrt(xp.asarray(sigma_w2, dtype=xp.float64) / D)
    sr = xp.sqrt(xp.asarray(sigma_r2, dtype=xp.float64) / D)
    W = rng.standard_normal((G, D, D)) * sw[:, None, None]
    # Real and imaginary parts drawn side by side (float32 normals: the draw, not the arithmetic, is the
    # Monte Carlo's cost) and viewed as complex128 without temporaries.
    parts = rng.standard_normal((G, K, D, D, 2), dtype=xp.float32).astype(xp.float64)
    parts[:, 0, ..., 1] = 0.0                    # DC weight is real: irfft drops its imaginary part
    scale = xp.full(K, 1.0 / np.sqrt(2.0))
    scale[0] = 1.0                               # E|R(k)|² = σ_r²/D for every k, the DC bin included
    parts *= (sr[:, None, None, None] * scale[None, :, None, None])[..., None]
    R = parts.view(xp.complex128)[..., 0]
    b = rng.standard_normal((G, D)) * np.sqrt(sigma_b2)
    return W, R, b


def mode_mix_reference(a_hat, R):
    """Per-mode complex channel mix, the reference for the CUDA kernel ``mode_mix.cu``.

    out[g, s, i, k] = Σ_j R[g, k, i, j] · a_hat[g, s, j, k]

    Parameters
    ----------
    a_hat : (G, S, D, K) complex128, the kept Fourier modes of the activations.
    R : (G, K, D, D) complex128, spectral weights.

    Returns
    -------
    (G, S, D, K) complex128.
    """
    return _xp(a_hat).einsum("gkij,gsjk->gsik", R, a_hat)


def mode_mix(a_hat, R):
    """:func:`mode_mix_reference` on NumPy arrays (a batched ``numpy.matmul``); the CUDA kernel on CuPy arrays."""
    xp = _xp(a_hat)
    if xp is np:   # batched BLAS matmul: (G, K, D, D) @ (G, K, D, S), same sums as the reference
        return np.matmul(R, a_hat.transpose(0, 3, 2, 1)).transpose(0, 3, 2, 1)
    from ..cuda import raw_kernel

    G, S, D, K = a_hat.shape
    if R.shape != (G, K, D, D):
        raise ValueError(f"R must have shape {(G, K, D, D)}, got {R.shape}")
    a_hat = xp.ascontiguousarray(a_hat, dtype=xp.complex128)
    R = xp.ascontiguousarray(R, dtype=xp.complex128)
    out = xp.empty_like(a_hat)
    threads = 256
    blocks = min((out.size + threads - 1) // threads, 65535 * 8)
    raw_kernel("neurips24.fno", "mode_mix.cu", "mode_mix")(
        (blocks,), (threads,), (a_hat, R, out, np.int64(G), np.int64(S), np.int64(D), np.int64(K)))
    return out


def spectral_conv(a, R):
    """The spectral path S[A] of eq. (1): rfft → keep k < K → per-mode channel mix → irfft.

    Parameters
    ----------
    a : (G, S, D, N) float64, activations φ(Z) of G networks on S inputs.
    R : (G, K, D, D) complex128, spectral weights, K <= N/2.

    Returns
    -------
    (G, S, D, N) float64.

    Raises
    ------
    ValueError if ``a`` is not 4-D, or ``R`` is not (G, K, D, D) for the G and D of ``a`` with
    1 <= K <= N/2 + 1 (names the argument).
    """
    xp = _xp(a)
    if a.ndim != 4:
        raise ValueError(f"a must have shape (G, S, D, N), got {a.shape}")
    G, _, D, N = a.shape
    if R.ndim != 4 or R.shape[0] != G or R.shape[2:] != (D, D) or not 1 <= R.shape[1] <= N // 2 + 1:
        raise ValueError(f"R must have shape (G={G}, K, D={D}, D={D}) with 1 <= K <= N/2 + 1 = {N // 2 + 1}, "
                         f"got {R.shape}")
    K = R.shape[1]
    a_hat = xp.fft.rfft(a, axis=-1)[..., :K]
    out_hat = xp.zeros(a.shape[:-1] + (N // 2 + 1,), dtype=xp.complex128)
    out_hat[..., :K] = mode_mix(a_hat, R)
    return xp.fft.irfft(out_hat, n=N, axis=-1)


def fno_layer(z, W, R, b, activation: str):
    """One FNO layer without skip connection, eq. (1): Z ↦ W φ(Z) + S[φ(Z)] + b 1ᵀ.

    Parameters
    ----------
    z : (G, S, D, N) float64 pre-activations Z^l.
    W : (G, D, D) float64; R : (G, K, D, D) complex128; b : (G, D) float64.
    activation : 'tanh' or 'relu'.

    Returns
    -------
    (G, S, D, N) float64, Z^{l+1}.
    """
    xp = _xp(z)
    a = phi(z, activation)
    return xp.matmul(W[:, None], a) + spectral_conv(a, R) + b[:, None, :, None]


VARIANTS = ("with_w", "spectral")


def split_sigma2(sigma2: float, variant: str = "with_w") -> tuple[float, float]:
    """Split the total weight variance σ² between the two paths (the book's two variants).

    'with_w': σ_w² = σ_r² = σ²/2 (FNO with the pointwise path W);
    'spectral': σ_w² = 0, σ_r² = σ² (pure spectral FNO).

    Returns
    -------
    (sigma_w2, sigma_r2).

    Raises
    ------
    ValueError if σ² <= 0 or ``variant`` is unknown.
    """
    sigma2 = check_positive("sigma2", sigma2)
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    return (sigma2 / 2, sigma2 / 2) if variant == "with_w" else (0.0, sigma2)


def bench_mode_mix(G: int = 8, S: int = 2, D: int = 64, K: int = 16, seed: int = 0) -> list[tuple[str, float, float]]:
    """Time the channel mix: NumPy reference (CPU), the CUDA kernel and torch's einsum (GPU, when present).

    Returns
    -------
    list of (name, seconds per call, bytes read and written per call) rows; used by ``benchmarks/kernels.py``.
    """
    from ..backend import cupy_or_none
    from ..timing import best_time as timeit

    rng = np.random.default_rng(seed)
    a_hat = rng.standard_normal((G, S, D, K)) + 1j * rng.standard_normal((G, S, D, K))
    R = rng.standard_normal((G, K, D, D)) + 1j * rng.standard_normal((G, K, D, D))
    nbytes = 16.0 * (2 * a_hat.size + R.size)
    size = f"G={G} S={S} D={D} K={K}"
    rows = [(f"fno.mode_mix numpy (CPU) {size}", timeit(lambda: mode_mix_reference(a_hat, R)), nbytes)]
    cp = cupy_or_none()
    if cp is not None:
        a_d, R_d = cp.asarray(a_hat), cp.asarray(R)
        rows.append((f"fno.mode_mix cuda kernel (GPU) {size}",
                     timeit(lambda: mode_mix(a_d, R_d), cp.cuda.Device().synchronize), nbytes))
        import torch

        if torch.cuda.is_available():
            a_t, R_t = torch.as_tensor(a_hat, device="cuda"), torch.as_tensor(R, device="cuda")
            rows.append((f"fno.mode_mix torch einsum (GPU) {size}",
                         timeit(lambda: torch.einsum("gkij,gsjk->gsik", R_t, a_t), torch.cuda.synchronize),
                         nbytes))
    return rows
