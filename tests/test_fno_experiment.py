"""The chapter's experiment drivers, on configurations shrunk to seconds, and their result helpers."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.fno import experiment
from neurips24.fno.experiment import (
    CorrelationResult,
    GradientResult,
    run_correlation,
    run_gradients,
    run_training,
    two_inputs,
)


def test_two_inputs():
    u = two_inputs(16)
    x = np.arange(16) / 16
    assert u.shape == (2, 16)
    np.testing.assert_allclose(u[0], np.sin(2 * np.pi * x) + 0.5 * np.cos(6 * np.pi * x), atol=1e-15)


@pytest.mark.parametrize("run", [run_correlation, run_gradients, run_training])
def test_runs_reject_unknown_scale(run):
    with pytest.raises(ValueError, match="fast"):
        run("medium")


def test_gradient_result_slopes_and_ratio_hand_case():
    # norms = a · g^(L − l): a gain of g per layer going down, so the fitted slope is log g
    L = 6
    gains = np.array([[[1.5, 0.5]], [[2.0, 1.0]]])                   # (K=2, S=1, seeds=2)
    layers = np.arange(L + 1)
    norms = 3.0 * gains[..., None] ** (L - layers)
    norms[..., -1] *= 10.0                                            # a top layer off the line: skipped
    res = GradientResult(np.array([1.0]), [2, 8], norms, {})
    np.testing.assert_allclose(res.slopes(skip_top=1), np.log(gains), atol=1e-12)
    np.testing.assert_allclose(res.ratio(), gains ** L / 10.0, rtol=1e-12)


def test_correlation_result_end_averages():
    c_mc = np.arange(2 * 3 * 2 * 7, dtype=float).reshape(2, 3, 2, 7)
    c_mf = np.arange(2 * 3 * 7, dtype=float).reshape(2, 3, 7)
    res = CorrelationResult(np.array([1.0, 2.0, 3.0]), [2, 8], c_mc, c_mf, np.zeros((2, 5)), {})
    expected = np.array([[np.mean(c_mc[i, j, :, -3:]) for j in range(3)] for i in range(2)])
    np.testing.assert_allclose(res.c_end(3), expected)
    np.testing.assert_allclose(res.c_mf_end(2), c_mf[..., -2:].mean(-1))


def test_run_correlation_small(monkeypatch):
    cfg = dict(n_grid=16, width=16, depth=3, n_seeds=2, sigma2=[1.0, 2.0], n_modes=[2, 4], sigma_b2=0.05, deep=10)
    monkeypatch.setitem(experiment.CONFIG["fast"], "correlation", cfg)
    monkeypatch.setenv("NEURIPS24_DEVICE", "cpu")
    res = run_correlation("fast")
    assert res.c_mc.shape == (2, 2, 2, 4) and res.c_mf.shape == (2, 2, 4) and res.c_deep.shape == (2, 11)
    # the mean-field rows are the recursion itself, and c_deep continues the σ² = 2 recursion
    from neurips24.fno.meanfield import correlation_recursion
    for i, K in enumerate([2, 4]):
        ref = correlation_recursion(two_inputs(16), sigma_w2=1.0, sigma_r2=1.0, sigma_b2=0.05, n_modes=K,
                                    depth=10, activation="tanh")[0]
        np.testing.assert_allclose(res.c_deep[i], ref, rtol=1e-12)
        np.testing.assert_allclose(res.c_mf[i, 1], ref[:4], rtol=1e-12)
    assert np.all(np.abs(res.c_mc) <= 1 + 1e-12)
    assert res.config["variant"] == "with_w"
    # layer 0 is the inputs' correlation in both
    u = two_inputs(16)
    c0 = u[0] @ u[1] / np.sqrt((u[0] @ u[0]) * (u[1] @ u[1]))
    np.testing.assert_allclose(res.c_mc[..., 0], c0, rtol=1e-12)
    np.testing.assert_allclose(res.c_mf[..., 0], c0, rtol=1e-12)


def test_run_gradients_small(monkeypatch):
    cfg = dict(n_grid=16, width=8, depth=3, n_seeds=2, sigma2=[1.0, 4.0], n_modes=[2, 4], batch=2)
    monkeypatch.setitem(experiment.CONFIG["fast"], "gradients", cfg)
    res = run_gradients("fast")
    assert res.norms.shape == (2, 2, 2, 4)
    assert np.all(np.isfinite(res.norms)) and np.all(res.norms > 0)
    # the top layer's gradient is the loss weight G itself: ‖G‖ of a (batch, D, N) standard normal draw
    top = res.norms[..., -1] / np.sqrt(2 * 8 * 16)
    assert np.all(top > 0.5) and np.all(top < 2)
    # ordered σ² = 1 shrinks and chaotic σ² = 4 grows the gradient on the way down, at every K and seed
    assert np.all(res.slopes()[:, 0] < res.slopes()[:, 1])
    # the stored predictions are the lag-resolved theory for this grid
    from neurips24.fno.backward import predicted_slope
    for i, K in enumerate([2, 4]):
        for j, s in enumerate([1.0, 4.0]):
            assert res.predicted[i, j] == pytest.approx(predicted_slope(s, "spectral", n_modes=K, n_grid=16, depth=3))


def test_run_training_small(monkeypatch):
    cfg = dict(n_grid=16, width=4, depth=2, n_modes=3, n_seeds=1, sigma2=[1.0, 2.0], steps=2, n_train=8,
               n_test=4, sigma_b2=0.1)
    monkeypatch.setitem(experiment.CONFIG["fast"], "training", cfg)
    res = run_training("fast")
    assert res.train_loss.shape == (2, 1, 2) and res.test_loss.shape == (2, 1)
    assert np.all(np.isfinite(res.train_loss))
