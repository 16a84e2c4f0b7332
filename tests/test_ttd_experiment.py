"""The chapter's experiment (ttd.experiment) at a tiny size: structure, counts, controls; and, marked slow, the
fast-scale run with the rules the chapter's reproduction checks assert."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.ttd import experiment as Ex

torch.set_num_threads(1)
TINY = dict(train_crops=1, train_size=64, test_crops=2, test_size=64, steps=20, channels=4)


@pytest.fixture(scope="module")
def tiny():
    old = Ex.SETTINGS["fast"]
    Ex.SETTINGS["fast"] = TINY
    try:
        return Ex.run_fusion("fast")
    finally:
        Ex.SETTINGS["fast"] = old


def test_tiny_run_structure(tiny):
    assert len(tiny.pairs) == 6 and tiny.n_train_pairs == 3 * len(Ex.data.TRAINING_IMAGES)
    assert set(tiny.metrics) == set(Ex.METHODS)
    assert all(len(v) == 6 for v in tiny.metrics.values())
    assert tiny.weight_sum_error < 1e-9
    assert np.all([b["covariance"] == 0 for b in tiny.bound["static"]])
    rows, header = tiny.table()
    assert len(rows) == 6 and header[:2] == ["pairs", "method"]
    nums = Ex.check_numbers(tiny)
    assert nums["n"] == 6 and all(0 <= v <= 6 for v in nums.values())
    # the same pairs from the same seed: held-out crops are reproducible
    again = Ex.held_out_pairs(2, 64, seed=1)
    np.testing.assert_array_equal(again[0].sources, tiny.pairs[0].sources)


def test_explore_gamma_and_bad_index(tiny):
    v = Ex.explore_gamma(tiny, 0, 5.0)
    np.testing.assert_allclose(v["weights"].sum(0), 2.0, atol=1e-12)
    with pytest.raises(ValueError):
        Ex.explore_gamma(tiny, 99, 5.0)
    with pytest.raises(ValueError):
        Ex.explore_gamma(tiny, 0, 0.0)
    with pytest.raises(ValueError):
        Ex.run_fusion("huge")
    with pytest.raises(ValueError):
        Ex.run_fusion("fast", rule="max")
    with pytest.raises(ValueError):
        Ex.evaluate(tiny, gamma=0.0)


def test_most_rule_is_the_wilson_lower_bound():
    assert Ex.most(20, 24) and not Ex.most(16, 24) and not Ex.most(1, 24)


@pytest.mark.slow
def test_fast_scale_outcomes_as_the_chapter_states():
    from neurips24 import claims
    from neurips24.ttd import reproduction

    runs = Ex.run_seeds("fast")
    assert all(r.weight_sum_error < 1e-9 for r in runs)
    got = {cid: claims.outcome(cid, **kw) for cid, kw in reproduction.checks(runs).items()}
    assert all(v in claims.EXPECTED_OUTCOMES for v in got.values()), got
