"""Text and visual grounding (§3.3) on hand-made vocabularies, and the word filter."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.concepts import grounding

pytest.importorskip("english_words", reason="english-words (the word lists) is not installed")


def test_valid_word_filter():
    assert grounding.valid_word("\u0120circle") == "circle"
    assert grounding.valid_word(" Circle") == "circle"
    assert grounding.valid_word("circle") == ""           # not word-initial: a piece of a longer word
    assert grounding.valid_word("\u0120the") == ""        # stop word
    assert grounding.valid_word("\u0120ox") == ""         # shorter than 3 letters
    assert grounding.valid_word("\u0120encomp") == ""     # a fragment, in no word list
    assert grounding.valid_word("\u0120caf\u00e9") == ""  # not ASCII
    assert grounding.valid_word("\u0120red2") == ""
    with pytest.raises(TypeError):
        grounding.valid_word(3)


def toy_vocab():
    tokens = ["\u0120red", "\u0120blue", "\u0120the", "\u0120circle", "ing", "\u0120Red", "\u0120left", "\u0120square"]
    W_U = np.eye(len(tokens), 4 * 2)[:, :8]              # one-hot rows: logit of token i is direction[i]
    return tokens, W_U, grounding.vocabulary_words(tokens)


def test_top_words_by_hand():
    _, W_U, vocab = toy_vocab()
    d = np.array([5.0, 1.0, 9.0, 0.5, 8.0, 4.0, 3.0, -1.0])
    # order by logit: the(9, stop), ing(8, piece), red(5), Red(4, duplicate), left(3), blue(1), circle(.5), square
    assert grounding.top_words(d, W_U, vocab, n_words=3, pre_top=8) == ["red", "left", "blue"]
    assert grounding.top_words(d, W_U, vocab, n_words=3, pre_top=4) == ["red"]   # only the first 4 logits looked at
    U = np.stack([d, -d])
    assert grounding.text_grounding(U, W_U, vocab, 2, 8)[1] == ["square", "circle"]


def test_top_words_matches_argsort_reference():
    rng = np.random.default_rng(0)
    names = ["red", "blue", "green", "circle", "square", "left", "right", "top", "big", "small"]
    tokens = ["\u0120" + w for w in names]
    W_U = rng.normal(size=(10, 6))
    vocab = grounding.vocabulary_words(tokens)
    d = rng.normal(size=6)
    ref = [vocab[i] for i in np.argsort(-(W_U @ d))][:4]
    assert grounding.top_words(d, W_U, vocab, 4, 10) == ref


def test_random_words_seeded_and_shaped():
    rng = np.random.default_rng(1)
    tokens = ["\u0120" + w for w in ["red", "blue", "green", "circle", "square", "left", "right", "top"]]
    W_U = rng.normal(size=(8, 5))
    vocab = grounding.vocabulary_words(tokens)
    a = grounding.random_words(3, W_U, vocab, 2, 8, seed=4)
    assert a == grounding.random_words(3, W_U, vocab, 2, 8, seed=4)
    assert len(a) == 3 and all(len(w) == 2 for w in a)


def test_most_activating_by_hand():
    V = np.array([[0.1, 3.0], [2.0, 0.0], [2.0, 1.0], [0.5, 2.5]])
    np.testing.assert_array_equal(grounding.most_activating(V, 2), [[1, 2], [0, 3]])


@pytest.mark.parametrize("call, match", [
    (lambda W, v: grounding.top_words(np.full(8, np.nan), W, v), "finite"),
    (lambda W, v: grounding.top_words(np.ones(3), W, v), "length"),
    (lambda W, v: grounding.top_words(np.ones(8), W, v[:3]), "one entry per vocabulary"),
    (lambda W, v: grounding.top_words(np.ones(8), W, v, n_words=0), "n_words"),
    (lambda W, v: grounding.top_words(np.ones(8), W, v, n_words=5, pre_top=100), "pre_top"),
    (lambda W, v: grounding.top_words(np.ones(8), W.astype(int), v), "W_U"),
    (lambda W, v: grounding.random_words(0, W, v), "K"),
    (lambda W, v: grounding.most_activating(np.ones((3, 2)), 4), "n_images"),
    (lambda W, v: grounding.most_activating(np.array([[np.inf, 1.0]]), 1), "finite"),
])
def test_bad_inputs(call, match):
    _, W_U, vocab = toy_vocab()
    with pytest.raises(ValueError, match=match):
        call(W_U, vocab)
