"""The entanglement score against a hand computation and an independent formula (unlearning.entanglement),
and the forget-set builders and their validation (unlearning.forget_sets)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.unlearning.entanglement import entanglement_score
from neurips24.unlearning.forget_sets import check_forget_set, distance_groups, memorization_groups, random_set


def test_es_by_hand():
    # R = {0, 2} (mean 1, spread 1), S = {10} (mean 10, spread 0); μ = 5.5; inter = ½ (4.5² + 4.5²) = 20.25
    assert entanglement_score([[0.0], [2.0]], [[10.0]]) == pytest.approx(1 / 20.25)


def test_es_against_covariance_formula():
    rng = np.random.default_rng(1)
    r, s = rng.normal(0, 1, (300, 5)), rng.normal(0.5, 2, (40, 5))
    intra = np.trace(np.cov(r.T, bias=True)) + np.trace(np.cov(s.T, bias=True))
    inter = np.sum((r.mean(0) - s.mean(0)) ** 2) / 4            # ½ (|d/2|² + |d/2|²)
    assert entanglement_score(r, s) == pytest.approx(intra / inter, rel=1e-10)


def test_es_bad_input():
    with pytest.raises(ValueError, match="width"):
        entanglement_score(np.ones((3, 2)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="non-empty"):
        entanglement_score(np.ones((3, 2)), np.ones((0, 2)))
    with pytest.raises(ValueError, match="finite"):
        entanglement_score(np.full((3, 2), np.nan), np.ones((2, 2)))


def test_memorization_groups():
    mem = np.linspace(0, 1, 100)
    g = memorization_groups(mem, 9, seed=0)
    np.testing.assert_array_equal(g["low"], np.arange(9))
    np.testing.assert_array_equal(np.sort(g["high"]), np.arange(91, 100))
    assert np.all(np.abs(mem[g["mid"]] - 0.5) <= 0.05)
    assert len(g["mix"]) == 9 and len(np.unique(g["mix"])) == 9
    assert set(g["mix"]) <= set(g["low"]) | set(g["mid"]) | set(g["high"])
    with pytest.raises(ValueError, match="k must"):
        memorization_groups(mem, 40)
    with pytest.raises(ValueError, match="finite"):
        memorization_groups(np.array([0.1, np.nan, 0.3]), 1)


def test_distance_groups_and_es_ordering():
    rng = np.random.default_rng(2)
    phi = rng.normal(0, 1, (400, 3))
    g = distance_groups(phi, 30)
    d = np.linalg.norm(phi - phi.mean(0), axis=1)
    assert d[g["near"]].max() <= d[g["far"]].min()
    def es(idx):
        return entanglement_score(np.delete(phi, idx, axis=0), phi[idx])
    assert es(g["near"]) > es(g["far"])


def test_check_forget_set_errors():
    np.testing.assert_array_equal(check_forget_set([3, 1], 5), [3, 1])
    with pytest.raises(ValueError, match="empty"):
        check_forget_set([], 5)
    with pytest.raises(ValueError, match="duplicates"):
        check_forget_set([1, 1], 5)
    with pytest.raises(ValueError, match=r"\[0, 5\)"):
        check_forget_set([0, 5], 5)
    with pytest.raises(ValueError, match=r"\[0, 5\)"):
        check_forget_set([-1], 5)
    with pytest.raises(TypeError, match="integers"):
        check_forget_set([0.5], 5)
    r = random_set(50, 10, seed=0)
    assert len(np.unique(r)) == 10 and r.max() < 50
