"""The realizable-consistency sketch's threshold (2/3, not 1/2), bad inputs refused with clear errors, and the
plateau measure behind the chapter's Ψ_1 guard."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24 import defer
from neurips24.defer import experiment
from neurips24.defer.data import DeferData


def _correct(s: np.ndarray, y: int, w: float) -> bool:
    """Is decide() right on a point with softmax s, label y and expert credit w ∈ {0, 1}?"""
    d = int(defer.decide(torch.as_tensor(np.log(s))[None]).item())
    n = len(s) - 1
    return d == y or (d == n and w == 1.0)


def test_t_above_one_half_does_not_force_a_correct_decision():
    """s = (0.3, 0.4, 0.3): label 0, the expert right (w = 1): t = s_y + s_⊥ = 0.6 > 1/2, yet class 1 wins."""
    s, y, w = np.array([0.3, 0.4, 0.3]), 0, 1.0
    t = s[y] + w * s[-1]
    assert t > 0.5 and not _correct(s, y, w)
    # just below 2/3 the same construction still fails
    eps = 1e-3
    s = np.array([1 / 3 - eps / 2, 1 / 3 + eps, 1 / 3 - eps / 2])
    assert s[0] + s[-1] < 2 / 3 and not _correct(s, 0, 1.0)


@pytest.mark.parametrize("n", [2, 3, 10])
def test_t_above_two_thirds_forces_a_correct_decision(n):
    """t > 2/3: with w = 0, s_y > 2/3 is the largest; with w = 1, max(s_y, s_⊥) > 1/3 > every other s_k."""
    rng = np.random.default_rng(n)
    s = rng.dirichlet(np.full(n + 1, 0.3), size=20_000)
    y = rng.integers(0, n, size=len(s))
    w = rng.integers(0, 2, size=len(s)).astype(float)
    t = s[np.arange(len(s)), y] + w * s[:, -1]
    d = defer.decide(torch.as_tensor(np.log(s))).numpy()
    right = (d == y) | ((d == n) & (w == 1))
    assert (t > 2 / 3).sum() > 200 and right[t > 2 / 3].all()
    assert not right[(t > 0.5) & (t < 2 / 3)].all()          # between 1/2 and 2/3 mistakes happen


def test_empty_batch_is_refused():
    h, y, c = torch.zeros(0, 3), torch.zeros(0, dtype=torch.long), torch.zeros(0)
    for fn in (defer.rl2d_surrogate, defer.ce_surrogate, defer.ova_surrogate, defer.rs_surrogate):
        with pytest.raises(ValueError, match="empty batch"):
            fn(h, y, c)
    with pytest.raises(ValueError, match="empty batch"):
        defer.fused_loss_grad(h, y, c, "rl2d", 1.0)


@pytest.fixture(scope="module")
def tiny():
    return defer.mixture_data(20, 10, seed=0)


def _data(d, **changes):
    fields = dict(x_train=d.x_train, y_train=d.y_train, g_train=d.g_train, x_test=d.x_test, y_test=d.y_test,
                  g_test=d.g_test, n_classes=2, name="tiny")
    fields.update(changes)
    return DeferData(**fields)


@pytest.mark.parametrize("changes, message", [
    (lambda d: dict(x_train=d.x_train[:0], y_train=d.y_train[:0], g_train=d.g_train[:0]), "x_train must have shape"),
    (lambda d: dict(x_train=d.x_train[:, 0]), "x_train must have shape"),
    (lambda d: dict(y_train=d.y_train[:5]), "y_train must have shape"),
    (lambda d: dict(g_test=d.g_test[:3]), "g_test must have shape"),
    (lambda d: dict(x_test=d.x_test[:, :4]), "features but x_train has"),
    (lambda d: dict(y_train=d.y_train + 2), r"y_train must lie in \[0, 2\)"),
    (lambda d: dict(g_train=-d.g_train - 1), r"g_train must lie in \[0, 2\)"),
    (lambda d: dict(x_train=np.full_like(d.x_train, np.nan)), "finite"),
    (lambda d: dict(n_classes=1), "n_classes must be an int >= 2"),
])
def test_defer_data_shapes_are_validated(tiny, changes, message):
    with pytest.raises(ValueError, match=message):
        _data(tiny, **changes(tiny))


def test_defer_data_labels_must_be_integers(tiny):
    with pytest.raises(TypeError, match="integer class indices"):
        _data(tiny, y_train=tiny.y_train.astype(float))


def test_psi1_training_loss_of_a_defer_everything_model_is_the_mean_cost(tiny):
    """A linear model whose defer output dominates everywhere: Ψ_1 = mean(1 − (1 − c)) = c̄."""
    d = tiny.x_train.shape[1]
    W = torch.zeros(1, 3, d)
    b = torch.tensor([[0.0, 0.0, 40.0]])
    value = experiment.psi1_training_loss([W, b], tiny)
    assert value.shape == (1,)
    assert value[0] == pytest.approx(float((tiny.g_train != tiny.y_train).mean()), abs=1e-9)


def test_overrides_are_validated():
    with pytest.raises(ValueError, match="unknown keys"):
        experiment.run_realizable("fast", overrides={"stepz": 1})
    with pytest.raises(ValueError, match="digits_sets"):
        experiment.run_digits("fast", overrides={"digits_sets": ("conv",)})
