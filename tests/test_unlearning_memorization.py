"""Feldman's memorization estimator: the formula by hand, the balanced subsets, and a tiny ensemble that must
flag the one mislabelled point (unlearning.memorization)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.unlearning.memorization import estimate_memorization, memorization_from_runs, subset_masks


def test_memorization_from_runs_by_hand():
    correct = np.array([[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]], bool)
    inside = np.array([[1, 0, 1], [1, 1, 0], [0, 1, 1], [0, 1, 1]], bool)
    # point 0: in runs 0, 1 (both right) -> 1; out in runs 2, 3 (0 and 1 right) -> 1/2; mem = 1/2
    # point 1: in runs 1, 2, 3 (0, 1, 1) -> 2/3; out run 0 (1) -> 1; mem = −1/3
    # point 2: in runs 0, 2, 3 (0, 1, 1) -> 2/3; out run 1 (1) -> 1; mem = −1/3
    np.testing.assert_allclose(memorization_from_runs(correct, inside), [0.5, -1 / 3, -1 / 3])


def test_memorization_from_runs_bad_input():
    with pytest.raises(ValueError, match="one shape"):
        memorization_from_runs(np.ones((2, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match="never|at least one"):
        memorization_from_runs(np.ones((2, 2)), np.array([[1, 0], [1, 1]]))


def test_subset_masks_are_balanced():
    m = subset_masks(20, 500, 0.7, seed=0)
    assert m.shape == (20, 500)
    np.testing.assert_array_equal((~m).sum(0), 6)                 # each point out of round(0.3 · 20) runs
    assert abs(m.sum(1).mean() / 500 - 0.7) < 1e-9
    assert m.sum(1).min() > 0.6 * 500                              # every run sees about 70 %
    for bad in (dict(n_runs=1, share=0.7), dict(n_runs=10, share=1.0), dict(n_runs=10, share=np.nan),
                dict(n_runs=2, share=0.99)):
        with pytest.raises(ValueError):
            subset_masks(n=50, seed=0, **bad)


def test_ensemble_flags_the_mislabelled_point():
    # two well-separated blobs; point 0 sits in blob 0 but carries label 1: only memorizing fits it
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(-1, 1, (40, 16)), rng.normal(1, 1, (40, 16))]).astype(np.float32)
    y = np.repeat([0, 1], 40)
    y[0] = 1
    res = estimate_memorization(x, y, n_runs=10, share=0.7, steps=300, lr=0.05, hidden=64, seed=0)
    assert res.train_acc > 0.99
    assert res.mem[0] > 0.8 and np.abs(res.mem[1:]).max() < 0.2
    assert res.c_proxy[0] < res.c_proxy[1:].min()                  # learned late, with low confidence
