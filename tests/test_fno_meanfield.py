"""The mean-field theory (meanfield.py) against closed forms, quadrature, direct sums and Monte Carlo."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate

from neurips24.fno.experiment import two_inputs
from neurips24.fno.layer import split_sigma2
from neurips24.fno.meanfield import (
    chi,
    correlation_recursion,
    gaussian_pair_expectation,
    lag_average,
    low_pass,
)
from neurips24.fno.montecarlo import empirical_correlation, simulate_correlation


def arccos_kernel(q1, q2, cov):
    """E[relu(u) relu(v)] in closed form (Cho & Saul's arc-cosine kernel of degree 1)."""
    rho = np.clip(cov / np.sqrt(q1 * q2), -1.0, 1.0)
    theta = np.arccos(rho)
    return np.sqrt(q1 * q2) / (2 * np.pi) * (np.sin(theta) + (np.pi - theta) * np.cos(theta))


def tanh_pair_dblquad(q1, q2, cov):
    """E[tanh(u) tanh(v)] by adaptive 2-D quadrature over standard normals (scipy)."""
    rho = cov / np.sqrt(q1 * q2)
    s = np.sqrt(1 - rho**2)

    def f(z2, z1):
        return (np.tanh(np.sqrt(q1) * z1) * np.tanh(np.sqrt(q2) * (rho * z1 + s * z2))
                * np.exp(-(z1**2 + z2**2) / 2) / (2 * np.pi))

    return integrate.dblquad(f, -9, 9, -9, 9, epsabs=1e-11, epsrel=1e-10)[0]


def _inputs(N=16):
    x = np.arange(N) / N
    return np.stack([np.sin(2 * np.pi * x) + 0.4 * np.cos(6 * np.pi * x),
                     np.cos(2 * np.pi * x + 0.3) - 0.2 * np.sin(4 * np.pi * x)])


# --- Gaussian expectations -------------------------------------------------------------------------------


@pytest.mark.parametrize(("q1", "q2"), [(1.0, 1.0), (0.5, 2.0), (3.0, 0.7)])
def test_relu_pair_expectation_against_arccos_kernel(q1, q2):
    rho = np.array([-1.0, -0.9, -0.3, 0.0, 0.5, 0.9, 0.99, 1.0])
    cov = rho * np.sqrt(q1 * q2)
    got = gaussian_pair_expectation(q1, q2, cov, "relu")
    exact = arccos_kernel(q1, q2, cov)
    assert got.shape == cov.shape
    # Gauss–Hermite converges only like 1/n on the ReLU kink: with the default 48 nodes the error is
    # up to ~1.7% of sqrt(q1 q2)/(2π) (at rho = 0); at rho = ±1 the node symmetry makes it exact.
    np.testing.assert_allclose(got, exact, atol=0.02 * np.sqrt(q1 * q2) / (2 * np.pi))
    np.testing.assert_allclose(got[[0, -1]], exact[[0, -1]], atol=1e-12)


def test_relu_pair_expectation_converges_with_more_nodes():
    exact = arccos_kernel(1.0, 1.0, 0.3)
    errors = [abs(gaussian_pair_expectation(1.0, 1.0, 0.3, "relu", n_quad=n) - exact) for n in (48, 96, 192)]
    assert errors[2] < errors[1] < errors[0]
    assert errors[2] < 1e-3


@pytest.mark.parametrize(("q1", "q2", "cov"), [(1.0, 1.0, 0.5), (0.3, 2.0, -0.4), (2.0, 2.0, 1.9)])
def test_tanh_pair_expectation_against_dblquad(q1, q2, cov):
    got = gaussian_pair_expectation(q1, q2, cov, "tanh")
    assert got == pytest.approx(tanh_pair_dblquad(q1, q2, cov), abs=1e-5)


def test_tanh_pair_expectation_against_monte_carlo():
    rng = np.random.default_rng(0)
    q1, q2, cov = 1.5, 0.8, 0.6
    uv = rng.multivariate_normal([0, 0], [[q1, cov], [cov, q2]], size=1_000_000)
    mc = np.mean(np.tanh(uv[:, 0]) * np.tanh(uv[:, 1]))
    assert gaussian_pair_expectation(q1, q2, cov, "tanh") == pytest.approx(mc, abs=3e-3)


def test_pair_expectation_keeps_array_shape_and_rejects_activation():
    cov = np.full((2, 3), 0.2)
    assert gaussian_pair_expectation(1.0, 1.0, cov, "tanh").shape == (2, 3)
    with pytest.raises(ValueError, match="activation"):
        gaussian_pair_expectation(1.0, 1.0, 0.2, "sigmoid")


# --- low-pass filter and lag average ---------------------------------------------------------------------


def _low_pass_direct(C, K):
    N = C.size
    C_hat = [np.sum(C * np.exp(-2j * np.pi * k * np.arange(N) / N)) for k in range(-(K - 1), K)]
    out = np.zeros(N, dtype=complex)
    for idx, k in enumerate(range(-(K - 1), K)):
        out += C_hat[idx] * np.exp(2j * np.pi * k * np.arange(N) / N)
    return (out / N).real


@pytest.mark.parametrize(("N", "K"), [(8, 1), (8, 3), (10, 5), (16, 8), (17, 4)])
def test_low_pass_against_direct_sum(N, K):
    C = np.random.default_rng(N + K).standard_normal(N)
    np.testing.assert_allclose(low_pass(C, K), _low_pass_direct(C, K), atol=1e-13)


def test_low_pass_half_grid_removes_only_nyquist_and_is_idempotent():
    rng = np.random.default_rng(1)
    N = 12
    C = rng.standard_normal((3, N))
    alt = (-1.0) ** np.arange(N)
    expected = C - np.mean(C * alt, axis=-1, keepdims=True) * alt
    np.testing.assert_allclose(low_pass(C, N // 2), expected, atol=1e-14)
    for K in (1, 3, 6):
        once = low_pass(C, K)
        np.testing.assert_allclose(low_pass(once, K), once, atol=1e-14)
    with pytest.raises(ValueError):
        low_pass(C, 7)
    with pytest.raises(ValueError):
        low_pass(C, 0)


def test_lag_average_against_double_loop():
    rng = np.random.default_rng(2)
    N = 9
    a, b = rng.standard_normal(N), rng.standard_normal(N)
    expected = np.array([sum(a[x] * b[(x + r) % N] for x in range(N)) / N for r in range(N)])
    np.testing.assert_allclose(lag_average(a, b), expected, atol=1e-14)
    # batched over leading axes
    A, B = rng.standard_normal((2, 3, N)), rng.standard_normal((2, 3, N))
    out = lag_average(A, B)
    assert out.shape == (2, 3, N)
    np.testing.assert_allclose(out[1, 2], lag_average(A[1, 2], B[1, 2]), atol=1e-14)


# --- the correlation recursion ---------------------------------------------------------------------------


def test_correlation_recursion_layer_zero_is_input_correlation():
    u = _inputs(16)
    c, q, kappa = correlation_recursion(u, sigma_w2=1.0, sigma_r2=1.0, sigma_b2=0.1, n_modes=4, depth=3,
                                        activation="tanh")
    assert c.shape == (4,) and q.shape == (4,) and kappa.shape == (3, 16)
    assert c[0] == pytest.approx(np.dot(u[0], u[1]) / np.sqrt(np.dot(u[0], u[0]) * np.dot(u[1], u[1])),
                                 rel=1e-13)
    assert q[0] == pytest.approx(np.mean(u[0] ** 2), rel=1e-13)
    assert np.all(np.abs(c) <= 1 + 1e-12)


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_identical_inputs_stay_perfectly_correlated(activation):
    u = np.stack([_inputs(16)[0]] * 2)
    c, _, _ = correlation_recursion(u, sigma_w2=0.7, sigma_r2=1.3, sigma_b2=0.05, n_modes=3, depth=5,
                                    activation=activation)
    np.testing.assert_allclose(c, 1.0, atol=1e-12)


def test_first_layer_variance_closed_form_relu_spectral():
    """Layer 1 follows exactly from the inputs: q_1 = σ_r² (mean φ(u)² − Nyquist part) for K = N/2, σ_w² = 0."""
    N = 16
    u = _inputs(N)
    sigma_r2 = 1.7
    c, q, _ = correlation_recursion(u, sigma_w2=0.0, sigma_r2=sigma_r2, sigma_b2=0.0, n_modes=N // 2, depth=1,
                                    activation="relu")
    a = np.maximum(u, 0.0)
    alt = (-1.0) ** np.arange(N)
    nyq = np.mean(a * alt, axis=1)                           # Nyquist amplitude of each input
    kaa = sigma_r2 * (np.mean(a[0] ** 2) - nyq[0] ** 2)
    kbb = sigma_r2 * (np.mean(a[1] ** 2) - nyq[1] ** 2)
    kab = sigma_r2 * (np.mean(a[0] * a[1]) - nyq[0] * nyq[1])
    assert q[1] == pytest.approx(kaa, rel=1e-12)
    assert c[1] == pytest.approx(kab / np.sqrt(kaa * kbb), rel=1e-12)


def test_first_layer_variance_with_both_paths_and_bias():
    """q_1 = σ_w² mean φ(u)² + σ_r² (DC and kept modes of φ(u)) + σ_b², computed by a direct DFT."""
    N, K = 16, 3
    u = _inputs(N)
    sw2, sr2, sb2 = 0.6, 1.1, 0.2
    _, q, _ = correlation_recursion(u, sigma_w2=sw2, sigma_r2=sr2, sigma_b2=sb2, n_modes=K, depth=1,
                                    activation="tanh")
    a = np.tanh(u[0])
    x = np.arange(N)
    a_hat = np.array([np.sum(a * np.exp(-2j * np.pi * k * x / N)) for k in range(K)])
    kept = (abs(a_hat[0]) ** 2 + 2 * np.sum(np.abs(a_hat[1:]) ** 2)) / N**2
    assert q[1] == pytest.approx(sw2 * np.mean(a**2) + sr2 * kept + sb2, rel=1e-12)


def test_first_layer_variance_against_monte_carlo():
    u = _inputs(16)
    sw2, sr2 = split_sigma2(2.0, "spectral")
    _, q_mf, _ = correlation_recursion(u, sigma_w2=sw2, sigma_r2=sr2, sigma_b2=0.0, n_modes=8, depth=1,
                                       activation="relu")
    # Layer 1 is exact in expectation at any width, so many narrow networks estimate q_1 as well as a few wide
    # ones at a fraction of the memory (R is G·K·D²): 256 networks of width 32 give a ~0.7% standard error.
    _, q_mc = simulate_correlation(u, [2.0], n_modes=8, depth=1, width=32, activation="relu", sigma_b2=0.0,
                                   variant="spectral", n_seeds=256, seed=3, device="cpu")
    assert q_mc[0, :, 1].mean() == pytest.approx(q_mf[1], rel=0.03)


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(u=np.zeros((3, 16))), "shape"),
    (dict(u=np.zeros(16)), "shape"),
    (dict(depth=0), "depth"),
    (dict(n_modes=9), "N/2"),
    (dict(sigma_b2=-0.1), "sigma_b2"),
    (dict(sigma_w2=-1.0), "sigma_w2"),
    (dict(sigma_w2=0.0, sigma_r2=0.0), "sigma_w2 \\+ sigma_r2"),
    (dict(activation="gelu"), "activation"),
])
def test_correlation_recursion_errors(kwargs, match):
    args = dict(u=_inputs(16), sigma_w2=1.0, sigma_r2=1.0, sigma_b2=0.1, n_modes=4, depth=2, activation="tanh")
    args.update(kwargs)
    u = args.pop("u")
    with pytest.raises(ValueError, match=match):
        correlation_recursion(u, **args)


