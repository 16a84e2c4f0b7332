"""How good a concept dictionary is: reconstruction, overlap of grounded words, attribute precision (§4.1, App.).

- **Reconstruction**: ‖Z − Ẑ‖_F / ‖Z‖_F, the relative error of a method's reconstruction Ẑ.
- **Overlap** (the official ``compute_grounding_words_overlap``; lower means more disentangled concepts):
  O = 1/(K(K−1)) Σ_{i≠j} |T_i ∩ T_j| / |T_i|, O ∈ [0, 1]; undefined (an error) for a concept with no words
  (the official code counts its row 0, which gives an empty dictionary the best score).
- **Attribute precision** (the book's stand-in for the paper's CLIPScore, which needs CLIP, not available offline):
  for concept k with grounded words T_k and most activating images S_k, take w_k, the first word of T_k that
  names a value of an attribute that varies among the images (for the target 'circle': a colour, size or
  position word; shape words cannot tell one circle from another and are passed over, as are words that name no
  attribute, such as 'section' or 'ball'); the precision is the fraction of images in S_k whose ground-truth
  attributes include w_k, and 0 for a concept none of whose words names such an attribute. A wrong attribute
  word (say 'red' for blue images) counts against the concept.
"""
from __future__ import annotations

import numpy as np


def reconstruction_error(Z: np.ndarray, Z_hat: np.ndarray) -> float:
    """Relative reconstruction error ‖Z − Ẑ‖_F / ‖Z‖_F (dimensionless, ≥ 0).

    Raises
    ------
    ValueError if the shapes differ, an entry is not finite, or Z is all zero.
    """
    Z, Z_hat = np.asarray(Z, dtype=np.float64), np.asarray(Z_hat, dtype=np.float64)
    if Z.shape != Z_hat.shape or Z.ndim != 2:
        raise ValueError(f"Z and Z_hat must be 2-D of the same shape, got {Z.shape} and {Z_hat.shape}")
    if not (np.all(np.isfinite(Z)) and np.all(np.isfinite(Z_hat))):
        raise ValueError("Z and Z_hat must be finite")
    norm = np.linalg.norm(Z)
    if norm == 0:
        raise ValueError("Z is all zero: the relative error is undefined")
    return float(np.linalg.norm(Z - Z_hat) / norm)


def _check_word_lists(words, name="words"):
    if not isinstance(words, (list, tuple)) or not all(isinstance(w, (list, tuple)) for w in words):
        raise TypeError(f"{name} must be a list of lists of str (one list per concept)")
    if not all(isinstance(x, str) for w in words for x in w):
        raise TypeError(f"{name} must hold str words")


def overlap_matrix(words: list[list[str]]) -> np.ndarray:
    """(K, K) matrix O_ij = |T_i ∩ T_j| / |T_i| (0 on a row whose T_i is empty); the diagonal is 1 or 0."""
    _check_word_lists(words)
    K = len(words)
    O = np.zeros((K, K))
    for i, Ti in enumerate(words):
        if not Ti:
            continue
        for j, Tj in enumerate(words):
            O[i, j] = sum(1 for w in Ti if w in Tj) / len(Ti)
    return O


def overlap(words: list[list[str]]) -> float:
    """Overlap O of the grounded words of K ≥ 2 concepts: mean of O_ij over ordered pairs i ≠ j, in [0, 1].

    Raises
    ------
    ValueError if fewer than 2 concepts, or a concept has no grounded word (|T_i| = 0 makes its row undefined; the
    official code counts it 0, which would give an empty dictionary the best overlap). TypeError if ``words`` is
    not a list of lists of str.
    """
    _check_word_lists(words)
    K = len(words)
    if K < 2:
        raise ValueError(f"overlap needs at least 2 concepts, got {K}")
    empty = [i for i, w in enumerate(words) if not w]
    if empty:
        raise ValueError(f"overlap is undefined for a concept without grounded words: concepts {empty} have none")
    O = overlap_matrix(words)
    return float((O.sum() - np.trace(O)) / (K * (K - 1)))


def word_matches(word: str, attribute: str) -> bool:
    """A grounded word names an attribute: equal, or the attribute's plural ('circle' ~ 'circles')."""
    return word == attribute or word in (attribute + "s", attribute + "es")


def first_attribute_word(words: list[str], vocabulary, exclude=()) -> str:
    """w_k: the first of ``words`` that names an entry of ``vocabulary`` and none of ``exclude`` ('' if none)."""
    for w in words:
        if not any(word_matches(w, e) for e in exclude) and any(word_matches(w, a) for a in vocabulary):
            return w
    return ""


def concept_precision(words: list[str], mas: np.ndarray, attributes: list[set], n_words: int = 1,
                      exclude=(), vocabulary=None) -> float:
    """Fraction of the images ``mas`` whose attribute words contain one of the first ``n_words`` of ``words``,
    counting only words that name an entry of ``vocabulary`` (all words if None) and none of ``exclude``."""
    ws = [w for w in words if not any(word_matches(w, e) for e in exclude)
          and (vocabulary is None or any(word_matches(w, a) for a in vocabulary))][:n_words]
    hits = [any(word_matches(w, a) for w in ws for a in attributes[int(i)]) for i in mas]
    return float(np.mean(hits))


def attribute_precision(words: list[list[str]], mas: np.ndarray, attributes: list, n_words: int = 1,
                        exclude=(), vocabulary=None) -> np.ndarray:
    """Attribute precision of each concept (the book's CLIPScore stand-in; see the module's text).

    Parameters
    ----------
    words : K lists of grounded words (best first). mas : (K, n) int, the most activating samples.
    attributes : M sets (or lists) of lower-case attribute words, one per sample (e.g. {'big', 'red', 'circle',
    'left'}). n_words : int ≥ 1, how many of each concept's first words may match.
    exclude : words never counted (the target token, e.g. ('circle',)), with their plurals.
    vocabulary : the attribute words of the data set; grounded words naming none of them are passed over
    (None: every word counts).

    Returns
    -------
    (K,) float64 in [0, 1]; a concept with no grounded word scores 0.

    Raises
    ------
    ValueError if ``mas`` has not K rows or indexes outside the samples, or n_words < 1.
    """
    _check_word_lists(words)
    mas = np.asarray(mas)
    if mas.ndim != 2 or mas.shape[0] != len(words):
        raise ValueError(f"mas must have one row per concept ({len(words)}), got shape {mas.shape}")
    if mas.size and (mas.min() < 0 or mas.max() >= len(attributes)):
        raise ValueError(f"mas indexes samples outside [0, {len(attributes)})")
    if isinstance(n_words, bool) or not isinstance(n_words, (int, np.integer)) or n_words < 1:
        raise ValueError(f"n_words must be an int >= 1, got {n_words!r}")
    attrs = [set(a) for a in attributes]
    vocab = None if vocabulary is None else tuple(vocabulary)
    return np.array([concept_precision(w, m, attrs, n_words, tuple(exclude), vocab)
                     for w, m in zip(words, mas, strict=True)])
