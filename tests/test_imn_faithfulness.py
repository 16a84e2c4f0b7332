"""Faithfulness measures against SciPy, closed forms and hand-worked cases."""
import numpy as np
import pytest
from scipy.stats import pearsonr
from sklearn.linear_model import LogisticRegression

from neurips24 import imn


def test_impact_correlation_is_the_mean_rowwise_pearson():
    rng = np.random.default_rng(0)
    a, t = rng.standard_normal((20, 10)), rng.standard_normal((20, 10))
    ref = np.mean([pearsonr(a[i], t[i]).statistic for i in range(20)])
    assert imn.impact_correlation(a, t) == pytest.approx(ref, abs=1e-12)
    assert imn.impact_correlation(3 * t, t) == pytest.approx(1.0)


def test_impact_correlation_bad_inputs():
    with pytest.raises(ValueError, match="mismatched"):
        imn.impact_correlation(np.zeros((2, 3)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="constant"):
        imn.impact_correlation(np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ValueError, match="non-finite"):
        imn.impact_correlation(np.full((2, 3), np.nan), np.ones((2, 3)))


def test_occlusion_of_a_linear_model_is_coef_times_displacement():
    X, y = imn.make_logistic(300, seed=0)
    lr = LogisticRegression().fit(X, y)
    base = X.mean(0)
    a = imn.occlusion_attributions(lr.decision_function, X[:7], base)
    assert np.allclose(a, lr.coef_[0] * (X[:7] - base))
    with pytest.raises(ValueError, match="baseline"):
        imn.occlusion_attributions(lr.decision_function, X[:7], base[:3])


def test_neighbour_hyperplane_accuracy_hand_case():
    X = np.array([[0.0], [1.0], [2.0], [10.0]])
    W = np.array([[1.0, -0.5]] * 4)                  # every hyperplane says: class 1 iff x > 0.5
    labels = np.array([0, 1, 1, 1])
    # k = 1 neighbours: 0->1 (pred 1, label 1), 1->0 or 2 (tie: 0 first -> pred 0, label 0), 2->1, 10->2: all right
    assert imn.neighbour_hyperplane_accuracy(X, W, labels, 1) == 1.0
    wrong = np.array([1, 0, 0, 0])
    assert imn.neighbour_hyperplane_accuracy(X, W, wrong, 3) < 0.5
    with pytest.raises(ValueError, match="k must"):
        imn.neighbour_hyperplane_accuracy(X, W, labels, 4)
    with pytest.raises(ValueError, match="W must"):
        imn.neighbour_hyperplane_accuracy(X, W[:, :1], labels, 1)


def test_deletion_curve_hand_case():
    def proba(Z):                                    # class 1 iff the sum of features is large
        p1 = 1 / (1 + np.exp(-(Z.sum(1) - 1.0)))
        return np.stack([1 - p1, p1], 1)
    X = np.array([[3.0, 1.0]])
    curve = imn.deletion_curve(proba, X, np.array([[0, 1]]), np.zeros(2))
    assert np.allclose(curve, [proba(X)[0, 1], proba(np.array([[0.0, 1.0]]))[0, 1], proba(np.zeros((1, 2)))[0, 1]])
    with pytest.raises(ValueError, match="permutation"):
        imn.deletion_curve(proba, X, np.array([[0, 0]]), np.zeros(2))
