"""Reconstruction, overlap (the official definition) and attribute precision, by hand."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.concepts import metrics


def test_reconstruction_by_hand():
    Z = np.array([[3.0, 4.0]])
    assert metrics.reconstruction_error(Z, np.array([[3.0, 0.0]])) == pytest.approx(0.8)
    assert metrics.reconstruction_error(Z, Z) == 0.0


def test_overlap_by_hand():
    words = [["red", "blue"], ["red", "green", "left", "top"], ["small"]]
    # O_01 = 1/2, O_02 = 0, O_10 = 1/4, O_12 = 0, O_20 = O_21 = 0; sum 3/4 over 3*2 pairs
    assert metrics.overlap(words) == pytest.approx(0.75 / 6)
    np.testing.assert_allclose(np.diag(metrics.overlap_matrix(words)), [1, 1, 1])


def test_overlap_of_an_empty_concept_is_undefined():
    # the official code counts an empty row 0, so a dictionary of empty concepts would score the best overlap
    with pytest.raises(ValueError, match="without grounded words"):
        metrics.overlap([[], []])
    with pytest.raises(ValueError, match="without grounded words"):
        metrics.overlap([["red"], []])


def test_overlap_extremes():
    assert metrics.overlap([["a", "b"], ["a", "b"], ["b", "a"]]) == 1.0
    assert metrics.overlap([["a"], ["b"], ["c"]]) == 0.0
    rng = np.random.default_rng(0)
    pool = [f"w{i}" for i in range(12)]
    for _ in range(50):
        words = [list(rng.choice(pool, size=rng.integers(1, 6), replace=False)) for _ in range(5)]
        assert 0.0 <= metrics.overlap(words) <= 1.0


def test_attribute_precision_by_hand():
    attrs = [{"big", "red", "left"}, {"small", "red", "right"}, {"big", "blue", "left"}]
    words = [["circle", "red", "ball"], ["left", "big"], ["sky"]]
    mas = np.array([[0, 2], [0, 1], [1, 2]])
    p = metrics.attribute_precision(words, mas, attrs, n_words=1, exclude=("circle",))
    np.testing.assert_allclose(p, [0.5, 0.5, 0.0])        # 'red' in image 0 only; 'left' in 0 only; 'sky' nowhere
    p2 = metrics.attribute_precision(words, mas, attrs, n_words=2, exclude=("circle",))
    np.testing.assert_allclose(p2, [0.5, 0.5, 0.0])
    # without the exclusion the target word would count (and 'circles' matches 'circle')
    assert metrics.attribute_precision([["circles"]], np.array([[0]]), [{"circle"}])[0] == 1.0


@pytest.mark.parametrize("call, err", [
    (lambda: metrics.reconstruction_error(np.ones((2, 2)), np.ones((2, 3))), ValueError),
    (lambda: metrics.reconstruction_error(np.zeros((2, 2)), np.zeros((2, 2))), ValueError),
    (lambda: metrics.reconstruction_error(np.full((1, 2), np.nan), np.ones((1, 2))), ValueError),
    (lambda: metrics.overlap([["a"]]), ValueError),
    (lambda: metrics.overlap(["ab", "cd"]), TypeError),
    (lambda: metrics.overlap([[1], [2]]), TypeError),
    (lambda: metrics.attribute_precision([["a"]], np.array([[5]]), [{"a"}]), ValueError),
    (lambda: metrics.attribute_precision([["a"], ["b"]], np.array([[0]]), [{"a"}]), ValueError),
    (lambda: metrics.attribute_precision([["a"]], np.array([[0]]), [{"a"}], n_words=0), ValueError),
])
def test_bad_inputs(call, err):
    with pytest.raises(err):
        call()


def test_attribute_precision_skips_words_outside_the_vocabulary():
    attrs = [{"big", "red", "left"}, {"small", "blue", "right"}]
    vocab = ("big", "small", "red", "blue", "left", "right", "square", "circle")
    words = [["circle", "section", "red", "blue"], ["area", "square", "left"], ["sky", "ball"]]
    mas = np.array([[0, 1], [0, 1], [0, 1]])
    p = metrics.attribute_precision(words, mas, attrs, 1, exclude=("circle",), vocabulary=vocab)
    # 'section' passed over -> 'red' (image 0 only); 'square' is an attribute word absent from both images; none
    np.testing.assert_allclose(p, [0.5, 0.0, 0.0])


def test_first_attribute_word():
    vocab = ("red", "blue", "left")
    assert metrics.first_attribute_word(["circle", "ball", "blues", "red"], vocab, ("circle",)) == "blues"
    assert metrics.first_attribute_word(["circle", "ball"], vocab, ("circle",)) == ""
