"""The experiment's parts: data sets, baselines and AUROC against scikit-learn, and one seed of the run."""
import numpy as np
import pytest
import torch
from sklearn.metrics import roc_auc_score

from neurips24 import imn

torch.set_num_threads(1)


@pytest.mark.parametrize("name, M, K", [("breast_cancer", 30, 2), ("wine", 13, 3), ("noisy_moons", 10, 2),
                                        ("logistic", 10, 2)])
def test_load_tabular_shapes_and_standardisation(name, M, K):
    d = imn.load_tabular(name, seed=0, n=200)
    assert d["X_train"].shape[1] == d["X_test"].shape[1] == M == len(d["feature_names"])
    assert set(np.unique(d["y_train"])) == set(range(K))
    if name != "logistic":
        assert np.allclose(d["X_train"].mean(0), 0, atol=1e-9)


def test_logistic_labels_follow_beta():
    X, y = imn.make_logistic(20000, seed=0)
    from sklearn.linear_model import LogisticRegression
    coef = LogisticRegression(C=1e6, max_iter=2000).fit(X, y).coef_[0]
    assert np.allclose(coef, imn.BETA, atol=0.15)


def test_auroc_matches_sklearn_binary_and_multiclass():
    rng = np.random.default_rng(0)
    y2, p2 = rng.integers(0, 2, 50), rng.random((50, 2))
    assert imn.auroc(y2, p2) == roc_auc_score(y2, p2[:, 1])
    y3 = np.repeat([0, 1, 2], 10)
    p3 = rng.dirichlet(np.ones(3), 30)
    assert imn.auroc(y3, p3) == roc_auc_score(y3, p3, multi_class="ovr")
    with pytest.raises(ValueError, match="proba"):
        imn.auroc(y2, p2[:10])


def test_baselines_reject_bad_input():
    with pytest.raises(ValueError, match="at least 2 classes"):
        imn.fit_baselines(np.zeros((4, 2)), [0, 0, 0, 0], seed=0)


def test_one_seed_of_the_experiment_reproduces_the_faithfulness_claim():
    try:                                              # the EBM is an optional comparison (interpret-core)
        import interpret  # noqa: F401
        has_ebm = True
    except ImportError:
        has_ebm = False
    r = imn.run_experiment("fast", seeds=(0,), ebm=has_ebm)
    assert r.faith_local["IMN"][0] >= 0.8 > r.faith_local["IMN, untrained (control)"][0]
    assert r.mean("breast_cancer", "IMN") > r.mean("breast_cancer", "decision tree") + 0.03
    assert r.deletion["IMN impacts"][3] < r.deletion["random order"][3]
    assert ("EBM" in r.auroc["wine"]) == has_ebm == ("EBM: term scores" in r.faith_local)
    if has_ebm:
        assert r.mean("breast_cancer", "EBM") > r.mean("breast_cancer", "decision tree")
        assert r.faith_local["EBM: term scores"][0] > r.faith_local["IMN, untrained (control)"][0]
