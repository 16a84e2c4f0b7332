"""The baselines' wrapper: each method's atoms, activations and reconstruction, against direct computations."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA

from neurips24.concepts import decompositions as dc
from neurips24.concepts.metrics import reconstruction_error


@pytest.fixture(scope="module")
def Z():
    rng = np.random.default_rng(0)
    U = rng.normal(size=(4, 20))
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    return np.maximum(rng.normal(size=(120, 4)), 0) * 4 @ U + 0.1 * rng.normal(size=(120, 20))


@pytest.mark.parametrize("method", dc.METHODS)
def test_shapes_and_transform(Z, method):
    d = dc.decompose(Z, 4, method, max_iter=50)
    assert d.U.shape == (4, 20) and d.V.shape == (120, 4)
    assert d.transform(Z[:7]).shape == (7, 4)
    assert d.reconstruct(Z[:7]).shape == (7, 20)
    if method in ("snmf", "dict", "nmf", "kmeans", "simple"):
        assert np.all(d.V >= 0)


def test_kmeans_and_simple_reconstruct_by_nearest_atom(Z):
    d = dc.decompose(Z, 4, "kmeans")
    km = KMeans(n_clusters=4, n_init=4, random_state=0).fit(Z)
    np.testing.assert_allclose(d.reconstruct(Z), km.cluster_centers_[km.predict(Z)], atol=1e-9)
    np.testing.assert_allclose(d.V, 1 / (1 + km.transform(Z)), atol=1e-9)
    s = dc.decompose(Z, 4, "simple")
    np.testing.assert_array_equal(s.U, Z[np.argsort(np.linalg.norm(Z, axis=1))[-4:]])


def test_pca_reconstruction_is_projection(Z):
    d = dc.decompose(Z, 4, "pca")
    p = PCA(4).fit(Z)
    np.testing.assert_allclose(d.reconstruct(Z), p.inverse_transform(p.transform(Z)), atol=1e-9)


def test_seminmf_reconstructs_better_than_kmeans_on_mixtures(Z):
    # samples mix several atoms: k-means (one atom per sample) cannot reconstruct them as well
    e_snmf = reconstruction_error(Z, dc.decompose(Z, 4, "snmf", alpha=0.1).reconstruct(Z))
    e_km = reconstruction_error(Z, dc.decompose(Z, 4, "kmeans").reconstruct(Z))
    assert e_snmf < 0.5 * e_km


def test_seminmf_and_sklearn_dict_reach_same_objective(Z):
    from neurips24.concepts.seminmf import objective

    a = dc.decompose(Z, 4, "snmf", max_iter=300)
    b = dc.decompose(Z, 4, "dict", max_iter=300)
    fa, fb = objective(Z, a.U, a.V, 1.0), objective(Z, b.U, b.V, 1.0)
    assert fa == pytest.approx(fb, rel=2e-2)


def test_bad_method_and_inputs(Z):
    with pytest.raises(ValueError, match="method"):
        dc.decompose(Z, 4, "ica")
    with pytest.raises(ValueError, match="K"):
        dc.decompose(Z[:3], 4, "pca")
    with pytest.raises(ValueError, match="NaN"):
        dc.decompose(np.where(np.eye(120, 20) > 0, np.nan, Z), 4, "kmeans")
    d = dc.decompose(Z, 4, "pca")
    with pytest.raises(ValueError, match="columns"):
        d.transform(Z[:, :5])
