"""How close an unlearned model is to the retrained oracle: ToW and ToW-MIA (paper Sec. 4), and the MIA.

Tug-of-war (ToW), with θ_u the unlearned model, θ_r the model retrained from scratch on the retain set R, S the
forget set and accuracies in [0, 1]:

    ToW(θ_u, θ_r, S, R, D_test) = (1 − |acc(θ_u, S) − acc(θ_r, S)|) · (1 − |acc(θ_u, R) − acc(θ_r, R)|)
                                  · (1 − |acc(θ_u, D_test) − acc(θ_r, D_test)|).              (ToW)

1 means "indistinguishable from retraining on all three sets"; forgetting well but damaging the rest, or the
reverse, pulls it down. ToW-MIA replaces the forget-set accuracy by the MIA efficacy on S.

The membership-inference attack follows the official ``evaluation/SVC_MIA.py``: a scikit-learn
``SVC(C=3, gamma='auto')`` (RBF kernel) on one feature, the model's probability of the true class, trained to
tell retain points (label 1, as many as test points) from test points (label 0); the MIA efficacy of a model is
the share of forget points it classifies as non-members.
"""
from __future__ import annotations

import numpy as np


def _check_acc(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or not np.isfinite(value) \
            or not 0 <= value <= 1:
        raise ValueError(f"{name} must be a finite number in [0, 1], got {value!r}")
    return float(value)


def tow(acc_u: dict, acc_r: dict) -> float:
    """Tug-of-war (ToW) between an unlearned model and the retrained oracle.

    Parameters
    ----------
    acc_u, acc_r : dicts with keys 'forget', 'retain', 'test', each an accuracy in [0, 1] (for ToW-MIA, the
        'forget' entry is the MIA efficacy on the forget set, also in [0, 1]).

    Returns
    -------
    float in [0, 1].

    Raises
    ------
    ValueError if a key is missing or a value is not in [0, 1].
    """
    out = 1.0
    for key in ("forget", "retain", "test"):
        if key not in acc_u or key not in acc_r:
            raise ValueError(f"acc_u and acc_r need the keys 'forget', 'retain', 'test'; {key!r} is missing")
        out *= 1 - abs(_check_acc(f"acc_u[{key!r}]", acc_u[key]) - _check_acc(f"acc_r[{key!r}]", acc_r[key]))
    return out


def accuracies(proba, y, sets: dict) -> dict:
    """Accuracy of one model on named index sets: ``{name: mean(argmax proba[idx] == y[idx])}``.

    proba (n, c) probabilities; y (n,) labels; sets: name -> index array (non-empty).
    """
    pred = np.asarray(proba).argmax(-1)
    y = np.asarray(y)
    return {name: float((pred[idx] == y[idx]).mean()) for name, idx in sets.items()}


def true_class_confidence(proba, y) -> np.ndarray:
    """p_y(x): the probability the model gives to the label, (n,) float64.

    Raises
    ------
    ValueError on mismatched shapes or probabilities outside [0, 1] (NaN included).
    """
    proba = np.asarray(proba, dtype=float)
    y = np.asarray(y)
    if proba.ndim != 2 or y.shape != (proba.shape[0],):
        raise ValueError(f"proba must be (n, c) and y (n,), got {proba.shape} and {y.shape}")
    if not np.all((proba >= 0) & (proba <= 1)):
        raise ValueError("proba must hold probabilities in [0, 1] (no NaN)")
    return proba[np.arange(len(y)), y]


def modified_entropy(proba, y) -> np.ndarray:
    """Modified entropy of Song & Mittal (2021), a membership-inference feature:

        Mentr(p, y) = −(1 − p_y) log p_y − Σ_{k ≠ y} p_k log(1 − p_k),

    with 0 · log 0 = 0 (logs clipped at 1e-30). The official ``SVC_MIA.m_entropy`` writes log p where
    log(1 − p) is meant, and overwrites whole columns by label; this is the formula as published.

    Parameters
    ----------
    proba : (n, c) probabilities; y : (n,) int labels.

    Returns
    -------
    (n,) float64, >= 0; 0 for a confident right answer, large for a confident wrong one.
    """
    proba = np.asarray(proba, dtype=float)
    p_y = true_class_confidence(proba, y)
    log = lambda v: np.log(np.clip(v, 1e-30, None))           # noqa: E731
    other = -(proba * log(1 - proba))
    other[np.arange(len(p_y)), np.asarray(y)] = 0
    return -(1 - p_y) * log(p_y) + other.sum(1)


def mia_efficacy(conf_retain, conf_test, conf_forget, seed: int = 0) -> float:
    """SVC membership-inference attack on one feature (the official SVC_MIA, 'confidence' feature).

    Parameters
    ----------
    conf_retain : (n_R,) feature on retain points; ``min(n_R, n_test)`` of them (drawn with ``seed``) are the
        members (label 1) — the official code uses as many retain points as test points.
    conf_test : (n_test,) feature on test points, the non-members (label 0).
    conf_forget : (n_S,) feature on the forget set.

    Returns
    -------
    float in [0, 1]: the share of forget points the attack calls non-members (higher: looks forgotten).

    Raises
    ------
    ValueError on empty or non-finite inputs.
    """
    from sklearn.svm import SVC

    arrays = [np.asarray(a, dtype=float).ravel() for a in (conf_retain, conf_test, conf_forget)]
    for name, a in zip(("conf_retain", "conf_test", "conf_forget"), arrays, strict=True):
        if a.size == 0 or not np.all(np.isfinite(a)):
            raise ValueError(f"{name} must be a non-empty array of finite values")
    retain, test, forget = arrays
    rng = np.random.default_rng(seed)
    members = retain[rng.choice(len(retain), size=min(len(retain), len(test)), replace=False)]
    xs = np.concatenate([members, test])[:, None]
    ys = np.concatenate([np.ones(len(members)), np.zeros(len(test))])
    clf = SVC(C=3, gamma="auto", kernel="rbf").fit(xs, ys)
    return float(1 - clf.predict(forget[:, None]).mean())