def test_mean_field_agrees_with_monte_carlo():
    """Finite random tanh FNOs (width 256) against the derived recursion, at layer 6.

    Over many seeds, the Monte Carlo c_6 sits ~0.02 above the recursion at σ² = 3 (finite width, and the lag
    form is an approximation when σ_w² > 0) with a spread of ~0.014 for two networks; the seed is fixed.
    """
    u = two_inputs(64)
    sigma2 = [1.0, 3.0]
    c_mc, q_mc = simulate_correlation(u, sigma2, n_modes=8, depth=6, width=256, activation="tanh",
                                      sigma_b2=0.05, variant="with_w", n_seeds=2, seed=0, device="cpu")
    assert c_mc.shape == (2, 2, 7) and q_mc.shape == (2, 2, 7)
    for i, s in enumerate(sigma2):
        sw2, sr2 = split_sigma2(s, "with_w")
        c_mf, q_mf, _ = correlation_recursion(u, sigma_w2=sw2, sigma_r2=sr2, sigma_b2=0.05, n_modes=8, depth=6,
                                              activation="tanh")
        np.testing.assert_allclose(c_mc[i, :, 0], c_mf[0], rtol=1e-12)    # the same inputs
        assert abs(c_mc[i, :, 6].mean() - c_mf[6]) < 0.05
        assert q_mc[i, :, 6].mean() == pytest.approx(q_mf[6], rel=0.15)


