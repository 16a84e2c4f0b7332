"""The paper's evaluation protocols: open-world substring match, closed-world choice, class frequency, probes.

Zhang et al., "Why are Visually-Grounded Language Models Bad at Image Classification?", NeurIPS 2024:
Sec. 2 (open- and closed-world evaluation), Sec. 3.2 (probabilistic inference and probing), Sec. 4 (class
frequency in the training captions). Read in the official repository (github.com/yuhui-zh15/VLMClassifier,
``main_results/``, ``feature_analysis/``, ``data_analysis/``); re-implemented here, nothing copied.

Libraries: scikit-learn (the linear probe: multinomial logistic regression),
SciPy (Spearman correlation, in the experiment).
"""
from __future__ import annotations

import numpy as np

OPEN_QUESTION = "What type of object is in this photo?"


def _check_labels(labels, n_classes: int) -> np.ndarray:
    y = np.asarray(labels)
    if y.ndim != 1 or y.size == 0 or not np.issubdtype(y.dtype, np.integer):
        raise ValueError(f"labels must be a non-empty 1-D integer array, got shape {y.shape} and dtype {y.dtype}")
    if y.min() < 0 or y.max() >= n_classes:
        raise ValueError(f"labels must be in 0..{n_classes - 1}, got {y.min()}..{y.max()}")
    return y


def _check_names(class_names) -> list[str]:
    names = list(class_names)
    if not names or not all(isinstance(c, str) and c.strip() for c in names):
        raise ValueError(f"class_names must be a non-empty list of non-empty strings, got {names!r}")
    return names


def substring_correct(predictions, labels, class_names) -> np.ndarray:
    """Open-world correctness (Sec. 2): the lower-cased class name is a substring of the lower-cased prediction.

    Parameters
    ----------
    predictions : N generated strings.
    labels : (N,) int, the true class of each image.
    class_names : C strings.

    Returns
    -------
    (N,) bool.

    Raises
    ------
    ValueError if the lengths differ, a label is out of range or a class name is empty; TypeError if a
    prediction is not a string.
    """
    names = _check_names(class_names)
    y = _check_labels(labels, len(names))
    preds = list(predictions)
    if len(preds) != len(y):
        raise ValueError(f"predictions and labels must have the same length, got {len(preds)} and {len(y)}")
    if not all(isinstance(p, str) for p in preds):
        raise TypeError("predictions must be strings")
    return np.array([names[c].lower() in p.lower() for p, c in zip(preds, y, strict=True)], dtype=bool)


def closed_world_prompt(candidates, question: str = OPEN_QUESTION) -> str:
    """The closed-world prompt (Sec. 2): the question, then ``Choose one from "c1, c2, ..., cn".``.

    Raises
    ------
    ValueError for fewer than 2 candidates or an empty name.
    """
    names = _check_names(candidates)
    if len(names) < 2:
        raise ValueError(f"candidates must hold at least 2 names, got {names!r}")
    return f'{question} Choose one from "{", ".join(names)}".'


def closed_world_candidates(labels, n_classes: int, n: int, seed: int = 0, include_true: bool = True) -> np.ndarray:
    """Candidate classes for each image: the true class and n - 1 others drawn at random, shuffled (Sec. 2's
    label-set-size analysis uses n = 100, 20, 5, 2). With ``include_true=False``, n classes that all differ from
    the true one (the control: a list without the answer cannot help).

    Returns
    -------
    (N, n) int64.

    Raises
    ------
    ValueError if n is outside 2..n_classes (2..n_classes - 1 without the true class) or a label is out of range.
    """
    y = _check_labels(labels, n_classes)
    top = n_classes if include_true else n_classes - 1
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 2 <= n <= top:
        raise ValueError(f"n must be an integer in 2..{top}, got {n!r}")
    rng = np.random.default_rng(seed)
    out = np.empty((len(y), n), dtype=np.int64)
    for i, c in enumerate(y):
        others = rng.permutation(np.delete(np.arange(n_classes), c))
        pick = np.concatenate([[c], others[:n - 1]]) if include_true else others[:n]
        out[i] = rng.permutation(pick)
    return out


