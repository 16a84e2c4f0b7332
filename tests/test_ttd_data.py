"""The chapter's pairs (ttd.data): defocus against SciPy's Gaussian filter, the exposure and infrared formulas
worked by hand, the shipped motorcycle scene, and bad inputs."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage

from neurips24.ttd import data as Da

RNG = np.random.default_rng(0)
IMG = ndimage.gaussian_filter(RNG.random((48, 40)), 1.5)
IMG = (IMG - IMG.min()) / np.ptp(IMG)


def test_defocus_with_constant_width_is_scipy_gaussian_filter():
    for s in (0.0, 1.3, 3.0):
        out = Da.defocus(IMG, np.full(IMG.shape, s))
        ref = IMG if s == 0 else ndimage.gaussian_filter(IMG, s, mode="reflect")
        np.testing.assert_allclose(out, ref, atol=1e-12)


def test_defocus_interpolates_between_neighbouring_widths():
    sig = np.full(IMG.shape, 1.0)
    sig[:, 20:] = 2.0                       # grid of levels=3 on [0, 2]: exactly the levels 1 and 2
    out = Da.defocus(IMG, sig, levels=3)
    np.testing.assert_allclose(out[:, :20], ndimage.gaussian_filter(IMG, 1.0)[:, :20], atol=1e-12)
    np.testing.assert_allclose(out[:, 20:], ndimage.gaussian_filter(IMG, 2.0)[:, 20:], atol=1e-12)


def test_multi_focus_pair_is_sharp_where_in_focus():
    depth = np.zeros(IMG.shape)
    depth[:, 20:] = 1.0                     # left half far (0), right half near (1)
    p = Da.multi_focus_pair(IMG, depth, focus=(1.0, 0.0), max_sigma=3.0)
    near, far = p.sources
    np.testing.assert_allclose(near[:, 26:], IMG[:, 26:], atol=1e-6)       # in focus, away from the edge
    np.testing.assert_allclose(far[:, :14], IMG[:, :14], atol=1e-6)
    assert np.abs(near[:, :14] - IMG[:, :14]).mean() > 0.01                 # out of focus
    assert p.sources.shape == (2, 48, 40) and p.sources.dtype == np.float32 and p.kind == Da.KINDS[0]
    np.testing.assert_allclose(p.degradation[0], ndimage.gaussian_filter(np.abs(near - IMG), Da.DEGRADATION_SIGMA),
                               atol=1e-5)


def test_multi_exposure_formula_by_hand():
    p = Da.multi_exposure_pair(IMG, gains=(0.5, 3.0), gamma=0.5, noise=0.0)
    lin = IMG ** 2
    np.testing.assert_allclose(p.sources[0], np.sqrt(0.5 * lin), atol=1e-6)
    np.testing.assert_allclose(p.sources[1], np.sqrt(np.minimum(3.0 * lin, 1.0)), atol=1e-6)
    assert (p.sources[1] == 1.0).mean() > 0.2            # clipped highlights


def test_infrared_visible_formula_by_hand():
    warm = np.zeros(IMG.shape)
    warm[10:20, 10:20] = 1.0
    shadow = np.zeros(IMG.shape)
    shadow[:, :10] = 1.0
    p = Da.infrared_visible_pair(IMG, warm, shadow, ir_blur=1.0, noise=0.0)
    np.testing.assert_allclose(p.sources[0], np.clip(0.35 * ndimage.gaussian_filter(IMG, 1.0) + 0.6 * warm, 0, 1),
                               atol=1e-6)
    np.testing.assert_allclose(p.sources[1], IMG * (1 - 0.85 * shadow), atol=1e-6)
    assert "synthetic" in p.kind


def test_motorcycle_ships_with_scikit_image():
    img, disp = Da.motorcycle()
    assert img.shape == disp.shape == (500, 741)
    assert np.all(np.isfinite(disp)) and 0 <= img.min() and img.max() <= 1
    assert np.ptp(disp) > 50                                  # a measured disparity range, in pixels


@pytest.mark.parametrize("call", [
    lambda: Da.multi_focus_pair(IMG, np.zeros((10, 10))),                      # depth of another shape
    lambda: Da.multi_focus_pair(IMG, np.full(IMG.shape, np.nan)),              # non-finite depth
    lambda: Da.multi_focus_pair(IMG, np.zeros(IMG.shape), focus=(1.5, 0.0)),   # focal plane out of range
    lambda: Da.multi_focus_pair(IMG, np.zeros(IMG.shape), max_sigma=0.0),
    lambda: Da.multi_focus_pair(IMG * 2, np.zeros(IMG.shape)),                 # image outside [0, 1]
    lambda: Da.multi_exposure_pair(np.where(IMG > 0.5, np.nan, IMG)),          # NaN pixels
    lambda: Da.multi_exposure_pair(IMG, gains=(0.0, 2.0)),
    lambda: Da.multi_exposure_pair(IMG, gamma=2.0),
    lambda: Da.infrared_visible_pair(IMG, np.zeros((4, 4)), np.zeros(IMG.shape)),
    lambda: Da.infrared_visible_pair(IMG, np.zeros(IMG.shape), np.zeros(IMG.shape), noise=-1.0),
    lambda: Da.defocus(IMG, -np.ones(IMG.shape)),
    lambda: Da.defocus(IMG, np.ones(IMG.shape), levels=1),
    lambda: Da.defocus(np.ones(5), np.ones(5)),                                # not 2-d
])
def test_bad_inputs_raise_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_non_numeric_image_raises_type_error():
    with pytest.raises(TypeError):
        Da.multi_exposure_pair(np.full((16, 16), "a"))
