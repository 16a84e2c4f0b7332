"""Inpainting of masked cells before the residual, bit-exact decoding at 512², and the shipped real field."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.melloc import compress, decompress
from neurips24.melloc.experiment import inpaint_gain, real_field
from neurips24.melloc.fields import KINDS, make_field
from neurips24.melloc.inpaint import plane_fill
from neurips24.melloc.stencil import apply_stencil, stencil_matrix


def same_bits(a, b):
    return (a.shape == b.shape and a.dtype == b.dtype
            and np.array_equal(a.reshape(-1).view(np.uint8), b.reshape(-1).view(np.uint8)))


def test_plane_fill_hand_case():
    """Rim 10 20 30 / 20 . 40 / 30 40 50 is the plane 10 + 10 i + 10 j: the hole gets 30."""
    q = np.array([[10, 20, 30], [20, -99, 40], [30, 40, 50]], dtype=np.int64)
    hole = np.zeros((3, 3), bool)
    hole[1, 1] = True
    out = plane_fill(q, hole)
    assert out[1, 1] == 30 and np.array_equal(out[~hole], q[~hole])


def test_plane_fill_reproduces_an_integer_plane_and_zeroes_the_residual():
    i, j = np.meshgrid(np.arange(40), np.arange(50), indexing="ij")
    plane = 1000 + 7 * i - 3 * j
    hole = ((i - 20) ** 2 + (j - 25) ** 2 < 64) | ((i - 5) ** 2 + (j - 40) ** 2 < 9)     # two components
    filled = plane_fill(np.where(hole, 0, plane), hole)
    assert np.array_equal(filled, plane)
    f = apply_stencil(filled, stencil_matrix(1, 1))[1:-1, 1:-1]                   # every template annihilates the plane
    assert not f.any()


def test_plane_fill_bad_input():
    with pytest.raises(ValueError, match="same shape"):
        plane_fill(np.zeros((4, 4), np.int64), np.zeros((4, 5), bool))
    with pytest.raises(ValueError, match="whole block"):
        plane_fill(np.zeros((4, 4), np.int64), np.ones((4, 4), bool))
    with pytest.raises(TypeError, match="inpaint"):
        compress(make_field("heat", 16), inpaint="yes")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_masked_field_inpainted_is_exact(dtype):
    u = make_field("masked", 256, dtype, seed=3)
    hole = np.isnan(u)
    u.view(np.uint32 if dtype == np.float32 else np.uint64)[hole] |= 0x5          # NaN payloads must survive
    with_fill = compress(u, mode="mechanism", inpaint=True)
    without = compress(u, mode="mechanism", inpaint=False)
    assert same_bits(decompress(with_fill), u) and same_bits(decompress(without), u)
    assert with_fill != without                                   # the fill changed what the mechanism codes


def test_inpaint_changes_nothing_without_exceptions():
    u = make_field("heat", 128, np.float32, seed=1)
    assert compress(u, inpaint=True) == compress(u, inpaint=False)


def test_inpaint_gain_experiment():
    g = inpaint_gain(n=64, seeds=(0,))
    assert g["heat"] == [1.0] and g["masked"][0] > 0 and len(g["masked_modes"]) == 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", KINDS)
def test_mechanism_decode_bit_exact_512(kind, dtype):
    """The vectorised decoder at the chapter's size, every field kind, the mechanism forced (no fallback)."""
    u = make_field(kind, 512, dtype, seed=4)
    blob = compress(u, mode="mechanism")
    assert same_bits(decompress(blob), u)


def test_real_field_round_trip():
    pytest.importorskip("matplotlib")
    u = real_field()
    assert u is not None and u.dtype == np.float32 and u.shape == (91, 120)
    for mode in ("auto", "mechanism"):
        assert same_bits(decompress(compress(u, mode=mode, tile=64)), u)
