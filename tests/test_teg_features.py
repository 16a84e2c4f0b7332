"""PLM-based inputs (teg-plm): incident-edge and neighbour means against loops by hand (teg.features)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.teg import features


def test_incidence_mean_by_hand():
    ei = np.array([[0, 1, 2], [1, 2, 0]])
    ex = np.array([[1.0, 0.0], [0.0, 2.0], [3.0, 3.0]])
    has = np.array([1, 1, 0])
    m = features.incidence_mean(ei, ex, 4, has)
    # node 0: edges 0 (text) and 2 (no text) -> edge 0; node 1: edges 0, 1; node 2: edge 1; node 3: none
    np.testing.assert_allclose(m, [[1, 0], [0.5, 1], [0, 2], [0, 0]])
    m_all = features.incidence_mean(ei, ex, 3)
    np.testing.assert_allclose(m_all[0], [2, 1.5])


def test_incidence_mean_matches_loop_on_random_graph():
    rng = np.random.default_rng(0)
    n, e = 30, 80
    ei = rng.integers(0, n, (2, e))
    ex = rng.normal(size=(e, 5))
    has = rng.random(e) < 0.6
    m = features.incidence_mean(ei, ex, n, has)
    for u in range(n):
        rows = [k for k in range(e) if has[k] and u in (ei[0, k], ei[1, k]) for _ in range(1 + (ei[0, k] == ei[1, k]))]
        want = ex[rows].mean(0) if rows else np.zeros(5)
        np.testing.assert_allclose(m[u], want, rtol=1e-5, atol=1e-6)


def test_neighbour_mean_matches_dense():
    rng = np.random.default_rng(1)
    n = 12
    ei = rng.integers(0, n, (2, 25))
    x = rng.normal(size=(n, 3))
    a = np.zeros((n, n))
    for s, t in ei.T:
        a[s, t] += 1
        a[t, s] += 1
    want = a @ x / np.maximum(a.sum(1), 1)[:, None]
    np.testing.assert_allclose(features.neighbour_mean(ei, x), want, rtol=1e-5, atol=1e-6)


def test_plm_features_shapes_and_errors():
    ei = np.array([[0, 1], [1, 2]])
    nx, ex = np.ones((3, 4)), np.ones((2, 4))
    has = np.array([True, False])
    assert features.plm_features(nx, ex, ei, has, "node").shape == (3, 4)
    assert features.plm_features(nx, ex, ei, has, "node+edge").shape == (3, 8)
    assert features.plm_features(nx, ex, ei, has, "node+nbr+edge").shape == (3, 12)
    with pytest.raises(ValueError, match="variant"):
        features.plm_features(nx, ex, ei, has, "edge")
    with pytest.raises(ValueError, match="missing node"):
        features.incidence_mean(np.array([[0], [5]]), ex[:1], 3)
    with pytest.raises(ValueError, match="finite"):
        features.incidence_mean(ei, np.array([[np.nan] * 4, [0] * 4]), 3)
    with pytest.raises(ValueError, match="2 edges"):
        features.incidence_mean(ei, np.ones((3, 4)), 3)
    with pytest.raises(ValueError, match="weight"):
        features.incidence_mean(ei, ex, 3, weight=[1])
