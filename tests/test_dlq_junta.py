"""The sparse target of the dlq chapter: its construction, moments and argument checks (dlq.junta)."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from neurips24.dlq.junta import make_junta


def _exact_moments(p: float, P: int):
    """E[y] and E[y^2] by enumerating the 2^P bit patterns (independent of the module's code)."""
    sd = math.sqrt(p * (1 - p))
    m1 = m2 = 0.0
    for bits in itertools.product((0, 1), repeat=P):
        prob = math.prod(p if b else 1 - p for b in bits)
        y = math.prod((b - p) / sd for b in bits)
        m1 += prob * y
        m2 += prob * y * y
    return m1, m2


@pytest.mark.parametrize("p", [0.2, 0.5, 0.7])
def test_label_values_match_the_bit_patterns(p):
    j = make_junta(10, (0, 1, 2), "gaussian", p)
    sd = math.sqrt(p * (1 - p))
    by_hand = {round(math.prod((b - p) / sd for b in bits), 9) for bits in itertools.product((0, 1), repeat=3)}
    assert np.allclose(sorted(by_hand), j.label_values())
    m1, m2 = _exact_moments(p, 3)
    assert m1 == pytest.approx(0, abs=1e-12) and m2 == pytest.approx(1)


def test_brief_values_at_p_02():
    # y takes -2, -0.125, 0.5 and 8 (the research brief's table)
    np.testing.assert_allclose(make_junta(5).label_values(), [-2, -0.125, 0.5, 8])


def test_threshold_is_the_two_sided_gaussian_quantile():
    j = make_junta(4, (0,), "gaussian", 0.2)
    assert 2 * stats.norm.sf(j.threshold) == pytest.approx(0.2)
    assert j.threshold == pytest.approx(1.2816, abs=1e-4)
    assert math.isnan(make_junta(4, (0,), "boolean").threshold)


def test_hand_worked_label():
    j = make_junta(4, (0, 1, 2), "gaussian", 0.2)
    x = np.array([[2.0, 0.1, -0.3, 5.0],     # bits 1, 0, 0 -> 2 * (-0.5) * (-0.5) = 0.5
                  [-1.5, 1.4, 0.0, 0.0],     # bits 1, 1, 0 -> 2 * 2 * (-0.5) = -2
                  [0.0, 0.0, 0.0, 9.0]])     # bits 0, 0, 0 -> -0.125 (coordinate 4 is irrelevant)
    np.testing.assert_allclose(j.label(x), [0.5, -2.0, -0.125])


@pytest.mark.parametrize("inputs", ["gaussian", "boolean"])
def test_samples_have_the_right_law(inputs):
    j = make_junta(6, (1, 3, 4), inputs, 0.2)
    x, y = j.sample(200_000, np.random.default_rng(3))
    assert x.shape == (200_000, 6) and y.shape == (200_000,)
    bits = j.bits(x)
    test = stats.binomtest(int(bits[:, 0].sum()), bits.shape[0], 0.2)
    assert test.pvalue > 1e-4
    assert abs(x.mean()) < 0.01 and abs(x.var() - 1) < 0.01          # standardised coordinates
    assert set(np.round(np.unique(y), 9)) <= set(np.round(j.label_values(), 9))
    assert abs(y.mean()) < 0.02 and abs((y ** 2).mean() - 1) < 0.05
    np.testing.assert_allclose(j.label(x), y)


def test_boolean_coordinates_take_two_values():
    j = make_junta(3, (0,), "boolean", 0.2)
    x, _ = j.sample(1000, np.random.default_rng(0))
    np.testing.assert_allclose(np.unique(x), [-0.5, 2.0])     # (±1 - m) / s with m = -0.6, s = 0.8


def test_half_bias_makes_binary_labels():
    for inputs in ("gaussian", "boolean"):
        j = make_junta(5, (0, 1, 2), inputs, 0.5)
        _, y = j.sample(5000, np.random.default_rng(1))
        np.testing.assert_allclose(np.unique(y), [-1.0, 1.0])


@pytest.mark.parametrize("kwargs, err, match", [
    (dict(d=2, support=(0, 1, 2)), ValueError, r"\|S\*\| <= d"),
    (dict(d=0), ValueError, "d must be"),
    (dict(d=5, support=()), ValueError, "at least one"),
    (dict(d=5, support=(0, 0)), ValueError, "distinct"),
    (dict(d=5, support=(0, 5)), ValueError, r"\[0, 5\)"),
    (dict(d=5, support=(0, -1)), ValueError, r"\[0, 5\)"),
    (dict(d=5, support=(0, 1.0)), TypeError, "integers"),
    (dict(d=5, inputs="uniform"), ValueError, "inputs must be"),
    (dict(d=5, p=0.0), ValueError, r"p must be a number in \(0, 1\)"),
    (dict(d=5, p=1.0), ValueError, r"p must be a number in \(0, 1\)"),
    (dict(d=5, p=float("nan")), ValueError, r"p must be a number in \(0, 1\)"),
    (dict(d=5, p="0.2"), TypeError, "p must be a number"),
    (dict(d=5, p=True), TypeError, "p must be a number"),
])
def test_bad_arguments(kwargs, err, match):
    with pytest.raises(err, match=match):
        make_junta(**kwargs)


def test_bad_inputs_to_label_and_sample():
    j = make_junta(4)
    with pytest.raises(ValueError, match="shape"):
        j.label(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="finite"):
        j.label(np.array([[np.nan, 0, 0, 0]]))
    with pytest.raises(ValueError, match="n must be"):
        j.sample(0, np.random.default_rng(0))
    with pytest.raises(TypeError, match="Generator"):
        j.sample(3, 0)