def choice_correct(predictions, labels, candidates, class_names) -> np.ndarray:
    """Closed-world correctness: the prediction names the true class and no other candidate.

    Stricter than the open-world rule: an answer that repeats the whole list ("seven, two") does not count.

    Parameters
    ----------
    predictions : N strings. labels : (N,) int. candidates : (N, n) int from :func:`closed_world_candidates`.
    class_names : C strings.

    Returns
    -------
    (N,) bool.
    """
    names = _check_names(class_names)
    hit = substring_correct(predictions, labels, names)
    cand = np.asarray(candidates)
    if cand.ndim != 2 or len(cand) != len(hit):
        raise ValueError(f"candidates must be (N, n) with N = {len(hit)}, got shape {cand.shape}")
    y = np.asarray(labels)
    other = np.array([any(names[k].lower() in p.lower() for k in row if k != c)
                      for p, row, c in zip(predictions, cand, y, strict=True)])
    return hit & ~other


def count_mentions(caption_tokens, name_tokens) -> int:
    """freq(c) (Sec. 4): how many tokenized captions contain the tokenized class name as a contiguous sub-list.

    Parameters
    ----------
    caption_tokens : list of token-id lists, one per caption.
    name_tokens : the class name's token ids (non-empty).

    Returns
    -------
    int >= 0.

    Raises
    ------
    ValueError for an empty name.
    """
    name = list(name_tokens)
    if not name:
        raise ValueError("name_tokens must not be empty")
    k = len(name)
    return sum(any(list(cap[i:i + k]) == name for i in range(len(cap) - k + 1)) for cap in caption_tokens)


def per_class_accuracy(correct, labels, n_classes: int) -> np.ndarray:
    """Accuracy of each class: mean of ``correct`` over the images of that class; NaN for a class with none.

    Returns
    -------
    (n_classes,) float64.
    """
    y = _check_labels(labels, n_classes)
    ok = np.asarray(correct, dtype=float)
    if ok.shape != y.shape:
        raise ValueError(f"correct must have the shape of labels {y.shape}, got {ok.shape}")
    counts = np.bincount(y, minlength=n_classes)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.bincount(y, weights=ok, minlength=n_classes) / counts


def linear_probe(train_features, train_labels, test_features, C: float = 1.0) -> np.ndarray:
    """Predictions of a linear probe (softmax regression) on frozen features (Sec. 3.2), trained on a labelled
    training set and applied to the test images.

    The paper trains the probe with Adam (lr 1e-3, batch 512, 500 epochs); here scikit-learn's
    ``LogisticRegression`` (multinomial, L-BFGS, L2 strength 1/C) on features standardised with the training
    set's mean and standard deviation (``StandardScaler``).

    Parameters
    ----------
    train_features : (N, D) float, finite. train_labels : (N,) int, at least 2 classes.
    test_features : (M, D) float, finite.

    Returns
    -------
    (M,) int64 predicted classes.

    Raises
    ------
    ValueError for non-finite features, mismatched shapes or a single training class.
    """
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X = np.asarray(train_features, dtype=np.float64)
    Z = np.asarray(test_features, dtype=np.float64)
    y = np.asarray(train_labels)
    if X.ndim != 2 or Z.ndim != 2 or len(X) != len(y) or X.shape[1] != Z.shape[1]:
        raise ValueError(f"train_features must be (N, D) with N = len(train_labels) = {len(y)} and test_features "
                         f"(M, D), got shapes {X.shape} and {Z.shape}")
    if not (np.isfinite(X).all() and np.isfinite(Z).all()):
        raise ValueError("features contain NaN or inf")
    if len(np.unique(y)) < 2:
        raise ValueError("train_labels must hold at least 2 classes")
    model = make_pipeline(StandardScaler(), LogisticRegression(C=C, max_iter=3000))
    return model.fit(X, y).predict(Z).astype(np.int64)


def label_set_accuracy(scores, labels, n: int, seed: int = 0) -> float:
    """Accuracy of choosing the highest-scoring class among n candidates (the true one and n - 1 random others),
    the label-set-size analysis of Sec. 2 done with class-name likelihoods (one forward pass for every n).

    Parameters
    ----------
    scores : (N, C) float, finite, e.g. log-likelihoods of the C class names.
    labels : (N,) int in 0..C-1.
    n : 2..C.

    Returns
    -------
    float in [0, 1].

    Raises
    ------
    ValueError for non-finite scores, mismatched shapes or n outside 2..C.
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 2 or not np.isfinite(s).all():
        raise ValueError(f"scores must be a finite (N, C) array, got shape {s.shape}")
    y = _check_labels(labels, s.shape[1])
    if len(y) != len(s):
        raise ValueError(f"labels must have N = {len(s)} entries, got {len(y)}")
    cand = closed_world_candidates(y, s.shape[1], n, seed=seed)
    pick = cand[np.arange(len(y)), np.take_along_axis(s, cand, 1).argmax(1)]
    return float((pick == y).mean())