def test_empirical_correlation_hand_case():
    z = np.zeros((1, 2, 2, 2))
    z[0, 0] = [[1.0, 2.0], [0.0, -1.0]]
    z[0, 1] = [[1.0, 0.0], [2.0, -1.0]]
    c, q = empirical_correlation(z)
    # κ̂αα = (1 + 4 + 0 + 1)/4, κ̂ββ = (1 + 0 + 4 + 1)/4, κ̂αβ = (1 + 0 + 0 + 1)/4
    assert q[0] == pytest.approx(1.5)
    assert c[0] == pytest.approx(0.5 / 1.5)


def test_simulate_correlation_errors():
    u = _inputs(16)
    with pytest.raises(ValueError, match="shape"):
        simulate_correlation(u[0], [1.0], n_modes=2, depth=1, width=4, device="cpu")
    with pytest.raises(ValueError, match="width"):
        simulate_correlation(u, [1.0], n_modes=2, depth=1, width=0, device="cpu")
    with pytest.raises(ValueError, match="depth"):
        simulate_correlation(u, [1.0], n_modes=2, depth=0, width=4, device="cpu")
    with pytest.raises(ValueError, match="n_seeds"):
        simulate_correlation(u, [1.0], n_modes=2, depth=1, width=4, n_seeds=0, device="cpu")
    with pytest.raises(ValueError, match="sigma2"):
        simulate_correlation(u, [1.0, -1.0], n_modes=2, depth=1, width=4, device="cpu")
    with pytest.raises(ValueError, match="N/2"):
        simulate_correlation(u, [1.0], n_modes=9, depth=1, width=4, device="cpu")


