"""Semi-NMF (eq. (2)) against scikit-learn's DictionaryLearning / sparse_encode, and its bad inputs."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.decomposition import DictionaryLearning, sparse_encode

from neurips24.concepts import seminmf


def planted(M=240, D=48, K=5, noise=0.1, seed=0):
    rng = np.random.default_rng(seed)
    U = rng.normal(size=(K, D))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    V = rng.exponential(size=(M, K)) * (rng.random((M, K)) < 0.4) * 5
    return V @ U + noise * rng.normal(size=(M, D)), U, V


def test_objective_by_hand():
    Z = np.array([[1.0, 2.0], [0.0, -1.0]])
    U = np.array([[1.0, 0.0]])
    V = np.array([[0.5], [2.0]])
    # residual [[0.5, 2], [-2, -1]] -> 0.5 * (0.25 + 4 + 4 + 1) = 4.625; alpha * sum V = 0.3 * 2.5
    assert seminmf.objective(Z, U, V, 0.3) == pytest.approx(4.625 + 0.75)


def test_vstep_matches_sklearn_sparse_encode():
    Z, U, _ = planted()
    ours = seminmf.encode_nonneg(Z, U, 1.0, n_iter=3000, tol=0.0)
    ref = sparse_encode(Z, U, algorithm="lasso_cd", alpha=1.0, positive=True, max_iter=10000)
    assert np.all(ours >= 0)
    np.testing.assert_allclose(ours, ref, atol=1e-6)


def test_ustep_is_exact_block_minimiser():
    # one atom: the minimiser over the unit ball of ||R - v u||^2 is the projection of v^T R / ||v||^2
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(30, 6)) * 3
    V = np.abs(rng.normal(size=(30, 1)))
    U = seminmf.update_dictionary(Z, np.zeros((1, 6)), V)
    c = V[:, 0] @ Z / (V[:, 0] @ V[:, 0])
    np.testing.assert_allclose(U[0], c / max(1, np.linalg.norm(c)), atol=1e-12)
    # no point of the unit ball does better (random probes)
    best = np.sum((Z - V @ U) ** 2)
    for _ in range(200):
        u = rng.normal(size=6)
        u /= max(1.0, np.linalg.norm(u)) / rng.random()
        assert np.sum((Z - V @ u[None]) ** 2) >= best - 1e-9


def test_objective_matches_sklearn_dictionary_learning():
    Z, _, _ = planted()
    fit = seminmf.semi_nmf(Z, 5, alpha=1.0, n_iter=300, tol=1e-9)
    dl = DictionaryLearning(n_components=5, alpha=1.0, positive_code=True, fit_algorithm="cd",
                            transform_algorithm="lasso_cd", max_iter=1000, tol=1e-8, random_state=0)
    V = dl.fit_transform(Z)
    f_sk = seminmf.objective(Z, dl.components_, V, 1.0)
    assert fit.objective[-1] == pytest.approx(f_sk, rel=1e-3)
    assert np.all(fit.V >= 0) and np.all(np.linalg.norm(fit.U, axis=1) <= 1 + 1e-12)


def test_objective_non_increasing_and_recovers_planted_atoms():
    Z, U_true, _ = planted(noise=0.05)
    fit = seminmf.semi_nmf(Z, 5, alpha=0.5, n_iter=200, tol=0.0)
    f = np.array(fit.objective)
    assert np.all(np.diff(f) <= 1e-9 * f[0])
    cos = np.abs(fit.U @ U_true.T) / np.linalg.norm(fit.U, axis=1, keepdims=True)
    assert np.all(cos.max(axis=0) > 0.99)


def test_transform_on_fixed_dictionary():
    Z, _, _ = planted()
    fit = seminmf.semi_nmf(Z, 5, n_iter=50)
    V = fit.transform(Z[:10])
    ref = sparse_encode(Z[:10], fit.U, algorithm="lasso_cd", alpha=1.0, positive=True, max_iter=10000)
    np.testing.assert_allclose(V, ref, atol=1e-5)


@pytest.mark.parametrize("bad, err, match", [
    (np.full((4, 3), np.nan), ValueError, "NaN"),
    (np.array([[np.inf, 1.0], [0.0, 1.0]]), ValueError, "NaN or inf"),
    (np.ones(5), ValueError, "shape"),
    (np.ones((4, 3), dtype=np.int64), TypeError, "float"),
    ([[1.0, 2.0]], TypeError, "NumPy"),
])
def test_bad_representations(bad, err, match):
    with pytest.raises(err, match=match):
        seminmf.semi_nmf(bad, 1)


@pytest.mark.parametrize("K, err", [(0, ValueError), (11, ValueError), (2.0, TypeError), (True, TypeError)])
def test_bad_K(K, err):
    with pytest.raises(err, match="K"):
        seminmf.semi_nmf(np.ones((10, 3)), K)


@pytest.mark.parametrize("kw", [{"alpha": -1.0}, {"alpha": np.nan}, {"n_iter": 0}])
def test_bad_alpha_and_iterations(kw):
    with pytest.raises(ValueError, match="alpha|n_iter"):
        seminmf.semi_nmf(np.random.default_rng(0).normal(size=(10, 3)), 2, **kw)
