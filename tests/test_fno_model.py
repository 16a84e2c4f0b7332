"""The torch FNO (model.py), the heat-equation data (data.py) and training (train.py)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from neurips24.fno.data import heat_dataset
from neurips24.fno.layer import fno_layer
from neurips24.fno.model import DeepFNO, init_gaussian_, input_gradient_norms
from neurips24.fno.train import relative_l2, train_fno

# --- DeepFNO ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "exc"), [
    ((0, 4, 2, 8), ValueError),      # depth
    ((1.5, 4, 2, 8), TypeError),     # depth not an int
    ((2, 0, 2, 8), ValueError),      # width
    ((2, 4, 5, 8), ValueError),      # K > N/2
    ((2, 4, 0, 8), ValueError),      # K < 1
    ((2, 4, 2.0, 8), TypeError),     # K not an int
])
def test_deepfno_rejects_bad_arguments(args, exc):
    with pytest.raises(exc):
        DeepFNO(*args)


def test_deepfno_rejects_bad_input_shape():
    model = DeepFNO(2, 3, 2, 8)
    for bad in (torch.zeros(8, dtype=torch.float64), torch.zeros(2, 9, dtype=torch.float64),
                torch.zeros(2, 1, 8, dtype=torch.float64)):
        with pytest.raises(ValueError, match="N=8"):
            model(bad)


def test_deepfno_forward_matches_numpy_layers():
    D, N, K, B, L = 4, 16, 3, 2, 3
    gen = torch.Generator().manual_seed(0)
    model = init_gaussian_(DeepFNO(L, D, K, N, "tanh"), 1.5, 0.1, "with_w", gen)
    u = torch.randn(B, N, dtype=torch.float64, generator=gen)
    with torch.no_grad():
        out = model(u).numpy()
        zs = [z.numpy() for z in model.preactivations(u)]
    assert out.shape == (B, N) and len(zs) == L + 1
    lift = model.lift.detach().numpy()
    z = lift[None, :, None] * u.numpy()[:, None, :]
    np.testing.assert_allclose(zs[0], z, rtol=1e-15)
    for layer, z_torch in zip(model.layers, zs[1:], strict=True):
        R = layer.R_re.detach().numpy() + 1j * layer.R_im.detach().numpy()
        z = fno_layer(z[None], layer.W.detach().numpy()[None], R[None], layer.b.detach().numpy()[None], "tanh")[0]
        np.testing.assert_allclose(z_torch, z, atol=1e-12)
    np.testing.assert_allclose(out, np.einsum("d,bdn->bn", model.readout.detach().numpy(), z), atol=1e-12)


# --- initialisation --------------------------------------------------------------------------------------


def test_init_gaussian_statistics():
    D, K, L = 200, 3, 6
    sigma2, sigma_b2 = 3.0, 0.4
    sw2, sr2 = sigma2 / 2, sigma2 / 2
    model = init_gaussian_(DeepFNO(L, D, K, 16), sigma2, sigma_b2, "with_w", torch.Generator().manual_seed(1))
    W = torch.stack([layer.W for layer in model.layers]).detach().numpy()
    R_re = torch.stack([layer.R_re for layer in model.layers]).detach().numpy()
    R_im = torch.stack([layer.R_im for layer in model.layers]).detach().numpy()
    b = torch.stack([layer.b for layer in model.layers]).detach().numpy()
    assert np.var(W) == pytest.approx(sw2 / D, rel=0.03)
    assert np.mean(W) == pytest.approx(0.0, abs=0.01 * np.sqrt(sw2 / D))
    assert np.all(R_im[:, 0] == 0.0)
    assert np.var(R_re[:, 0]) == pytest.approx(sr2 / D, rel=0.03)
    for k in range(1, K):
        assert np.var(R_re[:, k]) == pytest.approx(sr2 / (2 * D), rel=0.03)
        assert np.var(R_im[:, k]) == pytest.approx(sr2 / (2 * D), rel=0.03)
        assert np.mean(R_re[:, k] ** 2 + R_im[:, k] ** 2) == pytest.approx(sr2 / D, rel=0.03)
    assert np.var(b) == pytest.approx(sigma_b2, rel=0.12)
    # lifting ~ N(0, 1), read-out ~ N(0, 1/D): pool several initialisations of a small model
    small = DeepFNO(1, 100, 1, 4)
    gen = torch.Generator().manual_seed(2)
    lifts, reads = [], []
    for _ in range(30):
        init_gaussian_(small, 1.0, generator=gen)
        lifts.append(small.lift.detach().numpy().copy())
        reads.append(small.readout.detach().numpy().copy())
    assert np.var(lifts) == pytest.approx(1.0, rel=0.08)
    assert np.var(reads) == pytest.approx(1.0 / 100, rel=0.08)


def test_init_gaussian_spectral_variant_and_errors():
    model = init_gaussian_(DeepFNO(2, 5, 2, 8), 2.0, 0.0, "spectral", torch.Generator().manual_seed(3))
    for layer in model.layers:
        assert torch.all(layer.W == 0) and torch.all(layer.b == 0)
        assert torch.any(layer.R_re != 0)
    with pytest.raises(ValueError, match="sigma2"):
        init_gaussian_(model, 0.0)
    with pytest.raises(ValueError, match="sigma_b2"):
        init_gaussian_(model, 1.0, -0.1)
    with pytest.raises(ValueError, match="variant"):
        init_gaussian_(model, 1.0, variant="nope")


def test_init_gaussian_is_reproducible():
    a = init_gaussian_(DeepFNO(2, 4, 2, 8), 1.0, 0.1, generator=torch.Generator().manual_seed(9))
    b = init_gaussian_(DeepFNO(2, 4, 2, 8), 1.0, 0.1, generator=torch.Generator().manual_seed(9))
    for pa, pb in zip(a.parameters(), b.parameters(), strict=True):
        assert torch.equal(pa, pb)


# --- gradient norms by backprop vs finite differences ----------------------------------------------------


@pytest.mark.parametrize("activation", ["tanh", "relu"])
def test_input_gradient_norms_against_finite_differences(activation):
    L, D, N, K, B = 2, 3, 8, 2, 2
    gen = torch.Generator().manual_seed(4)
    model = init_gaussian_(DeepFNO(L, D, K, N, activation), 2.0, 0.1, "with_w", gen)
    u = torch.randn(B, N, dtype=torch.float64, generator=gen)
    state = gen.get_state()
    norms = input_gradient_norms(model, u, gen)
    assert norms.shape == (L + 1,) and norms.dtype == torch.float64
    # the same probe G as inside input_gradient_norms: ℓ = <G, Z^L>
    G = torch.randn((B, D, N), dtype=torch.float64, generator=torch.Generator().set_state(state))
    with torch.no_grad():
        zs = model.preactivations(u)

        def loss_from(level, z):
            for layer in model.layers[level:]:
                z = layer(z)
            return float((G * z).sum())

        eps = 1e-6
        for level in range(L + 1):
            grad = np.zeros((B, D, N))
            for idx in np.ndindex(B, D, N):
                zp, zm = zs[level].clone(), zs[level].clone()
                zp[idx] += eps
                zm[idx] -= eps
                grad[idx] = (loss_from(level, zp) - loss_from(level, zm)) / (2 * eps)
            assert float(norms[level]) == pytest.approx(np.linalg.norm(grad), rel=1e-6)
    assert float(norms[L]) == pytest.approx(float(G.norm()), rel=1e-14)


# --- heat-equation data ----------------------------------------------------------------------------------


def test_heat_dataset_shapes_and_normalisation():
    u0, uT = heat_dataset(5, n_grid=32, seed=0)
    assert u0.shape == (5, 32) and uT.shape == (5, 32)
    assert u0.dtype == np.float64 and uT.dtype == np.float64
    np.testing.assert_allclose(np.mean(u0**2, axis=1), 1.0, rtol=1e-13)
    np.testing.assert_allclose(np.mean(u0, axis=1), 0.0, atol=1e-14)   # no DC component


@pytest.mark.parametrize(("nu", "t_final"), [(0.01, 0.5), (0.002, 0.1), (0.05, 0.05)])
def test_heat_dataset_exact_mode_decay(nu, t_final):
    N = 32
    u0, uT = heat_dataset(4, n_grid=N, nu=nu, t_final=t_final, seed=1)
    x = np.arange(N) / N
    for k in range(1, N // 2 + 1):
        e = np.exp(-2j * np.pi * k * x)                # direct DFT of mode k
        h0, hT = u0 @ e, uT @ e
        expected = np.exp(-nu * (2 * np.pi * k) ** 2 * t_final)
        np.testing.assert_allclose(np.abs(hT / h0), expected, rtol=1e-10, atol=1e-11)
        # the phase is kept: ûT(k) = e^{−ν(2πk)²T} û0(k) as complex numbers
        np.testing.assert_allclose(hT, expected * h0, rtol=1e-10, atol=1e-12)


def test_heat_dataset_spectrum_shape():
    """Power ∝ (1 + (k/k0)²)^(−2); compared on the modes k ≥ 8 where the per-sample normalisation barely matters."""
    u0, _ = heat_dataset(4000, n_grid=64, k0=4.0, seed=2)
    power = np.mean(np.abs(np.fft.rfft(u0, axis=1)) ** 2, axis=0)
    k = np.arange(8, 32)
    law = (1 + (k / 4.0) ** 2) ** -2.0
    ratio = (power[k] / power[8]) / (law / law[0])
    np.testing.assert_allclose(ratio, 1.0, atol=0.1)


def test_heat_dataset_is_reproducible():
    a = heat_dataset(3, 16, seed=7)
    b = heat_dataset(3, 16, seed=7)
    c = heat_dataset(3, 16, seed=8)
    np.testing.assert_array_equal(a[0], b[0])
    assert not np.array_equal(a[0], c[0])


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(n_samples=0), "n_samples"),
    (dict(n_grid=15), "n_grid"),
    (dict(n_grid=2), "n_grid"),
    (dict(nu=0.0), "nu"),
    (dict(nu=-1.0), "nu"),
    (dict(t_final=0.0), "t_final"),
    (dict(k0=-2.0), "k0"),
])
def test_heat_dataset_errors(kwargs, match):
    args = dict(n_samples=2, n_grid=16)
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        heat_dataset(**args)


# --- training --------------------------------------------------------------------------------------------


def test_relative_l2_hand_case():
    pred = torch.tensor([[3.0, 4.0], [1.0, 1.0]])
    target = torch.tensor([[0.0, 5.0], [2.0, 0.0]])
    expected = (math.sqrt(10) / 5 + math.sqrt(2) / 2) / 2
    assert float(relative_l2(pred, target)) == pytest.approx(expected, rel=1e-6)
    assert float(relative_l2(target, target)) == 0.0


def _tiny_data():
    u0, uT = heat_dataset(24, n_grid=16, seed=0)
    return u0[:16], uT[:16], u0[16:], uT[16:]


def test_train_fno_runs_and_returns_documented_keys():
    out = train_fno(*_tiny_data(), sigma2=2.0, depth=2, width=4, n_modes=3, steps=3, batch=4, seed=0)
    assert set(out) == {"train_loss", "test_loss"}
    assert out["train_loss"].shape == (3,)
    assert np.all(np.isfinite(out["train_loss"])) and np.all(out["train_loss"] > 0)
    assert isinstance(out["test_loss"], float) and math.isfinite(out["test_loss"]) and out["test_loss"] > 0
    again = train_fno(*_tiny_data(), sigma2=2.0, depth=2, width=4, n_modes=3, steps=3, batch=4, seed=0)
    np.testing.assert_array_equal(out["train_loss"], again["train_loss"])


def test_train_fno_reports_divergence_as_inf():
    """A huge initial σ² overflows float32: the loss curve stays inf from there on and the test loss is inf."""
    out = train_fno(*_tiny_data(), sigma2=1e8, depth=12, width=4, n_modes=3, steps=3, batch=4, seed=0)
    assert np.all(np.isinf(out["train_loss"]))
    assert out["test_loss"] == math.inf


@pytest.mark.parametrize("steps", [0, -1])
def test_train_fno_rejects_bad_steps(steps):
    with pytest.raises(ValueError, match="steps"):
        train_fno(*_tiny_data(), sigma2=2.0, depth=1, width=2, n_modes=2, steps=steps)
