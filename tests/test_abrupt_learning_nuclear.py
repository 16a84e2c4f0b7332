"""The nuclear-norm baseline (abrupt_learning.nuclear): SVT worked by hand, ADMM against cvxpy on small
matrices, exact recovery where the minimiser is known, and the bad inputs."""
import numpy as np
import pytest
import torch

from neurips24.abrupt_learning import data, nuclear


def test_svt_by_hand_and_against_a_known_svd():
    assert np.allclose(nuclear.svt(np.diag([3.0, 1.0, 0.5]), 0.8), np.diag([2.2, 0.2, 0.0]))
    rng = np.random.default_rng(0)
    Q1, _ = np.linalg.qr(rng.normal(size=(7, 7)))
    Q2, _ = np.linalg.qr(rng.normal(size=(7, 7)))
    s = np.array([4.0, 2.0, 1.0, 0.5, 0.3, 0.2, 0.1])
    want = Q1 @ np.diag(np.maximum(s - 0.4, 0)) @ Q2.T
    assert np.allclose(nuclear.svt(Q1 @ np.diag(s) @ Q2.T, 0.4), want, atol=1e-12)
    assert np.allclose(nuclear.svt(np.stack([Q1, Q2]), 0.0), np.stack([Q1, Q2]))      # tau = 0: identity


def test_admm_by_hand_on_a_two_by_two():
    # ||[[1, 1], [1, x]]||_* = 2·sqrt(((1 − x)/2)² + 1) for x <= 1 (eigenvalues of opposite sign) and 1 + x for
    # x >= 1, so the unique minimiser is x = 1
    X = np.array([[1.0, 1.0], [1.0, np.nan]])
    ob = np.array([[True, True], [True, False]])
    Z = nuclear.nuclear_norm_complete(X, ob, tol=1e-10, iters=20000)
    assert Z[1, 1] == pytest.approx(1.0, abs=1e-5)
    assert np.array_equal(Z[ob], X[ob])


def test_admm_matches_cvxpy_on_small_matrices():
    pytest.importorskip("cvxpy")
    b = data.sample_batch(6, 7, 7, 2, 0.3, torch.Generator().manual_seed(3))
    X, ob = b.X.numpy().astype(np.float64), b.observed.numpy()
    Z = nuclear.nuclear_norm_complete(X, ob, iters=5000, tol=1e-8)
    for i in range(len(X)):
        C = nuclear.cvx_complete(X[i], ob[i])
        # the optimal value is unique (the minimiser may not be): compare nuclear norms, and the constraints
        assert np.linalg.norm(Z[i], "nuc") == pytest.approx(np.linalg.norm(C, "nuc"), rel=1e-5)
        assert np.abs(C[ob[i]] - X[i][ob[i]]).max() < 1e-6


def test_bad_inputs_raise():
    X = np.zeros((3, 3))
    ob = np.ones((3, 3), dtype=bool)
    with pytest.raises(ValueError, match="shape"):
        nuclear.nuclear_norm_complete(X, ob[:2])
    with pytest.raises(TypeError, match="bool"):
        nuclear.nuclear_norm_complete(X, ob.astype(int))
    with pytest.raises(TypeError, match="float"):
        nuclear.nuclear_norm_complete(X.astype(int), ob)
    bad = X.copy()
    bad[0, 0] = np.inf
    with pytest.raises(ValueError, match="finite"):
        nuclear.nuclear_norm_complete(bad, ob)
    with pytest.raises(ValueError, match="rho"):
        nuclear.nuclear_norm_complete(X, ob, rho=0.0)
    with pytest.raises(ValueError, match="tau"):
        nuclear.svt(X, -1.0)
    with pytest.raises(ValueError, match="finite"):
        nuclear.svt(bad, 1.0)
    hidden_nan = X.copy()
    hidden_nan[0, 0] = np.nan
    ob2 = ob.copy()
    ob2[0, 0] = False
    assert np.isfinite(nuclear.nuclear_norm_complete(hidden_nan, ob2)).all()       # hidden entries are ignored
