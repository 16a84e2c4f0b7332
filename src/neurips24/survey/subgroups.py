"""Subgroups: divergence of one response from many subgroups against the subgroups' entropy (paper §4, Fig. 5).

For a model m and a subgroup s (a U.S. state) with response distributions q_{s,Q} over the questions Q,

    div(m, s) = mean_Q KL(p_{m,Q} || q_{s,Q}),        H(s) = mean_Q H(q_{s,Q}) / log2 k_Q,

and the paper finds div falling as H rises for every model: responses near uniform "represent" the subgroups
whose answers are closest to uniform. :func:`synthetic_states` draws labelled-synthetic states for the mechanism
at scale; the real ones come from :mod:`~neurips24.survey.census`.
"""
from __future__ import annotations

import numpy as np
from scipy.stats import spearmanr

from .metrics import _check_distribution, kl_bits, normalized_entropy


def subgroup_divergence(p_model, q_states) -> np.ndarray:
    """div(m, s) = mean over questions of KL(p_Q || q_{s,Q}) in bits, for every subgroup s.

    Parameters
    ----------
    p_model : list over Q questions of (k_Q,) response distributions.
    q_states : list over the same Q questions of (S, k_Q) subgroup distributions (row s = subgroup s).

    Returns
    -------
    (S,) float64 (+inf where a subgroup has a zero cell the model uses).

    Raises
    ------
    ValueError if the lists differ in length, are empty, or a question's shapes disagree.
    """
    if len(p_model) != len(q_states) or len(p_model) == 0:
        raise ValueError(f"p_model and q_states must list the same >= 1 questions, got {len(p_model)}, "
                         f"{len(q_states)}")
    per_q = []
    for p, q in zip(p_model, q_states, strict=True):
        q = _check_distribution(q, "q_states[Q]")
        p = _check_distribution(p, "p_model[Q]")
        if q.ndim != 2 or q.shape[1] != p.shape[-1]:
            raise ValueError(f"each q_states[Q] must be (S, {p.shape[-1]}), got {q.shape}")
        per_q.append(kl_bits(p, q))
    S = {a.shape[0] for a in per_q}
    if len(S) != 1:
        raise ValueError(f"every question must have the same number of subgroups, got {sorted(S)}")
    return np.mean(per_q, axis=0)


def subgroup_entropy(q_states) -> np.ndarray:
    """H(s) = mean over questions of the normalised entropy of q_{s,Q}: (S,) in [0, 1]."""
    if len(q_states) == 0:
        raise ValueError("q_states must list at least one question")
    return np.mean([normalized_entropy(q) for q in q_states], axis=0)


def spearman(x, y) -> float:
    """Spearman rank correlation of two (S,) arrays (SciPy ``spearmanr``); +inf values rank last.

    Raises
    ------
    ValueError for fewer than 3 pairs, mismatched shapes or NaN.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.ndim != 1 or x.shape != y.shape or x.size < 3:
        raise ValueError(f"x and y must be 1-d of the same length >= 3, got {x.shape}, {y.shape}")
    if np.isnan(x).any() or np.isnan(y).any():
        raise ValueError("x and y must not contain NaN")
    return float(spearmanr(x, y).statistic)


def synthetic_states(ks, n_states: int = 50, concentration: float = 200.0, seed: int = 0):
    """SYNTHETIC Dirichlet 'states' between a peaked profile and uniform (not census data; book's own).

    For each question with k_Q choices a peaked base profile m_Q ~ Dirichlet(0.5, ..., 0.5) is drawn once;
    state s has a mixing weight t_s ~ U(0, 1) shared by all questions, and

        q_{s,Q} ~ Dirichlet(concentration * ((1 - t_s) m_Q + t_s / k_Q)),

    so states range from 'like the base profile' (low entropy) to near uniform (high entropy), with noise.

    Parameters
    ----------
    ks : sequence of k_Q >= 2.
    n_states : S >= 3.
    concentration : Dirichlet concentration > 0 (larger: states closer to their mixture).
    seed : int.

    Returns
    -------
    q_states : list over questions of (S, k_Q) float64.
    bases : list over questions of (k_Q,) base profiles m_Q.
    t : (S,) mixing weights.

    Raises
    ------
    ValueError for k < 2, n_states < 3 or concentration <= 0.
    """
    ks = [int(k) for k in ks]
    if not ks or min(ks) < 2:
        raise ValueError(f"ks must list k >= 2 choices per question, got {ks}")
    if n_states < 3 or concentration <= 0:
        raise ValueError(f"need n_states >= 3 and concentration > 0, got {n_states}, {concentration}")
    rng = np.random.default_rng(seed)
    bases = [rng.dirichlet(np.full(k, 0.5)) for k in ks]
    t = rng.uniform(0.0, 1.0, n_states)
    q_states = []
    for k, m in zip(ks, bases, strict=True):
        alpha = concentration * ((1 - t)[:, None] * m[None, :] + t[:, None] / k)
        q = np.stack([rng.dirichlet(a) for a in alpha])
        q = np.clip(q, 1e-12, None)
        q_states.append(q / q.sum(axis=1, keepdims=True))
    return q_states, bases, t
