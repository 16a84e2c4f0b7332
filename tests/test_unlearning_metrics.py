"""ToW, the SVC membership-inference attack and the modified entropy against hand computations
(unlearning.metrics)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.unlearning.metrics import accuracies, mia_efficacy, modified_entropy, tow, true_class_confidence


def test_tow_by_hand():
    u = {"forget": 0.9, "retain": 1.0, "test": 0.8}
    r = {"forget": 0.1, "retain": 0.95, "test": 0.85}
    assert tow(u, r) == pytest.approx((1 - 0.8) * (1 - 0.05) * (1 - 0.05))
    assert tow(r, r) == 1.0
    assert tow({"forget": 1.0, "retain": 0.0, "test": 0.0}, {"forget": 0.0, "retain": 1.0, "test": 1.0}) == 0.0


@pytest.mark.parametrize("bad", [{"forget": 1.2, "retain": 1, "test": 1}, {"forget": np.nan, "retain": 1, "test": 1},
                                 {"retain": 1, "test": 1}, {"forget": True, "retain": 1, "test": 1}])
def test_tow_bad_input(bad):
    with pytest.raises(ValueError):
        tow(bad, {"forget": 0.5, "retain": 0.5, "test": 0.5})


def test_modified_entropy_by_hand():
    # p = (0.7, 0.2, 0.1), label 0: −0.3 ln 0.7 − 0.2 ln 0.8 − 0.1 ln 0.9
    p = np.array([[0.7, 0.2, 0.1], [0.7, 0.2, 0.1]])
    want0 = -0.3 * np.log(0.7) - 0.2 * np.log(0.8) - 0.1 * np.log(0.9)
    # label 1: −(1 − 0.2) ln 0.2 − 0.7 ln 0.3 − 0.1 ln 0.9
    want1 = -0.8 * np.log(0.2) - 0.7 * np.log(0.3) - 0.1 * np.log(0.9)
    np.testing.assert_allclose(modified_entropy(p, np.array([0, 1])), [want0, want1], rtol=1e-12)
    # the official helper's slip (log p in place of log(1 − p) for the other classes) gives another value
    slip = -0.3 * np.log(0.7) - 0.2 * np.log(0.2) - 0.1 * np.log(0.1)
    assert abs(modified_entropy(p[:1], np.array([0]))[0] - slip) > 0.3
    # a confident right answer has Mentr 0; a confident wrong one is large
    sure = np.array([[1.0, 0.0, 0.0]])
    assert modified_entropy(sure, np.array([0]))[0] == pytest.approx(0.0, abs=1e-12)
    assert modified_entropy(sure, np.array([1]))[0] > 60


def test_true_class_confidence_and_accuracies():
    p = np.array([[0.1, 0.9], [0.8, 0.2], [0.4, 0.6]])
    y = np.array([1, 1, 0])
    np.testing.assert_allclose(true_class_confidence(p, y), [0.9, 0.2, 0.4])
    assert accuracies(p, y, {"a": np.array([0, 1]), "b": np.array([2])}) == {"a": 0.5, "b": 0.0}
    with pytest.raises(ValueError, match="probabilities"):
        true_class_confidence(np.array([[np.nan, 1.0]]), np.array([0]))
    with pytest.raises(ValueError, match="shape|must be"):
        true_class_confidence(p, y[:2])


def test_mia_efficacy_on_separable_features():
    rng = np.random.default_rng(0)
    members = rng.uniform(0.95, 1.0, 200)      # retain: confident
    test = rng.uniform(0.0, 0.5, 100)          # test: unsure
    assert mia_efficacy(members, test, rng.uniform(0.96, 1.0, 50)) == 0.0     # looks like members: not forgotten
    assert mia_efficacy(members, test, rng.uniform(0.0, 0.4, 50)) == 1.0      # looks like test points: forgotten
    half = np.concatenate([rng.uniform(0.96, 1.0, 25), rng.uniform(0.0, 0.4, 25)])
    assert mia_efficacy(members, test, half) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="conf_forget"):
        mia_efficacy(members, test, np.array([]))
    with pytest.raises(ValueError, match="conf_test"):
        mia_efficacy(members, np.array([0.1, np.inf]), half)
