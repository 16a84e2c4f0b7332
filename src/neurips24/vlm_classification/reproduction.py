"""The numbers the chapter's reproduction checks compare with the paper's claims, with their intervals.

Each function returns the claim's measurement, its control (the same measurement where the claim must not hold)
and a 95 % bootstrap interval over the test images (``neurips24.claims.bootstrap_interval``, SciPy).
"""
from __future__ import annotations

import numpy as np
from scipy.stats import spearmanr

from ..claims import bootstrap_interval
from .evaluation import linear_probe, per_class_accuracy

SHUFFLE_SEED = 0


def _gap(result, name: str) -> np.ndarray:
    """Per-image (probe correct) - (open-world generation correct) for projector ``name``: values -1, 0, 1."""
    v = result.variants[name]
    return (v.probe_pred == result.labels).astype(float) - v.open_correct.astype(float)


def probe_gap(result) -> dict:
    """Probe on the LM's hidden state minus open-world generative accuracy (points), 'captions' projector. Claim:
    > 20 points (Sec. 3.2). Control: the same gap with the probe trained on the probe-training labels shuffled
    (a fixed permutation, ``SHUFFLE_SEED``), so that the probe can only fit noise (Hewitt & Liang's control task
    idea)."""
    v = result.variants["captions"]
    d = _gap(result, "captions")
    shuffled = np.random.default_rng(SHUFFLE_SEED).permutation(result.probe_labels)
    control_pred = linear_probe(v.probe_hidden, shuffled, v.hidden)
    control = (control_pred == result.labels).astype(float) - v.open_correct.astype(float)
    return {"measured": 100 * d.mean(), "interval": bootstrap_interval(100 * d), "control": 100 * control.mean()}


def balanced_gap(result) -> dict:
    """The probe-generation gap (points) of the 'balanced' projector; control: the 'captions' projector's gap.
    Claim: within 10 points (Sec. 5)."""
    d = _gap(result, "balanced")
    return {"measured": 100 * d.mean(), "interval": bootstrap_interval(100 * d),
            "control": 100 * _gap(result, "captions").mean()}


def _spearman_of_rows(freq: np.ndarray, correct: np.ndarray, labels: np.ndarray):
    def stat(idx, axis=-1):
        idx = np.atleast_2d(np.asarray(idx, dtype=int))
        out = []
        for row in idx:
            acc = per_class_accuracy(correct[row], labels[row], 10)
            ok = np.isfinite(acc)
            out.append(spearmanr(freq[ok], acc[ok]).statistic if ok.sum() > 2 and np.ptp(acc[ok]) > 0 else 0.0)
        return np.array(out) if len(out) > 1 else out[0]
    return stat


def frequency_correlation(result) -> dict:
    """Spearman correlation between each class's training frequency and its open-world accuracy ('captions'
    projector, Sec. 4, Fig. 3); the control correlates the accuracies with the frequencies shuffled across classes
    (a fixed permutation, ``SHUFFLE_SEED``). The interval resamples test images."""
    v = result.variants["captions"]
    y = result.labels
    freq = np.asarray(result.frequency, dtype=float)
    acc = per_class_accuracy(v.open_correct, y, 10)
    rho = float(spearmanr(freq, acc).statistic)
    shuffled = freq[np.random.default_rng(SHUFFLE_SEED).permutation(10)]
    rho_ctrl = float(spearmanr(shuffled, acc).statistic)
    stat = _spearman_of_rows(freq, v.open_correct, y)
    idx = np.arange(len(y), dtype=float)
    iv = bootstrap_interval(idx, statistic=stat, n_resamples=999)
    return {"measured": rho, "control": rho_ctrl, "interval": iv, "shuffled": shuffled}


def closed_world_narrowing(result) -> dict:
    """How much the 2-candidate closed world raises accuracy over the open world (points, 'captions' projector):
    the gap to the probe narrows by as much (Sec. 2, Fig. 2). Control: the same prompt listing two wrong classes."""
    v = result.variants["captions"]
    d = v.closed_correct.astype(float) - v.open_correct.astype(float)
    dc = v.control_correct.astype(float) - v.open_correct.astype(float)
    return {"measured": 100 * d.mean(), "interval": bootstrap_interval(100 * d), "control": 100 * dc.mean()}
