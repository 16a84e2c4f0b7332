"""Detectability tables (dlq.tables): basis functions, the exact correlations, the Monte Carlo reduction."""
from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.polynomial.hermite_e import hermegauss
from scipy import integrate, stats

from neurips24.dlq.junta import make_junta
from neurips24.dlq.queries import query_transforms
from neurips24.dlq.tables import (
    bonferroni_z,
    correlation_table,
    exact_correlation,
    features,
    reduce_chunk,
    support_subsets,
)


def _kappa_he2(p):
    """E[He2(x)/sqrt 2 · 1(|x| > c_p)] by quadrature (SciPy), independent of the closed form in the module."""
    c = stats.norm.isf(p / 2)
    val, _ = integrate.quad(lambda x: (x * x - 1) / math.sqrt(2) * stats.norm.pdf(x), c, np.inf)
    return 2 * val


def test_gaussian_features_are_orthonormal():
    x, w = hermegauss(40)
    w = w / w.sum()                                        # probabilists' Gauss-Hermite: E under N(0, 1)
    j = make_junta(1, (0,), "gaussian")
    F = features(j, x[:, None])[:, :, 0]                  # (n, 2)
    np.testing.assert_allclose(F.T @ (F * w[:, None]), np.eye(2), atol=1e-12)
    np.testing.assert_allclose(w @ F, 0, atol=1e-12)


def test_boolean_feature_is_standardised():
    j = make_junta(1, (0,), "boolean", 0.2)
    z = np.array([2.0, -0.5])                              # (±1 + 0.6) / 0.8
    probs = np.array([0.2, 0.8])
    F = features(j, z[:, None])[:, 0, 0]
    assert probs @ F == pytest.approx(0) and probs @ F ** 2 == pytest.approx(1)


@pytest.mark.parametrize("p", [0.2, 0.35])
def test_exact_correlations_against_quadrature(p):
    j = make_junta(8, (0, 1, 2), "gaussian", p)
    sd = math.sqrt(p * (1 - p))
    kappa = _kappa_he2(p)
    # CSQ on the whole support: E[y Π He2/√2] = (κ / sd)^3; on fewer coordinates: 0
    assert exact_correlation(j, lambda y: y, (0, 1, 2)) == pytest.approx((kappa / sd) ** 3, rel=1e-7)
    assert exact_correlation(j, lambda y: y, (0, 1)) == pytest.approx(0, abs=1e-12)
    # l1 at u = 0: sign(-y) = -Π s_i with s_i = ±1 for β_i = 1/0: -E[s ψ] E[s]^2 = -2κ (2p - 1)^2
    assert exact_correlation(j, np.sign, (0,)) == pytest.approx(2 * kappa * (2 * p - 1) ** 2, rel=1e-7)
    # He1 sees nothing (the bits are even in x); a coordinate outside S* sees nothing
    assert exact_correlation(j, np.sign, (0,), feature=0) == 0.0
    assert exact_correlation(j, np.sign, (5,)) == 0.0


def test_exact_correlation_boolean_closed_form():
    p = 0.2
    j = make_junta(5, (0, 1, 2), "boolean", p)
    # E[y z1 z2 z3] = 1 (each factor equals z_i); E[sign(-y) z1] = -sqrt(p(1-p)) * 2 * (2p - 1)^2 / sqrt(p(1-p))
    assert exact_correlation(j, lambda y: y, (0, 1, 2)) == pytest.approx(1.0)
    assert exact_correlation(j, lambda y: -np.sign(y), (0,)) == pytest.approx(-2 * math.sqrt(p * (1 - p))
                                                                               * (2 * p - 1) ** 2)


