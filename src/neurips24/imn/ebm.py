"""InterpretML's Explainable Boosting Machine (EBM): an explainable-by-design comparison for the IMN.

The library (``interpret-core``, ``interpret.glassbox.ExplainableBoostingClassifier``; Lou et al., KDD 2012 and
2013; Nori et al., 2019) fits a generalised additive model, logit P(y = 1 | x) = b + sum_m f_m(x_m) (+ optional
pairwise terms f_mj(x_m, x_j), "GA2M"), where each shape function f_m is a binned step function learned by
cyclic gradient boosting of shallow trees on one feature at a time, with early stopping on a validation split,
and averaged over ``outer_bags`` bagged fits. It explains itself the way the IMN does: a prediction's logit is
exactly the intercept plus the term scores f_m(x_m), which the library returns with ``eval_terms``.

- :func:`fit_ebm`: the classifier with the chapter's budget (few bags, main effects only by default).
- :func:`ebm_local_scores`: per-instance, per-feature term scores f_m(x_m), shape (n, M), in logit units.
- :func:`ebm_global_importance`: the library's ``term_importances`` of the main terms (mean |f_m(x_m)| over the
  training data).

``interpret-core`` is optional: these functions import it when called and raise ImportError naming the package.
"""
from __future__ import annotations

import numpy as np

from .data import check_x, check_xy


def _ebm_class():
    try:
        from interpret.glassbox import ExplainableBoostingClassifier
    except ImportError as err:        # pragma: no cover - exercised only without the optional package
        raise ImportError("the EBM comparison needs InterpretML: pip install interpret-core") from err
    return ExplainableBoostingClassifier


def fit_ebm(X, y, seed: int, outer_bags: int = 2, interactions: int | str = 0):
    """Fit InterpretML's ExplainableBoostingClassifier on (X, y).

    Parameters
    ----------
    X : array (n, M), numeric and finite; y : array (n,), >= 2 classes (validated by
        :func:`~neurips24.imn.data.check_xy`: NaN/inf, mismatched shapes, one class, strings raise).
    seed : int, the library's ``random_state`` (bagging and the validation split).
    outer_bags : int >= 1, bagged fits averaged (library default 14; the chapter's fast scale uses 2: the cost
        grows in proportion).
    interactions : int >= 0 or a string such as "3x", the number of pairwise terms (library default "3x";
        0 gives a pure additive model whose term scores are one per feature). The boosting rounds are left at
        the library's default with early stopping.

    Returns
    -------
    The fitted ``ExplainableBoostingClassifier`` (``predict_proba`` (n, K), ``decision_function``, ...), run
    on one core (``n_jobs=1``).

    Raises
    ------
    ValueError if ``outer_bags`` < 1 or ``interactions`` is a negative integer; TypeError / ValueError from
    :func:`~neurips24.imn.data.check_xy`; ImportError if ``interpret-core`` is not installed.
    """
    X, y, _ = check_xy(X, y)
    if int(outer_bags) < 1:
        raise ValueError(f"outer_bags must be >= 1, got {outer_bags}")
    if not isinstance(interactions, str) and int(interactions) < 0:
        raise ValueError(f"interactions must be >= 0 or a string such as '3x', got {interactions}")
    model = _ebm_class()(outer_bags=int(outer_bags), interactions=interactions, random_state=int(seed), n_jobs=1)
    return model.fit(X, y)


def ebm_local_scores(model, X) -> np.ndarray:
    """Per-instance, per-feature term scores f_m(x_m) of a main-effects binary EBM, (n, M) float64, logit units.

    They add up, with ``model.intercept_``, to ``model.decision_function(X)`` (a test checks it): the EBM's
    explanation by design, the counterpart of the IMN's impacts x_m W_m(x). Each f_m is centred by the library
    to mean 0 over the training data, as beta_m x_m is for centred x.

    Raises
    ------
    ValueError if the model is multiclass, has pairwise terms (their scores belong to two features), or X has
    the wrong number of features; TypeError / ValueError from :func:`~neurips24.imn.data.check_x`.
    """
    X = check_x(X)
    terms = [tuple(t) for t in model.term_features_]
    if len(model.classes_) != 2:
        raise ValueError(f"ebm_local_scores needs a binary EBM, got {len(model.classes_)} classes")
    if terms != [(m,) for m in range(len(terms))]:
        raise ValueError("ebm_local_scores needs a main-effects EBM (interactions=0): one term per feature")
    if X.shape[1] != len(terms):
        raise ValueError(f"X has {X.shape[1]} features, the EBM was fitted on {len(terms)}")
    return np.asarray(model.eval_terms(X), dtype=np.float64)


def ebm_global_importance(model) -> np.ndarray:
    """Global importance of each feature's main term, (M,) float64 in feature order: the library's
    ``term_importances()`` (mean |f_m(x_m)| over the training data); pairwise terms, if any, are left out.

    Raises
    ------
    ValueError if a feature has no main-effect term (e.g. it was excluded from the fit).
    """
    terms = [tuple(t) for t in model.term_features_]
    imp = np.asarray(model.term_importances(), dtype=np.float64)
    n_features = len(model.feature_names_in_)
    try:
        return np.array([imp[terms.index((m,))] for m in range(n_features)])
    except ValueError as err:
        raise ValueError("every feature needs a main-effect term in the EBM") from err
