"""Planted bugs in the FNO chapter: each must make one of its claims fail.

Small size: the gradient law (``fno.relu_gain``) on the FNO with W at K = 1, 2, σ² = 1, 2, depth 12, 12 seeds
(about 50 small networks), and the trainability claims on the shipped grid (the live re-runs replaced by the
grid's own entries, so no training runs here; the live check itself, which needs re-trained runs, is left out).
"""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.fno import backward, experiment, layer, model, reproduction, trainability

from .harness import assert_caught, outcomes

CHAPTER = "fno_edge_of_chaos"
SMALL = dict(n_modes=[1, 2], sigma2=[1.0, 2.0], n_seeds=12, depth=12)


def run_small() -> dict:
    grads = {"with_w": experiment.run_gradients("fast", variant="with_w", seed=0, **SMALL)}
    grid, _ = trainability.load_record()
    rows = np.ix_([1, 3, 5], [2], [0, 1, 2])   # σ² = 1, 2, 3 at L = 16, seeds 0-2: the live subset, read from the grid
    live = trainability.TrainabilityResult(grid.sigma2[[1, 3, 5]], grid.depths[[2]], grid.seeds[[0, 1, 2]],
                                           grid.test_loss[rows], grid.train_loss[rows], grid.config)
    cfg = grid.config
    edges = {int(L): backward.edge_sigma2(cfg["variant"], n_modes=cfg["n_modes"], n_grid=cfg["n_grid"], depth=int(L),
                                          sigma_b2=cfg["sigma_b2"]) for L in grid.depths}
    checks = {**reproduction.gradient_checks(grads), **reproduction.trainability_checks(grid, live, edges)}
    del checks["fno.trainable_live"]   # needs re-trained runs (live read from the grid would match it exactly)
    return checks


@pytest.fixture(scope="module")
def base():
    return outcomes(run_small())


def test_k_plus_one_modes(monkeypatch, base):
    real = experiment.DeepFNO
    monkeypatch.setattr(experiment, "DeepFNO", lambda depth, width, K, N, act: real(depth, width, K + 1, N, act))
    assert_caught(CHAPTER, "k_plus_one_modes", "the random FNOs keep K + 1 Fourier modes while the mean field "
                  "filters with K (an off-by-one in the truncation)", outcomes(run_small()), base)


def test_three_quarter_split(monkeypatch, base):
    real = layer.split_sigma2
    monkeypatch.setattr(model, "split_sigma2",
                        lambda s, variant="with_w": (0.75 * s, 0.25 * s) if variant == "with_w" else real(s, variant))
    assert_caught(CHAPTER, "three_quarter_split", "the FNO with W initialises σ_w² = 3σ²/4, σ_r² = σ²/4 instead of "
                  "σ²/2 each (the networks and the theory split σ² differently)", outcomes(run_small()), base)


def test_trained_means_failed(monkeypatch, base):
    real = trainability.trainable_depth
    monkeypatch.setattr(trainability, "trainable_depth",
                        lambda loss, depths, tol=trainability.TOL, quorum=0.5:
                        real(np.where(np.asarray(loss) <= tol, np.inf, 0.0), depths, tol, quorum))
    assert_caught(CHAPTER, "trained_means_failed", "the trainable depth counts a run as trained when its test loss "
                  "is above the threshold (a flipped comparison)", outcomes(run_small()), base)
