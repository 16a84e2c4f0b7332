"""The fused evidential kernel (edl.kernels, edl_fused.cu): its digamma/trigamma series against SciPy, its torch
reference against torch.distributions, a closed-form gradient (SciPy) and finite differences; parity on a GPU.
(The kernel's compilation for sm_80 and sm_90 is tested, without a GPU, by tests/test_cuda_compile.py.)"""
from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.special import digamma, polygamma

from neurips24.cuda import compile_ptx, read_source
from neurips24.edl import kernels as K
from neurips24.edl.dirichlet import uncertainties

GRID = np.concatenate([np.geomspace(1e-3, 1e4, 300), [0.5, 1.0, 9.999, 10.0, 10.001, 1e6]])


def test_digamma_and_trigamma_series_match_scipy():
    got = np.array([K.digamma_series(x) for x in GRID])
    np.testing.assert_allclose(got, digamma(GRID), rtol=1e-12, atol=1e-12)
    got = np.array([K.trigamma_series(x) for x in GRID])
    np.testing.assert_allclose(got, polygamma(1, GRID), rtol=1e-12)


def _case(n=64, C=5, seed=0, scale=3.0):
    rng = np.random.default_rng(seed)
    return rng.normal(scale=scale, size=(n, C)), rng.integers(0, C, size=n)


@pytest.mark.parametrize("lam", [0.5, 0.01, 1e-4])
def test_reference_loss_and_decomposition(lam):
    f, y = _case()
    ref = K.fused_reference(f, y, lam)
    alpha = torch.tensor(np.exp(f))
    target = 1.0 + torch.nn.functional.one_hot(torch.tensor(y), 5).double() / lam
    kl = torch.distributions.kl_divergence(torch.distributions.Dirichlet(alpha), torch.distributions.Dirichlet(target))
    np.testing.assert_allclose(ref["loss"], kl.numpy(), rtol=1e-9, atol=1e-9)
    u = uncertainties(np.exp(f))
    for k in ("alpha0", "aleatoric", "epistemic"):
        np.testing.assert_allclose(ref[k], u[k], rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("lam", [0.5, 0.01])
def test_reference_gradient_is_the_kernels_closed_form_and_finite_differences(lam):
    f, y = _case(n=16, C=4, seed=1, scale=2.0)
    ref = K.fused_reference(f, y, lam)
    # the kernel's formula, with SciPy's ψ'
    a = np.exp(f)
    b = 1.0 + np.eye(4)[y] / lam
    a0, b0 = a.sum(1, keepdims=True), b.sum(1, keepdims=True)
    closed = a * ((a - b) * polygamma(1, a) - (a0 - b0) * polygamma(1, a0))
    np.testing.assert_allclose(ref["grad"], closed, rtol=1e-8, atol=1e-8 / lam)   # terms of size 1/λ cancel
    # central differences of the loss
    h = 1e-6
    fd = np.zeros_like(f)
    for j in range(4):
        e = np.zeros_like(f)
        e[:, j] = h
        fd[:, j] = (K.fused_reference(f + e, y, lam)["loss"] - K.fused_reference(f - e, y, lam)["loss"]) / (2 * h)
    np.testing.assert_allclose(ref["grad"], fd, rtol=1e-5, atol=1e-5 * (1 / lam))


def test_kernel_source_compiles_and_names_its_entry_point():
    pytest.importorskip("cuda.bindings.nvrtc", reason="cuda-bindings (the 'test' extra) is not installed")
    src = read_source("neurips24.edl", "edl_fused.cu")
    assert 'extern "C" __global__ void edl_fused' in src
    assert compile_ptx(src, "sm_80", "edl_fused.cu")[:4] == b"\x7fELF"


@pytest.mark.parametrize(("args", "msg"), [
    ((np.array([[0.0, np.nan]]), [0], 0.1), "finite"),
    ((np.zeros((2, 3)), [0], 0.1), "labels"),
    ((np.zeros((2, 3)), [0, 3], 0.1), "class count mismatch"),
    ((np.zeros((2, 3)), [0.0, 1.0], 0.1), "labels"),
    ((np.zeros((2, 3)), [0, 1], 0.0), "lam"),
    ((np.zeros(3), [0], 0.1), "shape"),
])
def test_reference_bad_inputs(args, msg):
    with pytest.raises(ValueError, match=msg):
        K.fused_reference(*args)


def test_series_bad_input_and_cpu_fallbacks():
    with pytest.raises(ValueError, match="x must be > 0"):
        K.digamma_series(0.0)
    with pytest.raises(ValueError, match="x must be > 0"):
        K.trigamma_series(-1.0)
    from neurips24.backend import gpu_available

    if not gpu_available():
        assert K.kernel_parity() is None
        with pytest.raises(RuntimeError, match="CuPy"):
            K.fused_kernel(np.zeros((1, 2)), [0], 0.1)
        rows = K.bench_edl_fused(n=200, C=3)
        assert len(rows) == 1 and rows[0][1] > 0


@pytest.mark.gpu
@pytest.mark.parametrize("lam", [0.1, 1e-4])
def test_kernel_matches_reference_on_gpu(lam):
    import cupy as cp

    f, y = _case(n=5000, C=10, seed=2)
    ref = K.fused_reference(f, y, lam)
    got = K.fused_kernel(cp.asarray(f), cp.asarray(y), lam)
    for k in ref:
        np.testing.assert_allclose(cp.asnumpy(got[k]), ref[k], rtol=1e-10, atol=1e-10)
    with pytest.raises(ValueError, match="class count mismatch"):
        K.fused_kernel(cp.asarray(f), cp.asarray(y) + 10, lam)
