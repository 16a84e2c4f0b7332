"""The lag-resolved backward recursion (backward.py): closed forms, the fully-connected limit, Monte Carlo."""
import numpy as np
import pytest
import torch

from neurips24.fno.backward import (
    edge_sigma2,
    fit_slope,
    lag_backward,
    lag_forward,
    pair_dphi,
    pair_phi,
    predicted_slope,
)
from neurips24.fno.meanfield import chi
from neurips24.fno.model import DeepFNO, init_gaussian_, input_gradient_norms


def _samples(q, rho, n=400_000, seed=0):
    rng = np.random.default_rng(seed)
    z1, z2 = rng.standard_normal((2, n))
    return np.sqrt(q) * z1, np.sqrt(q) * (rho * z1 + np.sqrt(1 - rho**2) * z2)


@pytest.mark.parametrize("rho", [-0.7, 0.0, 0.4, 0.95])
def test_pair_expectations_against_sampling(rho):
    q = 1.7
    kappa = np.array([q, rho * q])
    u, v = _samples(q, rho)
    se = 4.5 / np.sqrt(u.size)
    relu = lambda z: np.maximum(z, 0)                                   # noqa: E731
    assert pair_phi(kappa, "relu")[1] == pytest.approx(np.mean(relu(u) * relu(v)), abs=se * q)
    assert pair_dphi(kappa, "relu")[1] == pytest.approx(np.mean((u > 0) & (v > 0)), abs=se)
    assert pair_phi(kappa, "tanh")[1] == pytest.approx(np.mean(np.tanh(u) * np.tanh(v)), abs=se)
    assert pair_dphi(kappa, "tanh")[1] == pytest.approx(np.mean(np.cosh(u) ** -2 * np.cosh(v) ** -2), abs=se)


def test_relu_closed_forms_at_hand_worked_points():
    kappa = np.array([2.0, 0.0, -2.0])                                  # ρ = 1, 0, −1
    np.testing.assert_allclose(pair_dphi(kappa, "relu"), [0.5, 0.25, 0.0], atol=1e-15)
    np.testing.assert_allclose(pair_phi(kappa, "relu"), [1.0, 2.0 / (2 * np.pi), 0.0], atol=1e-15)


def test_lag_forward_first_layer_by_hand():
    """White Z⁰: C_0 = ½ at r = 0 and 1/(2π) elsewhere, then κ_1 = σ_r² P_K C_0 + σ_b² (spectral variant)."""
    N, K = 8, 2
    kappa = lag_forward(np.eye(1, N)[0], sigma_w2=0.0, sigma_r2=3.0, sigma_b2=0.1, n_modes=K, depth=1,
                        activation="relu")
    C0 = np.full(N, 1 / (2 * np.pi))
    C0[0] = 0.5
    x = np.arange(N)
    PK = np.mean(C0) + 2 * np.mean(C0 * np.cos(2 * np.pi * x / N)) * np.cos(2 * np.pi * x / N)  # modes 0, ±1
    np.testing.assert_allclose(kappa[1], 3.0 * PK + 0.1, atol=1e-14)


@pytest.mark.parametrize("activation", ["relu", "tanh"])
@pytest.mark.parametrize(("sigma_w2", "sigma_r2"), [(0.0, 1.4), (0.0, 2.6), (0.9, 1.5)])
def test_full_modes_reduce_to_fully_connected_chi(activation, sigma_w2, sigma_r2):
    """K = N/2 + 1 keeps every mode (P_K = 1): δ_l(0) / δ_{l+1}(0) = χ(q_l) of eq. (fno-chi), layer by layer."""
    N, L = 16, 6
    kw = dict(sigma_w2=sigma_w2, sigma_r2=sigma_r2, sigma_b2=0.05, n_modes=N // 2 + 1, depth=L,
              activation=activation)
    kappa = lag_forward(np.eye(1, N)[0], **kw)
    delta = lag_backward(np.eye(1, N)[0], **kw)
    gains = delta[:-1, 0] / delta[1:, 0]
    expected = [chi(activation, sigma_w2, sigma_r2, kappa[layer, 0]) for layer in range(L)]
    np.testing.assert_allclose(gains, expected, rtol=1e-10)
    if activation == "relu":
        s2 = sigma_w2 + sigma_r2
        assert predicted_slope(s2, "spectral", n_modes=N // 2 + 1, n_grid=N, depth=L) == pytest.approx(
            0.5 * np.log(s2 / 2), abs=1e-12)


def test_truncation_moves_the_edge_above_two():
    """With K < N/2 + 1 the lag-resolved edge is not the fully-connected σ² = 2 (issue 11: ≈ 2.17, K = 8, L = 20)."""
    assert edge_sigma2("with_w", n_modes=8, n_grid=64, depth=20) == pytest.approx(2.17, abs=0.01)
    assert edge_sigma2("with_w", n_modes=33, n_grid=64, depth=20) == pytest.approx(2.0, abs=1e-3)


def test_fit_slope_recovers_a_line():
    logs = 3.0 - 0.25 * np.arange(10)
    logs[-1] = 100.0                                                     # the skipped top layer
    assert fit_slope(logs, skip_top=1) == pytest.approx(0.25, abs=1e-12)


def _mc_slopes(sigma2, variant, K, N=16, D=48, L=10, B=8, seeds=6):
    out = []
    for r in range(seeds):
        gen = torch.Generator().manual_seed(100 + r)
        model = init_gaussian_(DeepFNO(L, D, K, N, "relu"), sigma2, 0.0, variant, gen)
        u = torch.randn(B, N, dtype=torch.float64, generator=gen)
        out.append(fit_slope(np.log(input_gradient_norms(model, u, gen).numpy())))
    return np.array(out)


@pytest.mark.parametrize("variant", ["spectral", "with_w"])
@pytest.mark.parametrize("sigma2", [1.0, 4.0])
def test_monte_carlo_slope_matches_lag_resolved_theory(variant, sigma2):
    """Backprop through small random FNOs (N = 16, D = 48, L = 10, K = 2) against the lag-resolved slope."""
    K, N, L = 2, 16, 10
    mc = _mc_slopes(sigma2, variant, K, N=N, L=L)
    pred = predicted_slope(sigma2, variant, n_modes=K, n_grid=N, depth=L)
    half_width = 3 * mc.std(ddof=1) / np.sqrt(mc.size) + 0.01          # noise + finite-width bias
    assert abs(mc.mean() - pred) < half_width
    if variant == "with_w":                                              # the FC ½ log χ misses here
        assert abs(mc.mean() - 0.5 * np.log(sigma2 / 2)) > half_width
