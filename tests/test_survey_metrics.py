"""Entropy, KL, A-bias and the closer-to-census fraction against SciPy and hand-worked cases."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import entropy as scipy_entropy

from neurips24.survey import metrics


def test_entropy_and_kl_match_scipy_in_bits():
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(5), size=20)
    q = rng.dirichlet(np.ones(5), size=20)
    np.testing.assert_allclose(metrics.entropy_bits(p), scipy_entropy(p, base=2, axis=1), rtol=1e-12)
    np.testing.assert_allclose(metrics.kl_bits(p, q), scipy_entropy(p, q, base=2, axis=1), rtol=1e-12)
    np.testing.assert_allclose(metrics.normalized_entropy(np.full(7, 1 / 7)), 1.0)
    np.testing.assert_allclose(metrics.kl_to_uniform(p), np.log2(5) - metrics.entropy_bits(p), atol=1e-12)


def test_zero_cells_and_direction():
    # p has a zero cell: it is skipped (0 log 0 = 0); q has a zero where p > 0: +inf (official compute_kl)
    assert metrics.kl_bits([0.5, 0.5, 0.0], [0.25, 0.25, 0.5]) == pytest.approx(1.0)
    assert np.isinf(metrics.kl_bits([0.5, 0.5, 0.0], [1.0, 0.0, 0.0]))
    assert metrics.kl_bits([1.0, 0.0], [0.5, 0.5]) == pytest.approx(1.0)
    assert metrics.kl_bits([0.5, 0.5], [0.9, 0.1]) != pytest.approx(float(metrics.kl_bits([0.9, 0.1], [0.5, 0.5])))
    assert metrics.entropy_bits([1.0, 0.0, 0.0]) == 0.0


def test_a_bias_and_closer_fraction_by_hand():
    assert metrics.a_bias([0.7, 0.2, 0.1]) == pytest.approx(0.7 - 1 / 3)
    assert metrics.a_bias(np.full(4, 0.25)) == 0.0
    assert metrics.closer_to_census_fraction([0.1, 0.5, np.inf, 0.2], [0.3, 0.4, 0.1, 0.2]) == 0.5


@pytest.mark.parametrize("bad", [[1.0], [0.5, 0.6], [np.nan, 1.0], [-0.5, 1.5], [np.inf, 0.0], [[0.2, 0.2]]])
def test_bad_distributions_raise_value_error(bad):
    with pytest.raises(ValueError):
        metrics.entropy_bits(bad)
    with pytest.raises(ValueError):
        metrics.kl_bits(bad, [0.5, 0.5] if np.shape(bad)[-1] == 2 else [1.0])


@pytest.mark.parametrize("bad", ["ab", None, [True, False]])
def test_non_numbers_raise_type_error(bad):
    with pytest.raises(TypeError):
        metrics.a_bias(bad)


def test_mismatched_and_bad_divergences_raise():
    with pytest.raises(ValueError, match="same number of choices"):
        metrics.kl_bits([0.5, 0.5], [0.2, 0.3, 0.5])
    with pytest.raises(ValueError):
        metrics.closer_to_census_fraction([0.1], [0.1, 0.2])
    with pytest.raises(ValueError):
        metrics.closer_to_census_fraction([0.1], [np.inf])
    with pytest.raises(ValueError):
        metrics.closer_to_census_fraction([], [])