def test_simulate_correlation_is_reproducible_per_seed():
    u = _inputs(16)
    kw = dict(n_modes=3, depth=2, width=8, n_seeds=2, device="cpu")
    a = simulate_correlation(u, [1.0, 2.0], seed=5, **kw)
    b = simulate_correlation(u, [1.0, 2.0], seed=5, **kw)
    c = simulate_correlation(u, [1.0, 2.0], seed=6, **kw)
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[0][..., 1:], c[0][..., 1:])


# --- gradient gain χ -------------------------------------------------------------------------------------


@pytest.mark.parametrize("q", [1e-3, 0.5, 2.0, 40.0])
def test_chi_relu_exact(q):
    assert chi("relu", 0.8, 1.4, q) == pytest.approx((0.8 + 1.4) / 2, rel=1e-15)


def test_chi_tanh_small_q_is_total_variance():
    assert chi("tanh", 0.8, 1.4, 1e-8) == pytest.approx(2.2, rel=1e-6)


# Gauss–Hermite with 48 nodes loses accuracy as q grows (sech² has poles at ±iπ/(2√q)): the relative error
# is ~1e-15 at q = 0.1, ~4e-6 at q = 1 and ~4e-3 at q = 3.
@pytest.mark.parametrize(("q", "rel"), [(0.1, 1e-12), (1.0, 1e-5), (3.0, 6e-3)])
def test_chi_tanh_against_scipy_quad(q, rel):
    def integrand(z):   # sech(x)^4 = (2 / (e^x + e^-x))^4, written without overflow
        log_sech = np.log(2.0) - np.logaddexp(np.sqrt(q) * z, -np.sqrt(q) * z)
        return np.exp(4 * log_sech - z * z / 2) / np.sqrt(2 * np.pi)

    expected = (0.5 + 1.5) * integrate.quad(integrand, -12, 12, epsabs=1e-14, limit=200)[0]
    assert chi("tanh", 0.5, 1.5, q) == pytest.approx(expected, rel=rel)
    assert chi("tanh", 0.5, 1.5, q, n_quad=150) == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize("q", [0.0, -1.0, np.nan])
def test_chi_rejects_nonpositive_q(q):
    with pytest.raises(ValueError, match="q"):
        chi("tanh", 1.0, 1.0, q)


def test_chi_rejects_bad_arguments():
    with pytest.raises(ValueError, match="activation"):
        chi("gelu", 1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="sigma_r2"):
        chi("relu", 1.0, -1.0, 1.0)
