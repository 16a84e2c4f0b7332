"""Every bad input listed in issue 11 raises a clear ValueError/TypeError that names the argument."""
import numpy as np
import pytest
import torch

from neurips24.fno.backward import lag_backward, predicted_slope
from neurips24.fno.data import heat_dataset
from neurips24.fno.layer import draw_layer, spectral_conv
from neurips24.fno.meanfield import chi
from neurips24.fno.model import DeepFNO, init_gaussian_, input_gradient_norms
from neurips24.fno.train import train_fno


@pytest.mark.parametrize(("kw", "name"), [
    (dict(sigma_w2=np.array([-1.0, 1.0])), "sigma_w2"),
    (dict(sigma_r2=np.array([1.0, np.nan])), "sigma_r2"),
    (dict(sigma_r2=np.array([1.0, 1.0, 1.0])), "sigma_r2"),
    (dict(sigma_b2=-0.1), "sigma_b2"),
])
def test_draw_layer_rejects_bad_variances(kw, name):
    args = dict(sigma_w2=np.ones(2), sigma_r2=np.ones(2), sigma_b2=0.0) | kw
    with pytest.raises(ValueError, match=name):
        draw_layer(np.random.default_rng(0), 2, 4, 2, **args)


def test_draw_layer_rejects_non_int_counts():
    with pytest.raises(TypeError, match="width"):
        draw_layer(np.random.default_rng(0), 2, 4.0, 2, np.ones(2), np.ones(2), 0.0)


def test_input_gradient_norms_rejects_nan_and_non_tensor():
    model = init_gaussian_(DeepFNO(2, 3, 2, 8), 2.0)
    u = torch.zeros(2, 8, dtype=torch.float64)
    u[0, 3] = float("nan")
    with pytest.raises(ValueError, match="u must be finite"):
        input_gradient_norms(model, u)
    with pytest.raises(TypeError, match="u must be"):
        input_gradient_norms(model, np.zeros((2, 8)))
    with pytest.raises(TypeError, match="model"):
        input_gradient_norms(object(), torch.zeros(2, 8, dtype=torch.float64))


def _data():
    u = np.random.default_rng(0).standard_normal((4, 8))
    return [u, u.copy(), u.copy(), u.copy()]


@pytest.mark.parametrize("which", [0, 1, 2, 3])
def test_train_fno_rejects_nan_data(which):
    data = _data()
    data[which][1, 2] = np.nan
    name = ["u0", "uT", "u0_test", "uT_test"][which]
    with pytest.raises(ValueError, match=f"{name} must be finite"):
        train_fno(*data, sigma2=2.0, depth=1, width=2, n_modes=2, steps=2)


@pytest.mark.parametrize(("kw", "exc", "name"), [
    (dict(batch=0), ValueError, "batch"),
    (dict(batch=2.0), TypeError, "batch"),
    (dict(lr=0.0), ValueError, "lr"),
    (dict(lr=float("nan")), ValueError, "lr"),
    (dict(seed=-1), ValueError, "seed"),
])
def test_train_fno_rejects_bad_hyper_parameters(kw, exc, name):
    with pytest.raises(exc, match=name):
        train_fno(*_data(), sigma2=2.0, depth=1, width=2, n_modes=2, steps=2, **kw)


def test_train_fno_rejects_mismatched_data():
    u0, uT, u0t, uTt = _data()
    with pytest.raises(ValueError, match="uT"):
        train_fno(u0, uT[:3], u0t, uTt, sigma2=2.0, depth=1, width=2, n_modes=2, steps=2)
    with pytest.raises(ValueError, match="u0_test"):
        train_fno(u0, uT, u0t[:, :6], uTt, sigma2=2.0, depth=1, width=2, n_modes=2, steps=2)


def test_spectral_conv_rejects_mismatched_channels_and_too_many_modes():
    a = np.zeros((1, 2, 3, 8))
    with pytest.raises(ValueError, match="R must have shape"):
        spectral_conv(a, np.zeros((1, 2, 4, 4), dtype=complex))           # D = 4 vs 3 channels
    with pytest.raises(ValueError, match="N/2 \\+ 1 = 5"):
        spectral_conv(a, np.zeros((1, 6, 3, 3), dtype=complex))           # K = 6 > N/2 + 1
    with pytest.raises(ValueError, match="a must have shape"):
        spectral_conv(np.zeros((2, 3, 8)), np.zeros((1, 2, 3, 3), dtype=complex))


@pytest.mark.parametrize(("kw", "exc", "name"), [
    (dict(n_quad=0), ValueError, "n_quad"),
    (dict(n_quad=2.5), TypeError, "n_quad"),
    (dict(q=float("inf")), ValueError, "q must"),
])
def test_chi_rejects_bad_quadrature_and_variance(kw, exc, name):
    args = dict(activation="tanh", sigma_w2=1.0, sigma_r2=1.0, q=1.0) | kw
    with pytest.raises(exc, match=name):
        chi(**args)


@pytest.mark.parametrize(("seed", "exc"), [(-1, ValueError), (1.5, TypeError)])
def test_heat_dataset_names_seed(seed, exc):
    with pytest.raises(exc, match="seed"):
        heat_dataset(2, 8, seed=seed)


@pytest.mark.parametrize(("kw", "exc", "name"), [
    (dict(kappa0=np.array([0.0, 0.0, 0.0, 0.0])), ValueError, "kappa0"),
    (dict(kappa0=np.array([1.0, np.nan, 0.0, 0.0])), ValueError, "kappa0"),
    (dict(kappa0=np.ones((2, 4))), ValueError, "kappa0"),
    (dict(kappa0=np.array(["a", "b"])), TypeError, "kappa0"),
    (dict(n_modes=4), ValueError, "n_modes"),
    (dict(n_modes=2.0), TypeError, "n_modes"),
    (dict(depth=0), ValueError, "depth"),
    (dict(sigma_w2=-1.0), ValueError, "sigma_w2"),
    (dict(sigma_w2=0.0, sigma_r2=0.0), ValueError, "sigma_w2 \\+ sigma_r2"),
    (dict(activation="gelu"), ValueError, "activation"),
])
def test_lag_backward_rejects_bad_inputs(kw, exc, name):
    args = dict(kappa0=np.eye(1, 4)[0], sigma_w2=1.0, sigma_r2=1.0, n_modes=2, depth=2, activation="relu") | kw
    with pytest.raises(exc, match=name):
        lag_backward(**args)


def test_predicted_slope_rejects_bad_variant_and_grid():
    with pytest.raises(ValueError, match="variant"):
        predicted_slope(2.0, "both", n_modes=2, n_grid=8, depth=4)
    with pytest.raises(ValueError, match="n_grid"):
        predicted_slope(2.0, "spectral", n_modes=1, n_grid=1, depth=4)


@pytest.mark.parametrize(("kw", "name"), [(dict(q1=-1.0), "q1"), (dict(q2=0.0), "q2"), (dict(q1=float("nan")), "q1"),
                                          (dict(cov=float("nan")), "cov")])
def test_gaussian_pair_expectation_refuses_bad_variances(kw, name):
    from neurips24.fno.meanfield import gaussian_pair_expectation
    args = dict(q1=1.0, q2=1.0, cov=0.5, activation="tanh") | kw
    with pytest.raises(ValueError, match=name):
        gaussian_pair_expectation(**args)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_fit_slope_refuses_non_finite(bad):
    from neurips24.fno.backward import fit_slope
    logs = np.log(np.arange(1.0, 8.0))
    logs[3] = bad
    with pytest.raises(ValueError, match="log_norms"):
        fit_slope(logs)
