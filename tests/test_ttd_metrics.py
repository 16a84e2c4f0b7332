"""Fusion metrics (ttd.metrics) on images worked by hand and against scikit-image, and the classical baselines."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage
from skimage.metrics import peak_signal_noise_ratio

from neurips24.ttd import classical as Cl
from neurips24.ttd import metrics as Me

RNG = np.random.default_rng(0)


def test_entropy_of_two_equal_levels_is_one_bit():
    F = np.zeros((16, 16))
    F[:, 8:] = 1.0
    assert Me.entropy(F) == pytest.approx(1.0)


def test_sd_sf_ag_ei_on_a_horizontal_ramp():
    F = np.tile(np.arange(32) / 31, (20, 1))                  # slope 255/31 grey levels per pixel, along x
    s = 255 / 31
    assert Me.standard_deviation(F) == pytest.approx(np.std(np.arange(32)) * s)
    assert Me.spatial_frequency(F) == pytest.approx(s)         # RF = s, CF = 0
    assert Me.average_gradient(F) == pytest.approx(s / np.sqrt(2))
    # Sobel along x gives 8 s inside, and SciPy's reflect border halves it at the two edge columns
    assert Me.edge_intensity(F) == pytest.approx(8 * s * (30 + 2 * 0.5) / 32)


def test_scd_ce_ssim_on_exact_cases():
    A = RNG.random((24, 24)) * 0.5
    B = RNG.random((24, 24)) * 0.5
    assert Me.scd(A + B, A, B) == pytest.approx(2.0)           # F − B = A and F − A = B
    assert Me.cross_entropy(A, A, A) == pytest.approx(0.0)
    assert Me.ssim_sum(A, A, A) == pytest.approx(2.0)
    assert Me.psnr_truth(A, B) == pytest.approx(peak_signal_noise_ratio(B, A, data_range=1.0))
    m = Me.fusion_metrics(A, A, B, truth=B)
    assert set(m) == set(Me.NAMES) | {"PSNR_gt", "SSIM_gt"}


@pytest.mark.parametrize("call", [
    lambda: Me.entropy(np.full((16, 16), np.nan)),
    lambda: Me.spatial_frequency(np.ones((16, 16)) * 2),       # outside [0, 1]
    lambda: Me.scd(np.zeros((16, 16)), np.zeros((16, 12)), np.zeros((16, 16))),
    lambda: Me.average_gradient(np.zeros(16)),
])
def test_bad_inputs_raise(call):
    with pytest.raises(ValueError):
        call()


def test_laplacian_pyramid_is_exact_and_fusion_of_equal_images_is_the_image():
    x = RNG.random((50, 37))
    np.testing.assert_allclose(Cl.collapse(Cl.laplacian_pyramid(x, 4)), x, atol=1e-12)
    np.testing.assert_allclose(Cl.laplacian_pyramid_fusion(x, x), x, atol=1e-12)


def test_pyramid_fusion_of_complementary_blur_beats_both_sources():
    x = ndimage.gaussian_filter(RNG.random((64, 64)), 1.0)
    x = (x - x.min()) / np.ptp(x)
    blurred = ndimage.gaussian_filter(x, 3.0)
    a, b = x.copy(), x.copy()
    a[:, 32:], b[:, :32] = blurred[:, 32:], blurred[:, :32]
    f = Cl.laplacian_pyramid_fusion(a, b)
    assert Me.psnr_truth(f, x) > max(Me.psnr_truth(a, x), Me.psnr_truth(b, x)) + 3


def test_wavelet_fusion_of_equal_images_is_the_image():
    pytest.importorskip("pywt")
    x = RNG.random((40, 36))
    np.testing.assert_allclose(Cl.wavelet_fusion(x, x), x, atol=1e-10)


def test_baseline_bad_inputs():
    with pytest.raises(ValueError):
        Cl.laplacian_pyramid_fusion(np.zeros((16, 16)), np.zeros((16, 8)))
    with pytest.raises(ValueError):
        Cl.laplacian_pyramid_fusion(np.zeros((16, 16)), np.full((16, 16), np.nan))
    with pytest.raises(ValueError):
        Cl.laplacian_pyramid_fusion(np.zeros((16, 16)), np.zeros((16, 16)), levels=0)
