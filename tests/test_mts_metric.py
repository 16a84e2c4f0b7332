"""Metrics and W1 of the barely random MTS chapter, checked against SciPy's shortest paths and its LP solver."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.sparse.csgraph import shortest_path

from neurips24 import mts
from neurips24.mts.metric import transport_lp


@pytest.mark.parametrize("kind", mts.metric.KINDS)
@pytest.mark.parametrize("n", [2, 5, 16])
def test_every_metric_of_the_chapter_is_a_metric(kind, n):
    m = mts.make_metric(kind, n, seed=3)
    np.testing.assert_array_equal(mts.check_metric(m.d), m.d)
    assert m.n == n and m.diameter == m.d.max()


def test_tree_metric_is_the_shortest_path_metric_of_its_tree():
    rng = np.random.default_rng(0)
    n = 12
    parent = np.array([rng.integers(i) for i in range(1, n)])
    length = rng.uniform(0.1, 1.0, n - 1)
    graph = np.zeros((n, n))
    graph[np.arange(1, n), parent] = length
    ref = shortest_path(graph, directed=False)                  # SciPy's Dijkstra on the tree's edges
    np.testing.assert_allclose(mts.tree_metric(parent, length).d, ref, rtol=1e-12)


def test_star_and_line_distances_by_hand():
    np.testing.assert_allclose(mts.star_metric([1.0, 2.0, 0.5]).d, [[0, 3, 1.5], [3, 0, 2.5], [1.5, 2.5, 0]])
    np.testing.assert_allclose(mts.line_metric([0.0, 1.0, 3.0]).d, [[0, 1, 3], [1, 0, 2], [3, 2, 0]])
    np.testing.assert_allclose(mts.uniform_metric(3).d, 1 - np.eye(3))


@pytest.mark.parametrize("kind", mts.metric.KINDS)
def test_closed_form_w1_matches_the_transport_lp(kind):
    rng = np.random.default_rng(1)
    m = mts.make_metric(kind, 7, seed=2)
    p = rng.dirichlet(np.ones(7), size=5)
    q = rng.dirichlet(np.ones(7), size=5)
    ref = [transport_lp(a, b, m.d) for a, b in zip(p, q, strict=True)]
    np.testing.assert_allclose(mts.wasserstein1(p, q, m), ref, rtol=1e-7, atol=1e-10)


def test_w1_by_hand_and_on_a_general_metric():
    # two points at distance 3: moving all the mass costs 3; half of it 1.5
    two = mts.metric.as_metric(np.array([[0.0, 3.0], [3.0, 0.0]]))
    assert mts.wasserstein1([1.0, 0.0], [0.0, 1.0], two) == pytest.approx(3.0)
    assert mts.wasserstein1([1.0, 0.0], [0.5, 0.5], two) == pytest.approx(1.5)
    # a non-tree metric (a 4-cycle with a chord) goes through the LP
    d = np.array([[0, 1, 2, 1], [1, 0, 1, 1.5], [2, 1, 0, 1], [1, 1.5, 1, 0]], dtype=float)
    general = mts.metric.as_metric(d)
    assert general.side is None
    assert mts.wasserstein1([1, 0, 0, 0], [0, 0, 1, 0], general) == pytest.approx(2.0)


@pytest.mark.parametrize("bad, match", [
    (np.array([[0.0, 1.0], [2.0, 0.0]]), "symmetric"),
    (np.array([[0.0, -1.0], [-1.0, 0.0]]), "non-negative"),
    (np.array([[0.0, 1.0, 5.0], [1.0, 0.0, 1.0], [5.0, 1.0, 0.0]]), "triangle"),
    (np.array([[0.0, np.nan], [np.nan, 0.0]]), "finite"),
    (np.array([[1.0, 1.0], [1.0, 0.0]]), "diagonal"),
    (np.array([[0.0, 0.0], [0.0, 0.0]]), "positive"),
    (np.zeros((2, 3)), "square"),
    (np.zeros((1, 1)), "square"),
])
def test_check_metric_rejects_what_is_not_a_metric(bad, match):
    with pytest.raises(ValueError, match=match):
        mts.check_metric(bad)


def test_check_metric_rejects_non_numbers():
    with pytest.raises(TypeError, match="numeric"):
        mts.check_metric([["a", "b"], ["c", "d"]])


def test_constructors_reject_bad_input():
    with pytest.raises(ValueError, match="n must be"):
        mts.uniform_metric(1)
    with pytest.raises(ValueError, match="leaf"):
        mts.star_metric([1.0, -1.0])
    with pytest.raises(ValueError, match="increasing"):
        mts.line_metric([0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="earlier point"):
        mts.tree_metric([1], [1.0])
    with pytest.raises(ValueError, match="length"):
        mts.tree_metric([0, 0], [1.0, 0.0])
    with pytest.raises(ValueError, match="kind"):
        mts.make_metric("hyperbolic", 4)
    with pytest.raises(ValueError, match="seed"):
        mts.make_metric("line", 4, seed=-1)


def test_w1_rejects_bad_distributions():
    m = mts.uniform_metric(3)
    with pytest.raises(ValueError, match="same shape"):
        mts.wasserstein1([1, 0, 0], [1, 0], m)
    with pytest.raises(ValueError, match="probability"):
        mts.wasserstein1([0.5, 0.5, 0.5], [1, 0, 0], m)
    with pytest.raises(ValueError, match="probability"):
        mts.wasserstein1([np.nan, 0.5, 0.5], [1, 0, 0], m)


def test_dominating_star_dominates():
    for kind in mts.metric.KINDS:
        m = mts.make_metric(kind, 9, seed=4)
        w = mts.dominating_star(m)
        assert np.all(w[:, None] + w[None, :] >= m.d - 1e-12)
