"""The fusion network and its losses (ttd.network): shapes, Sobel against SciPy, the loss's zero, training."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy import ndimage

from neurips24.ttd import data as Da
from neurips24.ttd import network as Ne

torch.set_num_threads(1)


def test_shapes_and_full_resolution():
    net = Ne.FusionNet(4)
    x = torch.rand(3, 2, 20, 24)
    assert net.encode(x).shape == (3, 2, 4, 20, 24)
    assert net(x).shape == (3, 20, 24)
    assert torch.allclose(net(x), net(x, torch.ones_like(x)))
    mean = Ne.FusionNet(4, "mean")
    mean.load_state_dict(net.state_dict())
    assert torch.allclose(net(x), mean(x, 2 * torch.ones_like(x)), atol=1e-6)   # the sum is M × the mean
    with pytest.raises(ValueError):
        Ne.FusionNet(4, "max")


def test_sobel_magnitude_matches_scipy_inside():
    x = np.random.default_rng(0).random((1, 16, 18))
    ours = Ne.sobel_magnitude(torch.from_numpy(x))[0].numpy()
    ref = np.hypot(ndimage.sobel(x[0], 0), ndimage.sobel(x[0], 1))
    np.testing.assert_allclose(ours[1:-1, 1:-1], ref[1:-1, 1:-1], atol=1e-5)


def test_fusion_loss_is_zero_for_identical_sources_and_output():
    a = torch.rand(2, 16, 16, dtype=torch.float64)
    assert Ne.fusion_loss(a, torch.stack([a, a], 1)).item() == pytest.approx(0.0, abs=1e-5)
    assert Ne.fusion_loss(a * 0.5, torch.stack([a, a], 1)).item() > 0.1


def _pairs():
    rng = np.random.default_rng(0)
    x = ndimage.gaussian_filter(rng.random((40, 40)), 1.0)
    x = (x - x.min()) / np.ptp(x)
    return [Da.multi_focus_pair(x, Da.smooth_field(x.shape, rng, 5)), Da.multi_exposure_pair(x)]


def test_training_lowers_both_losses():
    for train in (Ne.train_fusion, Ne.train_reconstruction):
        net, hist = train(_pairs(), steps=60, batch=4, patch=24, channels=4)
        assert not net.training
        assert np.mean(hist[-10:]) < 0.7 * np.mean(hist[:5])


def test_training_bad_arguments():
    with pytest.raises(ValueError):
        Ne.train_fusion([], steps=5)
    with pytest.raises(ValueError):
        Ne.train_fusion(_pairs(), steps=0)
    with pytest.raises(ValueError):
        Ne.FusionNet(0)
