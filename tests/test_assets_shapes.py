"""The shared shapes renderer (neurips24.assets.shapes): ground truth that matches the pixels, seeds, bad input."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.assets import shapes


def test_same_seed_same_images_and_fixed_attributes():
    a, b = shapes.render_shapes(20, seed=3), shapes.render_shapes(20, seed=3)
    assert np.array_equal(a.images, b.images) and a.captions == b.captions
    assert not np.array_equal(a.images, shapes.render_shapes(20, seed=4).images)
    red = shapes.render_shapes(30, seed=3, colour="red")
    assert set(red.names("colour")) == {"red"}
    assert len(set(red.names("shape"))) > 1                                # the other attributes still vary


def test_pixels_agree_with_the_ground_truth():
    s = shapes.render_shapes(200, seed=0, noise=0.0, jitter=0.0)
    lit = s.images.max(-1) > 0
    area = lit.mean((1, 2))
    for i in range(len(s.captions)):
        rr, cc = np.nonzero(lit[i])
        r0, c0 = shapes.POSITIONS[s.names("position")[i]]
        # the lit pixels' centre of mass lies near the named position (the triangle's is lower: 1/8 side)
        assert abs(cc.mean() / 64 - c0) < 0.06 and abs(rr.mean() / 64 - r0) < 0.1
        # the colour of the lit pixels is the named colour, exactly (no noise)
        assert tuple(s.images[i][lit[i]][0]) == shapes.COLOURS[s.names("colour")[i]]
    big = np.array(s.names("size")) == "big"
    assert area[big].min() > area[~big].max() * 1.3          # every big shape covers more than any small one
    circle = (np.array(s.names("shape")) == "circle") & big
    # a disc of radius r covers pi r^2 (hand-worked: r = 0.28 * 64 * scale, scale in [0.85, 1.15])
    assert np.all((area[circle] > np.pi * (0.28 * 0.85) ** 2 * 0.9) & (area[circle] < np.pi * (0.28 * 1.15) ** 2 * 1.1))


def test_captions_name_the_attributes():
    s = shapes.render_shapes(5, seed=1)
    for i, c in enumerate(s.captions):
        assert c == shapes.caption(*(s.names(a)[i] for a in ("shape", "colour", "size", "position")))
    assert shapes.caption("circle", "red", "big", "left") == "a big red circle on the left."


def test_bad_input():
    with pytest.raises(ValueError, match="n must be"):
        shapes.render_shapes(0)
    with pytest.raises(TypeError, match="n must be an integer"):
        shapes.render_shapes(2.5)
    with pytest.raises(ValueError, match="image_size"):
        shapes.render_shapes(2, image_size=8)
    with pytest.raises(ValueError, match="jitter"):
        shapes.render_shapes(2, jitter=float("nan"))
    with pytest.raises(ValueError, match="colour must be one of"):
        shapes.render_shapes(2, colour="pink")
    with pytest.raises(ValueError, match="fixed attributes"):
        shapes.render_shapes(2, texture="striped")
    with pytest.raises(ValueError, match="shape must be one of"):
        shapes.caption("hexagon", "red", "big", "left")
    with pytest.raises(TypeError, match="uint8"):
        shapes.to_rgb(np.zeros((2, 28, 28)))
    with pytest.raises(ValueError, match="square number"):
        shapes.to_rgb(np.zeros((2, 10), dtype=np.uint8))
    assert shapes.to_rgb(np.zeros((2, 784), dtype=np.uint8)).shape == (2, 28, 28, 3)
