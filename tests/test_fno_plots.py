"""The chapter's figures draw without error on small hand-made results (Agg backend, set in conftest)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from neurips24.fno.experiment import CorrelationResult, GradientResult, TrainingResult
from neurips24.fno.plots import (
    plot_correlation,
    plot_explore,
    plot_gradients,
    plot_training,
    plot_truncation_depth,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _correlation(n_k):
    rng = np.random.default_rng(0)
    return CorrelationResult(np.array([1.0, 2.0]), [2, 8, 16][:n_k], rng.uniform(0, 1, (n_k, 2, 2, 5)),
                             rng.uniform(0, 1, (n_k, 2, 5)), rng.uniform(0, 1, (n_k, 9)), {})


def test_plot_correlation_and_truncation_depth():
    res = _correlation(2)
    fig = plot_correlation(res)
    assert len(fig.axes) == 2
    # one line per σ² (mean field) and one marker series per σ² (Monte Carlo) in each panel
    assert len(fig.axes[0].lines) == 4
    np.testing.assert_allclose(fig.axes[0].lines[1].get_ydata(), res.c_mc[0, 0].mean(0))
    fig = plot_truncation_depth(res)
    assert len(fig.axes[0].lines) == 2


def test_plot_correlation_single_k():
    fig = plot_correlation(_correlation(1))
    assert len(fig.axes) == 1


def test_plot_gradients_prediction_line():
    L = 4
    norms = np.exp(-np.arange(L + 1))[None, None, None, :] * np.ones((2, 2, 3, 1))
    res = GradientResult(np.array([1.0, 4.0]), [2, 8], norms, {})
    fig = plot_gradients(res, k_index=1)
    pred = fig.axes[0].lines[3].get_ydata()        # dashed line of σ² = 4: slope −½ log10(σ²/2) per layer
    np.testing.assert_allclose(np.diff(pred), -0.5 * np.log10(2.0))


def test_plot_training_with_diverged_run():
    loss = np.ones((2, 3, 5))
    loss[1] = np.inf
    res = TrainingResult(np.array([1.0, 8.0]), loss, np.ones((2, 3)), {})
    fig = plot_training(res)
    assert np.all(np.isnan(fig.axes[0].lines[1].get_ydata()))


def test_plot_explore():
    phase = {"sigma2": np.array([1.0, 2.0, 3.0]), "n_modes": [2, 8], "depth": 4, "c": np.full((2, 3), 0.5)}
    fig = plot_explore(phase, 2.0, 8)
    assert len(fig.axes) == 3          # phase picture, its colour bar, the c_l curve


def test_plot_slopes_draws_one_panel_per_variant_with_the_three_predictions():
    from neurips24.fno.plots import plot_slopes

    rng = np.random.default_rng(0)
    res = GradientResult(np.array([1.0, 2.0, 4.0]), [2, 8], rng.uniform(0.5, 2, (2, 3, 3, 6)), {},
                         rng.normal(0, 0.3, (2, 3)))
    fig = plot_slopes({"spectral": res, "with W": res})
    assert len(fig.axes) == 2
    ax = fig.axes[0]
    np.testing.assert_allclose(ax.lines[1].get_ydata(), res.predicted[0])      # lag-resolved, K = 2
    fine = ax.lines[0].get_xdata()
    np.testing.assert_allclose(ax.lines[0].get_ydata(), 0.5 * np.log(fine / 2))  # FC ½ log χ


def test_plot_trainability_with_diverged_runs():
    from neurips24.fno.plots import plot_trainability
    from neurips24.fno.trainability import TrainabilityResult

    loss = np.full((3, 2, 2), 0.05)
    loss[2] = np.inf
    res = TrainabilityResult(np.array([1.0, 2.0, 4.0]), np.array([4, 8]), np.array([0, 1]), loss,
                             np.ones((3, 2, 2, 3)), {})
    fig = plot_trainability(res, {4: 2.8, 8: 2.4}, tol=0.1)
    assert len(fig.axes) == 3
