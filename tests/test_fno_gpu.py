"""The CUDA kernel and the CuPy path against their NumPy references (skipped without a GPU)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.fno.layer import mode_mix, mode_mix_reference, spectral_conv
from neurips24.fno.montecarlo import simulate_correlation

pytestmark = pytest.mark.gpu


def _complex(rng, shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


@pytest.mark.parametrize(("G", "S", "D", "K"), [(2, 1, 3, 2), (3, 2, 17, 5), (2, 2, 64, 8)])
def test_mode_mix_kernel_matches_reference(G, S, D, K):
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(G * 100 + D)
    a_hat = _complex(rng, (G, S, D, K))
    R = _complex(rng, (G, K, D, D))
    out = mode_mix(cupy.asarray(a_hat), cupy.asarray(R))
    assert isinstance(out, cupy.ndarray)
    np.testing.assert_allclose(out.get(), mode_mix_reference(a_hat, R), rtol=1e-12, atol=1e-12)


def test_mode_mix_kernel_rejects_mismatched_weights():
    cupy = pytest.importorskip("cupy")
    a_hat = cupy.zeros((1, 1, 3, 2), dtype=cupy.complex128)
    with pytest.raises(ValueError, match="R must have shape"):
        mode_mix(a_hat, cupy.zeros((1, 2, 4, 4), dtype=cupy.complex128))


def test_spectral_conv_cupy_matches_numpy():
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(1)
    G, S, D, N, K = 2, 2, 8, 32, 6
    a = rng.standard_normal((G, S, D, N))
    R = _complex(rng, (G, K, D, D))
    R[:, 0] = R[:, 0].real
    out = spectral_conv(cupy.asarray(a), cupy.asarray(R))
    np.testing.assert_allclose(out.get(), spectral_conv(a, R), rtol=1e-12, atol=1e-12)


def test_simulate_correlation_on_gpu_runs():
    pytest.importorskip("cupy")
    x = np.arange(32) / 32
    u = np.stack([np.sin(2 * np.pi * x), np.cos(2 * np.pi * x + 0.4)])
    c, q = simulate_correlation(u, [1.0, 2.0], n_modes=4, depth=3, width=32, n_seeds=2, device="gpu")
    assert isinstance(c, np.ndarray) and c.shape == (2, 2, 4) and q.shape == (2, 2, 4)
    assert np.all(np.isfinite(c)) and np.all(np.isfinite(q)) and np.all(q > 0)
    assert np.all(np.abs(c) <= 1 + 1e-12)
