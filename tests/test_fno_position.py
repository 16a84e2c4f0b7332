"""Position-resolved forward mean field: against Monte Carlo of the actual FNO layer, and its exact limits."""
import numpy as np
import pytest

from neurips24.fno.layer import draw_layer, fno_layer
from neurips24.fno.meanfield import correlation_recursion, gaussian_pair_expectation
from neurips24.fno.position import (
    lag_to_matrix,
    pair_expectation_matrix,
    position_covariance,
    spatial_correlation,
)

N = 16
U = np.sin(2 * np.pi * np.arange(N) / N) + 0.5 * np.cos(6 * np.pi * np.arange(N) / N)
KW = dict(sigma_w2=1.0, sigma_r2=1.0, sigma_b2=0.05, n_modes=2)


def monte_carlo(depth, G=32, D=128, seed=1):
    """Σ̂^l(x, y): channel- and network-averaged Z_c(x) Z_c(y) of G random FNOs, constant lifting Z^0_c = u."""
    rng = np.random.default_rng(seed)
    z = np.broadcast_to(U[None, None, None, :], (G, 1, D, N)).copy()
    out = []
    for _ in range(depth):
        W, R, b = draw_layer(rng, G, D, KW["n_modes"], np.full(G, KW["sigma_w2"]), np.full(G, KW["sigma_r2"]),
                             KW["sigma_b2"])
        z = fno_layer(z, W, R, b, "tanh")
        out.append(np.einsum("gscx,gscy->xy", z, z) / (G * D))
    return np.array(out)


def test_position_resolved_matches_monte_carlo_and_lag_average_does_not():
    depth = 3
    sigma = position_covariance(U, **KW, depth=depth, activation="tanh")
    est = monte_carlo(depth)
    lag = np.array([lag_to_matrix(correlation_recursion(np.stack([U, U]), **KW, depth=l, activation="tanh")[2][0])
                    for l in range(1, depth + 1)])
    scale = sigma.max()
    err_pos = np.abs(est - sigma).max(axis=(1, 2)) / scale
    err_lag = np.abs(est - lag).max(axis=(1, 2)) / scale
    assert np.all(err_pos < 0.06)            # finite width (G·D = 4096 channels): a few per cent
    assert np.all(err_lag > 2 * err_pos)     # the position average misses by much more (control)


def test_pure_spectral_is_the_lag_recursion():
    kw = dict(KW, sigma_w2=0.0, sigma_r2=2.0)
    sigma = position_covariance(U, **kw, depth=4, activation="tanh", n_quad=48)
    for layer in range(1, 5):
        kappa = correlation_recursion(np.stack([U, U]), **kw, depth=layer, activation="tanh")[2][0]
        np.testing.assert_allclose(sigma[layer - 1], lag_to_matrix(kappa), atol=1e-12)


def test_pair_expectation_matrix_against_scalar_quadrature():
    rng = np.random.default_rng(0)
    A = rng.standard_normal((5, 8))
    sigma = A @ A.T / 8 + 0.1 * np.eye(5)
    C = pair_expectation_matrix(sigma, "tanh", n_quad=40)
    for x, y in [(0, 0), (1, 3), (4, 2)]:
        ref = gaussian_pair_expectation(sigma[x, x], sigma[y, y], sigma[x, y], "tanh", 40)
        assert C[x, y] == pytest.approx(float(ref), abs=1e-12)
    # ReLU on the diagonal: E[relu(a)²] = Σ(x, x)/2 exactly
    np.testing.assert_allclose(np.diag(pair_expectation_matrix(sigma, "relu", n_quad=60)), np.diag(sigma) / 2,
                               rtol=1e-3)


def test_spatial_correlation_has_unit_diagonal():
    sigma = position_covariance(U, **KW, depth=2)
    rho = spatial_correlation(sigma)
    np.testing.assert_allclose(np.diagonal(rho, axis1=-2, axis2=-1), 1.0)
    assert np.all(np.abs(rho) <= 1 + 1e-12)


@pytest.mark.parametrize("kw, err, word", [
    (dict(u=np.ones((2, N))), ValueError, "u"),
    (dict(u=np.r_[U[:-1], np.nan]), ValueError, "u"),
    (dict(sigma_w2=-1.0), ValueError, "sigma_w2"),
    (dict(sigma_b2=np.inf), ValueError, "sigma_b2"),
    (dict(sigma_w2=0.0, sigma_r2=0.0), ValueError, "sigma_w2"),
    (dict(n_modes=N), ValueError, "n_modes"),
    (dict(depth=0), ValueError, "depth"),
    (dict(depth=2.0), TypeError, "depth"),
    (dict(activation="gelu"), ValueError, "activation"),
    (dict(n_quad=1), ValueError, "n_quad"),
])
def test_position_covariance_rejects_bad_input(kw, err, word):
    args = dict(dict(u=U, **KW, depth=2), **kw)
    with pytest.raises(err, match=word):
        position_covariance(args.pop("u"), **args)
