"""CherryQ quantizer, cherry selection and heterogeneity score, against values computed by hand (cherryq.quantizer)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.cherryq.impact import heterogeneity_score
from neurips24.cherryq.quantizer import (
    cherry_mask,
    fake_quantize,
    level_range,
    num_cherries,
    quantize_reference,
    select_cherries,
)


def test_two_bit_group_by_hand():
    # s = (0.9 + 1e-6) / 2; w/s = [1.99999, -0.66667, 0.22222, -1.33333]; clamp to ±1.99, minus 0.5, round:
    # [1.49 -> 1, -1.17 -> -1, -0.28 -> 0, -1.83 -> -2]; values (L + 0.5) s
    q = quantize_reference(np.array([[0.9, -0.3, 0.1, -0.6]]), bits=2, group_size=4)
    s = (0.9 + 1e-6) / 2
    np.testing.assert_array_equal(q.levels, [[1, -1, 0, -2]])
    np.testing.assert_allclose(q.scales, [[s]], rtol=0, atol=1e-15)
    np.testing.assert_allclose(q.weight, [[1.5 * s, -0.5 * s, 0.5 * s, -1.5 * s]], rtol=0, atol=1e-15)


def test_cherry_is_kept_and_left_out_of_the_scale_by_hand():
    # row [0.1, 5.0, -0.2, 0.3], cherry = column 1; compacted [0.1, -0.2, 0.3] -> groups [0.1, -0.2] and [0.3]
    w = np.array([[0.1, 5.0, -0.2, 0.3]])
    q = quantize_reference(w, bits=2, group_size=2, cherry_idx=[[1]])
    s1, s2 = (0.2 + 1e-6) / 2, (0.3 + 1e-6) / 2
    np.testing.assert_allclose(q.scales, [[s1, s2]], rtol=0, atol=1e-15)
    np.testing.assert_array_equal(q.levels, [[0, -2, 1]])          # 0.99999-0.5 -> 0; -1.99 -0.5 -> -2; 1.49 -> 1
    np.testing.assert_allclose(q.weight, [[0.5 * s1, 5.0, -1.5 * s1, 1.5 * s2]], rtol=0, atol=1e-15)
    # without the cherry, the 5.0 sets the scale of the first group and 0.1 collapses onto the smallest level
    rtn = quantize_reference(w, bits=2, group_size=2)
    assert rtn.weight[0, 0] == pytest.approx(0.5 * (5.0 + 1e-6) / 2)


def test_eight_bit_restricted_grid_by_hand():
    q = quantize_reference(np.array([[1.0, -0.5, 0.25, 0.0]]), bits=8, group_size=4)
    s = (1.0 + 1e-6) / 127
    np.testing.assert_array_equal(q.levels, [[127, -63, 32, 0]])   # 126.9999 -> 127, -63.49994 -> -63, 31.75 -> 32
    np.testing.assert_allclose(q.weight, [[127 * s, -63 * s, 32 * s, 0.0]], rtol=0, atol=1e-15)


@pytest.mark.parametrize("bits", [2, 3, 4])
def test_half_integer_grid_has_two_to_the_b_levels_and_no_zero(bits):
    rng = np.random.default_rng(bits)
    w = rng.standard_normal((64, 256))
    q = quantize_reference(w, bits=bits, group_size=256)
    lo, hi = level_range(bits)
    assert (lo, hi) == (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    assert q.levels.min() == lo and q.levels.max() == hi
    assert len(np.unique(q.levels)) == 2 ** bits
    assert np.all(q.weight != 0.0)                                 # no zero level


def _loop_reference(w, bits, group, cherries, grid="official"):
    """The formulas, weight by weight in plain Python floats: walk each row, skip its cherries, cut the rest
    into groups of ``group`` (the last one shorter), quantize each group on its own scale."""
    out = [list(map(float, row)) for row in w]
    half = 2.0 ** (bits - 1)
    for r, row in enumerate(w):
        cols = [j for j in range(len(row)) if j not in set(cherries[r])]
        for start in range(0, len(cols), group):
            g = cols[start:start + group]
            vals = [float(row[j]) for j in g]
            for j, v in zip(g, vals, strict=True):
                if grid == "zero-point":
                    s = max(max(vals) - min(vals), 1e-6) / (2 ** bits - 1)
                    z = round(-min(vals) / s)
                    out[r][j] = (min(max(round(v / s) + z, 0), 2 ** bits - 1) - z) * s
                elif bits <= 4 and grid == "official":
                    s = (max(abs(x) for x in vals) + 1e-6) / half
                    q = half - 0.01
                    out[r][j] = (round(min(max(v / s, -q), q) - 0.5) + 0.5) * s
                else:
                    s = (max(abs(x) for x in vals) + 1e-6) / (half - 1)
                    out[r][j] = min(max(round(v / s), -(half - 1)), half - 1) * s
    return np.array(out)


@pytest.mark.parametrize("grid", ["official", "zero-level", "zero-point"])
@pytest.mark.parametrize("bits", [2, 3, 5, 8])
def test_numpy_and_torch_match_a_loop_over_weights(bits, grid):
    # Python's round() is half-to-even like numpy/torch; the loop shares no code with either implementation
    rng = np.random.default_rng(bits)
    w = rng.standard_normal((6, 40)) * rng.gamma(1.0, 1.0, (6, 1))
    idx = select_cherries(rng.random((6, 40)), 3)                   # 37 per row: groups of 8, last one of 5
    expect = _loop_reference(w, bits, 8, idx.tolist(), grid)
    ref = quantize_reference(w, bits, 8, idx, grid=grid)
    got = fake_quantize(torch.as_tensor(w), bits, 8, torch.as_tensor(idx), grid=grid).numpy()
    np.testing.assert_allclose(ref.weight, expect, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got, expect, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(got[cherry_mask(idx, w.shape)], w[cherry_mask(idx, w.shape)])


def test_last_group_of_a_compacted_row_is_shorter():
    # in = 8, k = 2 cherries, group 4: compacted rows of 6 -> groups of 4 and 2 (official rule)
    w = np.arange(1.0, 17.0).reshape(2, 8)
    q = quantize_reference(w, 3, 4, [[0, 7], [3, 4]])
    assert q.scales.shape == (2, 2) and q.levels.shape == (2, 6)
    assert q.scales[0, 1] == pytest.approx((7.0 + 1e-6) / 4)       # second group of row 0: columns 5, 6


def test_num_cherries_official_rounding():
    assert num_cherries(4096, 1 / 256) == 16                        # LLaMA-2-7B
    assert num_cherries(576, 1 / 256) == 0 and num_cherries(1536, 1 / 256) == 0   # SmolLM2: none at the default
    assert num_cherries(576, 1 / 64) == 8 and num_cherries(1536, 1 / 64) == 24
    assert num_cherries(100, 0.05, multiple=1) == 5


def test_select_cherries_per_row():
    score = np.array([[0.1, 0.9, 0.5, 0.3], [7.0, 1.0, 2.0, 8.0]])
    np.testing.assert_array_equal(select_cherries(score, 2), [[1, 2], [3, 0]])
    assert select_cherries(score, 0).shape == (2, 0)


def test_heterogeneity_score_by_hand():
    assert heterogeneity_score(np.arange(1.0, 101.0)) == pytest.approx(100 / 99)   # top 1 % = {100}, rest max 99
    v = np.ones(200)
    v[:2] = [50.0, 30.0]                                                           # top 2 of 200
    assert heterogeneity_score(v) == pytest.approx(40.0)
    assert heterogeneity_score(torch.ones(10, 10)) == pytest.approx(1.0)


@pytest.mark.parametrize("bits", [1, 9, 0, 16])
def test_bits_outside_range(bits):
    with pytest.raises(ValueError, match="bits must be in 2..8"):
        quantize_reference(np.ones((2, 4)), bits, 4)


def test_bad_inputs():
    w = np.ones((2, 8))
    with pytest.raises(TypeError, match="bits"):
        quantize_reference(w, 2.5, 4)
    with pytest.raises(ValueError, match="group_size must be a positive divisor of the row length 8"):
        quantize_reference(w, 3, 3)
    with pytest.raises(ValueError, match="group_size"):
        fake_quantize(torch.ones(2, 8), 3, 0)
    with pytest.raises(ValueError, match="2-D"):
        quantize_reference(np.ones((2, 2, 4)), 3, 4)
    with pytest.raises(ValueError, match="2-D"):
        fake_quantize(torch.ones(8), 3, 4)
    for frac in (0.0, 1.0, 1.5, -0.1):
        with pytest.raises(ValueError, match=r"cherry_fraction must be in the open interval \(0, 1\)"):
            num_cherries(512, frac)
    with pytest.raises(ValueError, match="repeat"):
        quantize_reference(w, 3, 4, [[1, 1], [0, 2]])
    with pytest.raises(ValueError, match="cherry_idx values"):
        quantize_reference(w, 3, 4, [[1], [8]])
    with pytest.raises(ValueError, match="cherry_idx must have shape"):
        quantize_reference(w, 3, 4, [[1]])
    with pytest.raises(ValueError, match="values must"):
        heterogeneity_score(np.array([1.0, -1.0, 2.0]))