def test_reduce_chunk_against_loops():
    rng = np.random.default_rng(0)
    n, Fk, d, K = 7, 2, 4, 3
    T, F = rng.normal(size=(n, K)), rng.normal(size=(n, Fk, d))
    out = reduce_chunk(T, F, pair_columns=(2, 0), pair_feature=1, subsets=[(0,), (1, 3)])
    for a in range(K):
        for k in range(Fk):
            for i in range(d):
                assert out["single"][a, k, i] == pytest.approx(sum(T[s, a] * F[s, k, i] for s in range(n)))
                assert out["single_sq"][a, k, i] == pytest.approx(sum((T[s, a] * F[s, k, i]) ** 2 for s in range(n)))
            assert out["subset"][a, k, 1] == pytest.approx(sum(T[s, a] * F[s, k, 1] * F[s, k, 3] for s in range(n)))
    for c, a in enumerate((2, 0)):
        for i in range(d):
            for jj in range(d):
                assert out["pair"][c, i, jj] == pytest.approx(sum(T[s, a] * F[s, 1, i] * F[s, 1, jj] for s in range(n)))
    assert out["n"] == n and out["pair_sq"].shape == (2, d, d)


@pytest.mark.parametrize("inputs", ["gaussian", "boolean"])
def test_monte_carlo_table_agrees_with_exact_values(inputs):
    j = make_junta(6, (0, 2, 3), inputs, 0.2)

    def transform(y):
        return np.hstack([query_transforms("csq", y)[0], query_transforms("dlq", y, loss="l1")[0]])

    tab = correlation_table(j, transform, ["y", "l1"], 2 ** 17, seed=5, chunk=2 ** 14, pair_columns=(1,))
    assert tab.single.shape == (2, len(tab.feature_names), 6) and tab.pair.shape == (1, 6, 6)
    assert np.all(np.isnan(np.diag(tab.pair[0])))
    assert tab.subsets == support_subsets((0, 2, 3)) and len(tab.subsets) == 7
    for a, T in enumerate((lambda y: y, lambda y: np.sign(-y))):
        for jU, U in enumerate(tab.subsets):
            exact = exact_correlation(j, T, U)
            assert abs(tab.subset[a, -1, jU] - exact) < 4.5 * tab.subset_se[a, -1, jU], (a, U)
        # coordinates 1, 4, 5 are irrelevant: their single entries are zero within the Monte Carlo error
        assert np.all(np.abs(tab.single[a, :, [1, 4, 5]]) < 4.5 * tab.single_se[a, :, [1, 4, 5]])
    assert tab.chunk_single.shape[-1] == 8
    np.testing.assert_allclose(tab.chunk_single.mean(-1), tab.single, atol=1e-12)
    assert tab.detectable(["l1"], 5.0) == tab.subsets
    assert tab.detectable(["y"], 5.0) == [(0, 2, 3)]


def test_table_errors():
    j = make_junta(4)

    def good(y):
        return y[:, None]

    with pytest.raises(ValueError, match="n_samples"):
        correlation_table(j, good, ["y"], 1)
    with pytest.raises(ValueError, match="chunk"):
        correlation_table(j, good, ["y"], 100, chunk=0)
    with pytest.raises(ValueError, match="pair_columns"):
        correlation_table(j, good, ["y"], 100, pair_columns=(1,))
    with pytest.raises(ValueError, match="pair_feature"):
        correlation_table(j, good, ["y"], 100, pair_feature=2)
    with pytest.raises(ValueError, match="shape"):
        correlation_table(j, lambda y: np.column_stack([y, y]), ["y"], 100)
    with pytest.raises(ValueError, match="finite"):
        correlation_table(j, lambda y: np.full((len(y), 1), np.nan), ["y"], 100)
    tab = correlation_table(j, good, ["y"], 100)
    with pytest.raises(ValueError, match="no transform"):
        tab.column("sign")
    with pytest.raises(ValueError, match="no pair table"):
        tab.t_pair("y")
    with pytest.raises(ValueError, match="U must be"):
        exact_correlation(j, good, (0, 0))
    with pytest.raises(ValueError, match="feature"):
        exact_correlation(j, good, (0,), feature=3)
    with pytest.raises(ValueError, match="shape"):
        features(j, np.zeros((2, 3)))


def test_bonferroni_threshold():
    z = bonferroni_z(1000, 0.01)
    assert 1000 * 2 * stats.norm.sf(z) == pytest.approx(0.01)
    assert 1 - (1 - 2 * stats.norm.sf(z)) ** 1000 <= 0.01
    with pytest.raises(ValueError, match="n_tests"):
        bonferroni_z(0)
    with pytest.raises(ValueError, match="level"):
        bonferroni_z(10, 1.5)
