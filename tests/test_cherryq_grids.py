"""The baseline grids (zero level, zero point) and every bad input of the quantizer, by hand (cherryq.quantizer)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.cherryq.qat import QuantLinear
from neurips24.cherryq.quantizer import (
    fake_quantize,
    level_range,
    num_cherries,
    quantize_reference,
    select_cherries,
)

ROW = np.array([[0.9, -0.3, 0.1, -0.6]])


def test_zero_level_grid_by_hand():
    # s = (0.9 + 1e-6) / 3; w/s = [2.99999, -0.99999, 0.33333, -1.99999] -> [3, -1, 0, -2]
    q = quantize_reference(ROW, 3, 4, grid="zero-level")
    s = (0.9 + 1e-6) / 3
    np.testing.assert_array_equal(q.levels, [[3, -1, 0, -2]])
    np.testing.assert_allclose(q.weight, [[3 * s, -s, 0.0, -2 * s]], rtol=0, atol=1e-15)


def test_zero_point_grid_by_hand():
    # lo = -0.6, hi = 0.9: s = 1.5 / 3 = 0.5, z = round(1.2) = 1; w/s = [1.8, -0.6, 0.2, -1.2] -> [2, -1, 0, -1] + 1
    q = quantize_reference(ROW, 2, 4, grid="zero-point")
    np.testing.assert_array_equal(q.levels, [[3, 0, 1, 0]])
    np.testing.assert_allclose(q.scales, [[0.5]], rtol=0, atol=1e-15)
    np.testing.assert_allclose(q.weight, [[1.0, -0.5, 0.0, -0.5]], rtol=0, atol=1e-15)
    assert level_range(2, "zero-point") == (0, 3) and level_range(3, "zero-level") == (-3, 3)


@pytest.mark.parametrize("grid", ["zero-level", "zero-point"])
def test_baseline_grids_keep_zero_and_bound_the_error(grid):
    rng = np.random.default_rng(1)
    w = rng.standard_normal((32, 128))
    w[:, ::16] = 0.0
    q = quantize_reference(w, 3, 32, grid=grid)
    assert np.all(q.weight[:, ::16] == 0.0)                           # a zero weight stays zero
    step = np.repeat(q.scales, 32, axis=1)
    assert np.all(np.abs(q.weight - w) <= step / 2 + 1e-12)             # round to nearest, no clipping
    official = quantize_reference(w, 3, 32)
    assert np.all(official.weight[:, ::16] != 0.0)                     # the official grid has no zero level


@pytest.mark.parametrize("grid", ["official", "zero-level", "zero-point"])
@pytest.mark.parametrize("bits", [2, 3, 4])
def test_torch_matches_numpy_on_every_grid_with_a_short_last_group(grid, bits):
    rng = np.random.default_rng(bits)
    w = rng.standard_normal((24, 128)) * rng.gamma(1.0, 1.0, (24, 1))
    idx = select_cherries(rng.random((24, 128)), 5)                      # 123 per row: groups 64 + 59
    ref = quantize_reference(w, bits, 64, idx, grid=grid)
    got = fake_quantize(torch.as_tensor(w), bits, 64, torch.as_tensor(idx), grid=grid).numpy()
    np.testing.assert_array_equal(got, ref.weight)
    lo, hi = level_range(bits, grid)
    assert ref.levels.min() >= lo and ref.levels.max() <= hi


def test_zero_point_last_group_ignores_padding():
    # 6 weights left in the row, groups of 4: the last group [5, 6] must span [5, 6], not [0, 6]
    w = np.array([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 9.0, 9.5]])
    q = quantize_reference(w, 2, 4, [[6, 7]], grid="zero-point")
    assert q.scales[0, 1] == pytest.approx(1.0 / 3)
    np.testing.assert_allclose(q.weight[0, 4:6], [5.0, 6.0], atol=1e-12)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_weights_are_rejected(bad):
    w = np.ones((2, 8))
    w[1, 3] = bad
    with pytest.raises(ValueError, match="finite"):
        quantize_reference(w, 3, 4)
    with pytest.raises(ValueError, match="finite"):
        fake_quantize(torch.as_tensor(w), 3, 4)
    with pytest.raises(ValueError, match="finite"):
        QuantLinear(_lin(w), 3, 4)


def _lin(w):
    lin = torch.nn.Linear(w.shape[1], w.shape[0])
    with torch.no_grad():
        lin.weight.copy_(torch.as_tensor(w, dtype=torch.float32))
    return lin


def test_complex_weights_are_rejected():
    with pytest.raises(TypeError, match="real"):
        quantize_reference(np.ones((2, 8)) * (1 + 1j), 3, 4)
    with pytest.raises(TypeError, match="real"):
        fake_quantize(torch.ones(2, 8, dtype=torch.complex64), 3, 4)


def test_nan_scores_are_not_picked_first():
    score = np.array([[0.1, np.nan, 0.5, 0.3]])
    with pytest.raises(ValueError, match="score must be finite"):
        select_cherries(score, 1)
    with pytest.raises(ValueError, match="score must be finite"):
        select_cherries(torch.tensor([[0.1, float("inf"), 0.2, 0.3]]), 1)


@pytest.mark.parametrize("bad, err, match", [
    (torch.tensor([[1], [8]]), ValueError, "cherry_idx values"),
    (torch.tensor([[1, 1], [0, 2]]), ValueError, "repeat"),
    (torch.tensor([[1.0], [2.0]]), TypeError, "integers"),
    (torch.tensor([[1]]), ValueError, "must have shape"),
    (torch.tensor([[-1], [2]]), ValueError, "cherry_idx values"),
])
def test_tensor_cherry_indices_are_validated(bad, err, match):
    with pytest.raises(err, match=match):
        fake_quantize(torch.ones(2, 8), 3, 4, bad)
    with pytest.raises(err, match=match):
        QuantLinear(torch.nn.Linear(8, 2), 3, 4, bad)


def test_counts_and_fractions_are_not_truncated():
    with pytest.raises(TypeError, match="in_features and multiple must be integers"):
        num_cherries(576.9, 1 / 64)
    with pytest.raises(TypeError, match="in_features and multiple must be integers"):
        num_cherries(576, 1 / 64, multiple=8.0)
    with pytest.raises(TypeError, match="k must be an integer"):
        select_cherries(np.ones((2, 8)), 2.7)
    with pytest.raises(TypeError, match="cherry_fraction must be a number"):
        num_cherries(576, "0.01")
    with pytest.raises(TypeError, match="cherry_fraction must be a number"):
        num_cherries(576, True)
    with pytest.raises(ValueError, match="open interval"):
        num_cherries(576, float("nan"))
    assert num_cherries(576, 1 / 256, multiple=1) == 3 and num_cherries(1536, 1 / 256, multiple=1) == 6


def test_unknown_grid():
    with pytest.raises(ValueError, match="grid must be one of"):
        quantize_reference(np.ones((2, 8)), 3, 4, grid="asym")
    with pytest.raises(ValueError, match="grid must be one of"):
        fake_quantize(torch.ones(2, 8), 3, 4, grid=None)
    with pytest.raises(ValueError, match="grid must be one of"):
        QuantLinear(torch.nn.Linear(8, 2), 3, 4, grid="int3")
