"""The FNO layer in NumPy (layer.py) against hand computations, and against the torch layer (model.py)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.fno.layer import (
    check_activation,
    check_modes,
    check_nonnegative,
    check_positive,
    draw_layer,
    fno_layer,
    mode_mix,
    mode_mix_reference,
    phi,
    spectral_conv,
    split_sigma2,
)


def _complex(rng, shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def _direct_spectral(a, R):
    """S[a] by explicit DFT sums: â(k) = Σ_x a(x) e^{-2πikx/N}, out(x) = N⁻¹ Σ_{|k|<K} m(k) e^{2πikx/N}."""
    G, S, D, N = a.shape
    K = R.shape[1]
    x = np.arange(N)
    out = np.zeros_like(a)
    for g in range(G):
        for s in range(S):
            for i in range(D):
                total = np.zeros(N)
                for k in range(K):
                    m = sum(R[g, k, i, j] * np.sum(a[g, s, j] * np.exp(-2j * np.pi * k * x / N)) for j in range(D))
                    term = m * np.exp(2j * np.pi * k * x / N)
                    # the mode -k contributes the complex conjugate (real output)
                    total += term.real if k == 0 else 2 * term.real
                out[g, s, i] = total / N
    return out


# --- mode mix and spectral convolution ------------------------------------------------------------------


def test_mode_mix_reference_against_triple_loop():
    rng = np.random.default_rng(0)
    G, S, D, K = 2, 1, 3, 2
    a_hat = _complex(rng, (G, S, D, K))
    R = _complex(rng, (G, K, D, D))
    expected = np.zeros((G, S, D, K), dtype=complex)
    for g in range(G):
        for s in range(S):
            for i in range(D):
                for k in range(K):
                    for j in range(D):
                        expected[g, s, i, k] += R[g, k, i, j] * a_hat[g, s, j, k]
    np.testing.assert_allclose(mode_mix_reference(a_hat, R), expected, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(mode_mix(a_hat, R), expected, rtol=1e-13, atol=1e-14)


def test_spectral_conv_identity_weights_remove_only_nyquist():
    rng = np.random.default_rng(1)
    G, S, D, N = 2, 3, 4, 16
    a = rng.standard_normal((G, S, D, N))
    R = np.zeros((G, N // 2, D, D), dtype=complex)
    R[:] = np.eye(D)
    # the Nyquist component of a real signal is (N⁻¹ Σ_x a(x) (-1)^x) (-1)^x
    alt = (-1.0) ** np.arange(N)
    expected = a - np.mean(a * alt, axis=-1, keepdims=True) * alt
    np.testing.assert_allclose(spectral_conv(a, R), expected, atol=1e-13)


def test_spectral_conv_dc_only_gives_channel_mean():
    rng = np.random.default_rng(2)
    G, S, D, N = 1, 2, 3, 10
    a = rng.standard_normal((G, S, D, N))
    R = np.zeros((G, 1, D, D), dtype=complex)
    R[:, 0] = np.eye(D)
    expected = np.broadcast_to(a.mean(axis=-1, keepdims=True), a.shape)
    np.testing.assert_allclose(spectral_conv(a, R), expected, atol=1e-14)


def test_spectral_conv_against_direct_dft():
    rng = np.random.default_rng(3)
    G, S, D, N, K = 2, 2, 3, 12, 4
    a = rng.standard_normal((G, S, D, N))
    R = _complex(rng, (G, K, D, D))
    R[:, 0] = R[:, 0].real            # the DC weight is real (irfft drops its imaginary part)
    out = spectral_conv(a, R)
    assert out.shape == a.shape and out.dtype == np.float64
    np.testing.assert_allclose(out, _direct_spectral(a, R), atol=1e-12)


def test_fno_layer_against_direct_sums():
    rng = np.random.default_rng(4)
    G, S, D, N, K = 2, 2, 3, 8, 3
    z = rng.standard_normal((G, S, D, N))
    W = rng.standard_normal((G, D, D))
    R = _complex(rng, (G, K, D, D))
    R[:, 0] = R[:, 0].real
    b = rng.standard_normal((G, D))
    for act, f in (("tanh", np.tanh), ("relu", lambda v: np.where(v > 0, v, 0.0))):
        a = f(z)
        expected = _direct_spectral(a, R) + b[:, None, :, None]
        for g in range(G):
            for s in range(S):
                expected[g, s] += W[g] @ a[g, s]
        np.testing.assert_allclose(fno_layer(z, W, R, b, act), expected, atol=1e-12)


# --- weight draws ----------------------------------------------------------------------------------------


def test_draw_layer_shapes_and_dtypes():
    rng = np.random.default_rng(0)
    W, R, b = draw_layer(rng, 3, 5, 2, np.ones(3), np.ones(3), 0.1)
    assert W.shape == (3, 5, 5) and W.dtype == np.float64
    assert R.shape == (3, 2, 5, 5) and R.dtype == np.complex128
    assert b.shape == (3, 5) and b.dtype == np.float64


def test_draw_layer_statistics():
    rng = np.random.default_rng(5)
    G, D, K = 2, 200, 3
    sw2 = np.array([0.5, 2.0])
    sr2 = np.array([1.5, 0.25])
    W, R, b = draw_layer(rng, G, D, K, sw2, sr2, 0.3)
    for g in range(G):
        assert np.mean(W[g]) == pytest.approx(0.0, abs=0.02 * np.sqrt(sw2[g] / D))
        assert np.var(W[g]) == pytest.approx(sw2[g] / D, rel=0.05)
        for k in range(K):
            r = R[g, k]
            assert np.mean(np.abs(r) ** 2) == pytest.approx(sr2[g] / D, rel=0.05)
            if k >= 1:   # circular: real and imaginary parts share the variance, E[R²] = 0
                assert np.var(r.real) == pytest.approx(sr2[g] / (2 * D), rel=0.05)
                assert np.var(r.imag) == pytest.approx(sr2[g] / (2 * D), rel=0.05)
                assert abs(np.mean(r**2)) < 0.05 * sr2[g] / D
        assert np.all(R[g, 0].imag == 0.0)
    # b ~ N(0, σ_b²): many networks with a small width give enough samples
    _, _, b = draw_layer(rng, 1000, 10, 1, np.ones(1000), np.ones(1000), 0.3)
    assert np.var(b) == pytest.approx(0.3, rel=0.05)
    assert np.mean(b) == pytest.approx(0.0, abs=0.02)


def test_draw_layer_zero_pointwise_variance():
    rng = np.random.default_rng(6)
    W, R, b = draw_layer(rng, 2, 4, 2, np.zeros(2), np.ones(2), 0.0)
    assert np.all(W == 0.0) and np.all(b == 0.0)
    assert np.all(np.abs(R[:, 1]) > 0)


# --- variance split and argument checks ------------------------------------------------------------------


def test_split_sigma2():
    assert split_sigma2(2.0) == (1.0, 1.0)
    assert split_sigma2(3.0, "with_w") == (1.5, 1.5)
    assert split_sigma2(3.0, "spectral") == (0.0, 3.0)


@pytest.mark.parametrize("bad", [0.0, -1.0, np.inf, np.nan])
def test_split_sigma2_rejects_nonpositive(bad):
    with pytest.raises(ValueError, match="sigma2"):
        split_sigma2(bad)


def test_split_sigma2_rejects_unknown_variant():
    with pytest.raises(ValueError, match="variant"):
        split_sigma2(1.0, "both")


def test_check_modes():
    assert check_modes(1, 8) == 1
    assert check_modes(np.int64(4), 8) == 4
    for bad in (0, 5, -1):
        with pytest.raises(ValueError, match="N/2 = 4"):
            check_modes(bad, 8)
    for bad in (2.0, True, "2"):
        with pytest.raises(TypeError):
            check_modes(bad, 8)


def test_check_positive_and_nonnegative():
    assert check_positive("x", 2) == 2.0
    assert check_nonnegative("x", 0) == 0.0
    with pytest.raises(ValueError, match="nu"):
        check_positive("nu", 0)
    with pytest.raises(ValueError, match="sigma_b2"):
        check_nonnegative("sigma_b2", -1e-9)
    with pytest.raises(ValueError):
        check_nonnegative("s", np.nan)


def test_phi():
    z = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
    np.testing.assert_array_equal(phi(z, "relu"), [0.0, 0.0, 0.0, 0.5, 2.0])
    np.testing.assert_allclose(phi(z, "tanh"), [np.tanh(v) for v in z], rtol=1e-15)
    with pytest.raises(ValueError, match="activation"):
        phi(z, "gelu")
    with pytest.raises(ValueError, match="activation"):
        check_activation("Tanh")


# --- the torch layer agrees with the NumPy layer ---------------------------------------------------------


@pytest.mark.parametrize("activation", ["relu", "tanh"])
@pytest.mark.parametrize("variant", ["with_w", "spectral"])
def test_torch_spectral_layer_matches_numpy(activation, variant):
    from neurips24.fno.model import DeepFNO, init_gaussian_

    D, N, K, B = 5, 16, 4, 3
    gen = torch.Generator().manual_seed(7)
    model = init_gaussian_(DeepFNO(2, D, K, N, activation), 2.0, 0.2, variant, gen)
    z = torch.randn(B, D, N, dtype=torch.float64, generator=gen)
    for layer in model.layers:
        with torch.no_grad():
            out_torch = layer(z).numpy()
        W = layer.W.detach().numpy()[None]
        R = (layer.R_re.detach().numpy() + 1j * layer.R_im.detach().numpy())[None]
        b = layer.b.detach().numpy()[None]
        out_np = fno_layer(z.numpy()[None], W, R, b, activation)[0]
        np.testing.assert_allclose(out_torch, out_np, rtol=1e-12, atol=1e-12)
        z = torch.from_numpy(out_np)
