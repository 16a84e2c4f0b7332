"""The paper's evaluation protocols (neurips24.vlm_classification.evaluation), on hand-worked cases."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.vlm_classification import evaluation

NAMES = ["zero", "one", "two", "three"]


def test_substring_match_hand_worked():
    preds = ["A handwritten TWO.", "the number one", "zero or one", "a cat", "someone"]
    ok = evaluation.substring_correct(preds, np.array([2, 1, 0, 3, 1]), NAMES)
    # 'someone' contains 'one': the substring rule counts it, as the paper's does (a known inflation)
    assert ok.tolist() == [True, True, True, False, True]


def test_choice_rule_rejects_answers_that_repeat_the_list():
    preds = ["two", "two, one", "one"]
    cand = np.array([[2, 1], [1, 2], [1, 2]])
    assert evaluation.choice_correct(preds, np.array([2, 2, 2]), cand, NAMES).tolist() == [True, False, False]


def test_closed_world_prompt_and_candidates():
    assert evaluation.closed_world_prompt(["seven", "two"]) == \
        'What type of object is in this photo? Choose one from "seven, two".'
    y = np.repeat(np.arange(4), 25)
    cand = evaluation.closed_world_candidates(y, 4, 3, seed=1)
    assert cand.shape == (100, 3) and all(c in row and len(set(row)) == 3 for c, row in zip(y, cand, strict=True))
    first = (cand[:, 0] == y).mean()
    assert 0.15 < first < 0.55                 # the true class is shuffled, not always first (1/3 expected)
    ctrl = evaluation.closed_world_candidates(y, 4, 2, seed=1, include_true=False)
    assert not any(c in row for c, row in zip(y, ctrl, strict=True))


def test_count_mentions_is_a_contiguous_sublist_count():
    caps = [[5, 7, 9], [7, 5, 9], [5, 5, 7], [1]]
    assert evaluation.count_mentions(caps, [5, 7]) == 2          # captions 0 and 2; caption 1 has 7, 5 reversed
    assert evaluation.count_mentions(caps, [9]) == 2
    assert evaluation.count_mentions(caps, [5]) == 3              # a caption counts once, however often it says it


def test_per_class_accuracy_hand_worked():
    acc = evaluation.per_class_accuracy([1, 0, 1, 1, 0], np.array([0, 0, 1, 1, 2]), 4)
    assert acc[:3].tolist() == [0.5, 1.0, 0.0] and np.isnan(acc[3])


def test_probe_separates_separable_classes_and_not_shuffled_ones():
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 20)
    X = rng.normal(size=(60, 5)) + 4.0 * np.eye(3, 5)[y]
    Z = rng.normal(size=(60, 5)) + 4.0 * np.eye(3, 5)[y]
    assert (evaluation.linear_probe(X, y, Z) == y).mean() > 0.95
    noise = rng.normal(size=(60, 5))
    assert (evaluation.linear_probe(noise, y, rng.normal(size=(60, 5))) == y).mean() < 0.6   # chance is 1/3


def test_bad_input():
    with pytest.raises(ValueError, match="same length"):
        evaluation.substring_correct(["a"], np.array([0, 1]), NAMES)
    with pytest.raises(ValueError, match="labels must be in"):
        evaluation.substring_correct(["a"], np.array([7]), NAMES)
    with pytest.raises(TypeError, match="strings"):
        evaluation.substring_correct([3], np.array([0]), NAMES)
    with pytest.raises(ValueError, match="class_names"):
        evaluation.substring_correct(["a"], np.array([0]), ["zero", ""])
    with pytest.raises(ValueError, match="at least 2"):
        evaluation.closed_world_prompt(["seven"])
    with pytest.raises(ValueError, match="n must be"):
        evaluation.closed_world_candidates(np.array([0, 1]), 4, 4, include_true=False)
    with pytest.raises(ValueError, match="not be empty"):
        evaluation.count_mentions([[1]], [])
    with pytest.raises(ValueError, match="NaN"):
        evaluation.linear_probe(np.full((10, 2), np.nan), np.repeat([0, 1], 5), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="at least 2 classes"):
        evaluation.linear_probe(np.zeros((6, 2)), np.zeros(6, int), np.zeros((3, 2)))
    with pytest.raises(ValueError, match="test_features"):
        evaluation.linear_probe(np.zeros((6, 2)), np.repeat([0, 1], 3), np.zeros((3, 5)))
