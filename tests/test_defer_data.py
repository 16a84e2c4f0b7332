"""The realizable mixture and the digits with a partial expert: construction, realizability, bad input
(defer.data)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from neurips24.defer.data import DeferData, digits_data, mixture_data


def test_mixture_is_realizable_by_its_generating_rules():
    d = mixture_data(3000, 2000, seed=0)
    assert d.x_train.shape == (3000, 10) and d.x_test.shape == (2000, 10) and d.n_classes == 2
    assert d.optimal_acc == 1.0 and 0.2 <= d.defer_share <= 0.8
    assert set(np.unique(d.y_train)) == {0, 1} and set(np.unique(d.g_train)) == {0, 1}


def test_mixture_expert_accuracy_outside_the_deferral_region_is_one_half():
    # the expert is right everywhere in the deferral region and with probability 1/2 elsewhere, so its overall
    # accuracy is defer_share + (1 − defer_share)/2; a binomial test on 20000 points
    d = mixture_data(1, 20000, seed=1)                          # defer_share is measured on the test split
    right = int((d.g_test == d.y_test).sum())
    p_right = 1 - (1 - d.defer_share) / 2
    assert stats.binomtest(right, 20000, p_right).pvalue > 1e-3


def test_mixture_knobs_make_it_non_realizable_and_first_nests():
    d = mixture_data(500, 4000, seed=2, machine_error=0.4, expert_error_deferred=0.2)
    assert d.optimal_acc < 0.95 and "non-realizable" in d.name
    small = d.first(100)
    np.testing.assert_array_equal(small.x_train, d.x_train[:100])
    assert small.x_test is d.x_test
    same = mixture_data(500, 4000, seed=2, machine_error=0.4, expert_error_deferred=0.2)
    np.testing.assert_array_equal(same.y_test, d.y_test)           # one seed, one draw


def test_digits_expert_and_pooling():
    d = digits_data(seed=0)
    assert d.x_train.shape[1] == 64 and d.n_classes == 10 and len(d.y_train) + len(d.y_test) == 1797
    for x, y, g in ((d.x_train, d.y_train, d.g_train), (d.x_test, d.y_test, d.g_test)):
        on = np.isin(y, [0, 1, 2, 3, 4])
        assert np.all(g[on] == y[on])                                   # always right on its classes
        k, n = int((g[~on] == y[~on]).sum()), int((~on).sum())
        assert stats.binomtest(k, n, 0.1).pvalue > 1e-3                 # a uniform guess elsewhere
        assert x.min() >= 0 and x.max() <= 1
    d4 = digits_data(seed=0, pool=4)
    assert d4.x_train.shape[1] == 4
    # pooling is a 4 × 4 block mean: the pooled image's mean equals the full image's
    np.testing.assert_allclose(d4.x_train.mean(1), d.x_train.mean(1), rtol=1e-5)


def test_bad_input():
    with pytest.raises(ValueError, match="n_train"):
        mixture_data(0)
    with pytest.raises(ValueError, match="machine_error"):
        mixture_data(10, machine_error=1.5)
    with pytest.raises(ValueError, match="expert_classes"):
        digits_data((0, 0, 1))
    with pytest.raises(ValueError, match="expert_classes"):
        digits_data((3, 10))
    with pytest.raises(ValueError, match="pool"):
        digits_data(pool=3)
    with pytest.raises(ValueError, match="test_share"):
        digits_data(test_share=1.0)
    d = mixture_data(10, 5)
    with pytest.raises(ValueError, match="n_train"):
        d.first(11)
    assert isinstance(d, DeferData)
