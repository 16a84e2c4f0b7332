"""Feldman's memorization score and the C-proxy (paper Sec. 3; Feldman & Zhang 2020; Zhao et al. 2024b).

Memorization of training point i by a learning algorithm A on data D (Feldman 2020):

    mem(A, D, i) = P_{f ~ A(D)}[f(x_i) = y_i] − P_{f ~ A(D \\ {i})}[f(x_i) = y_i],

estimated as Feldman & Zhang do (and the official code's ``cifar_infl_mem_torch.py``): train many models on
random subsets holding a share of the data, and for each point subtract its accuracy among the models that did
*not* see it from its accuracy among those that did. A point the model gets right only when it is in the
training set (an atypical or mislabelled one) has mem near 1; a typical point, near 0.

The C-proxy (confidence proxy) of the follow-up paper (arXiv 2410.16516) is the mean over training of the
softmax probability of the label: memorized points are learned late and with low confidence, so the proxy is
negatively correlated with mem, and it costs one training run instead of hundreds.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .stack import Objective, check_data, init_stack, predict_proba, subset_weights, train_stack


def memorization_from_runs(correct, in_subset) -> np.ndarray:
    """mem_i = mean_r[correct_r(i) | i in subset_r] − mean_r[correct_r(i) | i not in subset_r].

    Parameters
    ----------
    correct : (R, n) bool, whether run r classifies training point i as its (training) label.
    in_subset : (R, n) bool, whether point i was in run r's training subset.

    Returns
    -------
    (n,) float64 in [−1, 1].

    Raises
    ------
    ValueError if the shapes differ or some point is never in, or never out of, a subset.
    """
    correct = np.asarray(correct, dtype=bool)
    in_subset = np.asarray(in_subset, dtype=bool)
    if correct.ndim != 2 or correct.shape != in_subset.shape:
        raise ValueError(f"correct and in_subset must be (R, n) arrays of one shape, got {correct.shape} and "
                         f"{in_subset.shape}")
    n_in, n_out = in_subset.sum(0), (~in_subset).sum(0)
    if np.any(n_in == 0) or np.any(n_out == 0):
        raise ValueError("every point must be in at least one subset and out of at least one: use more runs")
    return (correct & in_subset).sum(0) / n_in - (correct & ~in_subset).sum(0) / n_out


def subset_masks(n_runs: int, n: int, share: float, seed: int) -> np.ndarray:
    """(R, n) bool: which points each run trains on. Balanced design: every point is held out of exactly
    round((1 − share) · R) runs, chosen at random, so each run sees about share · n points and every point is
    both in and out of some runs (a uniform draw per run leaves some points never held out when R is small).

    Raises
    ------
    ValueError if share is not in (0, 1), n_runs < 2, or share leaves no run in or out for a point.
    """
    if isinstance(n_runs, bool) or not isinstance(n_runs, (int, np.integer)) or n_runs < 2:
        raise ValueError(f"n_runs must be an integer >= 2, got {n_runs!r}")
    if isinstance(share, bool) or not isinstance(share, (int, float)) or not np.isfinite(share) or not 0 < share < 1:
        raise ValueError(f"share must be in (0, 1), got {share!r}")
    n_out = int(round((1 - share) * n_runs))
    if not 1 <= n_out <= n_runs - 1:
        raise ValueError(f"share={share} with n_runs={n_runs} holds each point out of {n_out} runs; need 1 to "
                         f"{n_runs - 1}: use more runs")
    rng = np.random.default_rng(seed)
    out_runs = np.argsort(rng.random((n, n_runs)), axis=1)[:, :n_out]        # (n, n_out) runs without point i
    masks = np.ones((n_runs, n), dtype=bool)
    masks[out_runs.T, np.arange(n)[None, :]] = False
    return masks


@dataclass
class MemorizationResult:
    """mem (n,) float64; c_proxy (n,) float64, mean label probability over training (in-subset runs only);
    in_subset (R, n) bool; train_acc, float: accuracy of the runs on their own subsets (should be ~1)."""

    mem: np.ndarray
    c_proxy: np.ndarray
    in_subset: np.ndarray
    train_acc: float


def estimate_memorization(x, y, *, n_runs: int, share: float = 0.7, steps: int, lr: float, hidden: int,
                          seed: int = 0, checkpoints: int = 5, n_classes: int | None = None) -> MemorizationResult:
    """Feldman–Zhang memorization and the C-proxy from ``n_runs`` MLPs trained at once (one stacked program).

    Each run is trained by full-batch Adam on its subset (:func:`.stack.train_stack`); training stops
    at ``checkpoints`` equally spaced steps to record the label probability of the points in its subset (the C-proxy).

    Parameters
    ----------
    x : (n, d) float32 inputs; y : (n,) int64 training labels (noisy ones included).
    n_runs, share : the number of runs and the share of points each sees (paper: 400 runs at 70 %).
    steps, lr, hidden : the training recipe (full-batch Adam).
    seed : fixes the subsets and the initialisations.
    checkpoints : number of equally spaced points in training where the C-proxy is recorded.
    n_classes : number of classes (None: the largest label + 1).

    Returns
    -------
    :class:`MemorizationResult`.

    Raises
    ------
    ValueError on bad sizes (see :func:`subset_masks`, :func:`memorization_from_runs`), on non-finite inputs
    (NaN or inf in x) or negative labels (see :func:`.stack.check_data`); TypeError on non-integer labels.
    """
    y = np.asarray(y)
    n_classes = int(y.max()) + 1 if n_classes is None and y.size and y.dtype.kind in "iu" else n_classes
    x, y = check_data(x, y, 1 if n_classes is None else n_classes)
    masks = subset_masks(n_runs, len(y), share, seed)
    params = init_stack(n_runs, x.shape[1], hidden, n_classes, seed)
    obj = Objective(subset_weights(masks), torch.as_tensor(y)).to(params["W1"].device)
    conf = np.zeros(masks.shape)
    every = max(1, steps // checkpoints)
    seen = []

    def record(t, p):
        if (t + 1) % every == 0:
            seen.append(t)
            conf[:] += predict_proba(p, x)[:, np.arange(len(y)), y]

    params = train_stack(params, x, obj, steps, lr, on_step=record)
    conf /= len(seen)
    correct = predict_proba(params, x).argmax(-1) == y[None]
    c_proxy = (conf * masks).sum(0) / np.maximum(masks.sum(0), 1)
    return MemorizationResult(memorization_from_runs(correct, masks), c_proxy, masks,
                              float((correct & masks).sum() / masks.sum()))
