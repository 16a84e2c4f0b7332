"""The EBM comparison (InterpretML, optional): term scores against the library's own decision function and
importances, recovery of a known additive truth, and every bad input."""
import numpy as np
import pytest

from neurips24 import imn

pytest.importorskip("interpret")


@pytest.fixture(scope="module")
def logistic_ebm():
    d = imn.load_tabular("logistic", seed=0, n=1500)
    return d, imn.fit_ebm(d["X_train"], d["y_train"], seed=0)


def test_term_scores_and_intercept_add_up_to_the_library_logit(logistic_ebm):
    d, model = logistic_ebm
    a = imn.ebm_local_scores(model, d["X_test"])
    assert a.shape == d["X_test"].shape and a.dtype == np.float64
    assert np.allclose(a.sum(1) + model.intercept_, model.decision_function(d["X_test"]))
    p1 = 1 / (1 + np.exp(-(a.sum(1) + model.intercept_)))
    assert np.allclose(p1, model.predict_proba(d["X_test"])[:, 1])


def test_term_scores_recover_an_additive_truth(logistic_ebm):
    d, model = logistic_ebm                           # the truth beta * x is additive: a GAM can represent it
    assert imn.impact_correlation(imn.ebm_local_scores(model, d["X_test"]), d["X_test"] * d["beta"]) > 0.9
    imp = imn.ebm_global_importance(model)
    assert imp.shape == (10,) and np.allclose(imp, model.term_importances())
    assert set(np.argsort(-imp)[:3]) == {0, 1, 2}     # |beta| = 3, 2, 1.5 lead


def test_global_importance_leaves_out_pair_terms():
    d = imn.load_tabular("logistic", seed=1, n=300)
    model = imn.fit_ebm(d["X_train"], d["y_train"], seed=1, outer_bags=1, interactions=2)
    terms = [tuple(t) for t in model.term_features_]
    assert len(terms) == 12
    ref = np.asarray(model.term_importances())[[terms.index((m,)) for m in range(10)]]
    assert np.allclose(imn.ebm_global_importance(model), ref)
    with pytest.raises(ValueError, match="main-effects"):
        imn.ebm_local_scores(model, d["X_test"])


@pytest.mark.parametrize("X, y, kw, err, match", [
    (np.array([[0.0, np.nan], [1.0, 2.0]]), [0, 1], {}, ValueError, "non-finite"),
    (np.zeros((3, 2)), [0, 1], {}, ValueError, "mismatched"),
    (np.zeros((3, 2)), [1, 1, 1], {}, ValueError, "at least 2 classes"),
    (np.array([["a", "b"], ["c", "d"]]), [0, 1], {}, TypeError, "numeric"),
    (np.zeros((4, 2)), [0, 1, 0, 1], {"outer_bags": 0}, ValueError, "outer_bags"),
    (np.zeros((4, 2)), [0, 1, 0, 1], {"interactions": -1}, ValueError, "interactions"),
])
def test_fit_ebm_rejects_bad_input(X, y, kw, err, match):
    with pytest.raises(err, match=match):
        imn.fit_ebm(X, y, seed=0, **kw)


def test_local_scores_reject_multiclass_and_wrong_width(logistic_ebm):
    d, model = logistic_ebm
    with pytest.raises(ValueError, match="features"):
        imn.ebm_local_scores(model, d["X_test"][:, :4])
    with pytest.raises(ValueError, match="non-finite"):
        imn.ebm_local_scores(model, np.full((2, 10), np.inf))
    w = imn.load_tabular("wine", seed=0)
    multi = imn.fit_ebm(w["X_train"], w["y_train"], seed=0, outer_bags=1)
    with pytest.raises(ValueError, match="binary"):
        imn.ebm_local_scores(multi, w["X_test"])
