"""The CUDA kernel of the defer chapter (surrogate.cu): its arguments, the no-GPU path, parity on a GPU."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.backend import gpu_available
from neurips24.cuda import read_source
from neurips24.defer import kernels as K
from neurips24.defer import losses as L

CASES = [("ce", None), ("ova", None), ("rs", None), ("general", None), ("general", 0.7), ("rl2d", None),
         ("rl2d", 0.5), ("rl2d", 1.0)]


def test_kernel_family_matches_the_reference_family():
    for name, q in CASES:
        mode, q0, scale = K.kernel_family(name, q)
        if name == "ova":
            assert (mode, q0, scale) == (2, 0.0, 1.0)
        else:
            joint, rq, rscale = K.family(name, q)
            assert (mode, q0, scale) == (int(joint), rq, rscale)


def test_kernel_family_bad_input():
    with pytest.raises(ValueError, match="name must be one of"):
        K.kernel_family("hinge")
    with pytest.raises(ValueError, match="q must lie in"):
        K.kernel_family("rl2d", 1.5)


def test_source_has_both_precisions():
    src = read_source("neurips24.defer", "surrogate.cu")
    assert "defer_surrogate_f32" in src and "defer_surrogate_f64" in src


def test_without_gpu_only_the_reference_runs():
    if gpu_available():
        pytest.skip("a GPU is present: the gpu tests cover the kernel")
    assert K.kernel_parity() is None
    with pytest.raises(RuntimeError, match="CuPy"):
        K.fused_kernel(np.zeros((1, 3)), [0], [0.5], "rl2d", 1.0)
    with pytest.raises(ValueError, match="name must be one of"):    # checked before looking for a GPU
        K.fused_kernel(np.zeros((1, 3)), [0], [0.5], "hinge")
    rows = K.bench_defer_fused(N=200, n=3)
    assert len(rows) == 1 and rows[0][1] > 0 and rows[0][2] > 0


def _case(N=3000, n=10, seed=4):
    g = torch.Generator().manual_seed(seed)
    h = torch.randn(N, n + 1, generator=g, dtype=torch.float64) * 3
    h[2] = torch.linspace(-40, 40, n + 1, dtype=torch.float64)       # far tails of the softmax
    y = torch.randint(0, n, (N,), generator=g)
    c = torch.rand(N, generator=g, dtype=torch.float64)
    c[0], c[1] = 0.0, 1.0
    return h, y, c


@pytest.mark.parametrize("name,q", CASES)
def test_the_two_references_agree_at_the_gpu_tolerance(name, q):
    # the gpu test compares the kernel with both references at 1e-12 in float64: they must agree with each
    # other to that tolerance on its case, far tails (|h| up to 40) included; F.softplus, linear above 20,
    # once made autograd's OvA gradient exactly ±1 where the exact value is ±σ(24) = ±(1 − 3.8e-11)
    h, y, c = _case()
    hh = h.clone().requires_grad_(True)
    loss_ag = L.surrogate(name, hh, y, c, q=q)
    (grad_ag,) = torch.autograd.grad(loss_ag.sum(), hh)
    ref_loss, ref_grad = K.fused_loss_grad(h, y, c, name, q)
    np.testing.assert_allclose(ref_loss.numpy(), loss_ag.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(ref_grad.numpy(), grad_ag.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.gpu
@pytest.mark.parametrize("name,q", CASES)
@pytest.mark.parametrize("dtype,tol", [("float64", 1e-12), ("float32", 2e-5)])
def test_kernel_matches_reference_and_autograd_on_gpu(name, q, dtype, tol):
    import cupy as cp

    h, y, c = _case()
    hh = h.clone().requires_grad_(True)
    loss_ag = L.surrogate(name, hh, y, c, q=q)
    (grad_ag,) = torch.autograd.grad(loss_ag.sum(), hh)
    ref_loss, ref_grad = K.fused_loss_grad(h, y, c, name, q)
    loss, grad = K.fused_kernel(cp.asarray(h.numpy().astype(dtype)), cp.asarray(y.numpy()), c.numpy(), name, q)
    assert loss.dtype == grad.dtype == np.dtype(dtype) and grad.shape == tuple(h.shape)
    for got, refs in [(cp.asnumpy(loss), (ref_loss, loss_ag.detach())), (cp.asnumpy(grad), (ref_grad, grad_ag))]:
        for ref in refs:
            np.testing.assert_allclose(got, ref.numpy(), rtol=tol, atol=tol)


@pytest.mark.gpu
def test_kernel_parity_and_bench_on_gpu():
    out = K.kernel_parity(N=2000, n=5)
    assert out is not None and out["gpu_ms"] > 0
    assert max(v for k, v in out.items() if k.endswith("float64 loss") or k.endswith("float64 grad")) < 1e-12
    assert max(v for k, v in out.items() if "float32" in k) < 2e-5
    assert len(K.bench_defer_fused(N=2000, n=5)) == 2


@pytest.mark.gpu
def test_kernel_bad_input_on_gpu():
    h, y, c = _case(N=10)
    with pytest.raises(TypeError, match="float32 or float64"):
        K.fused_kernel(h.numpy().astype(np.float16), y.numpy(), c.numpy(), "ce")
    bad = h.numpy().copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        K.fused_kernel(bad, y.numpy(), c.numpy(), "ce")
    with pytest.raises(ValueError, match="y must lie in"):
        K.fused_kernel(h.numpy(), y.numpy() + 10, c.numpy(), "ce")
    with pytest.raises(ValueError, match="cost must lie in"):
        K.fused_kernel(h.numpy(), y.numpy(), c.numpy() + 2, "ce")
    with pytest.raises(ValueError, match="shape"):
        K.fused_kernel(h.numpy()[:, :2], y.numpy(), c.numpy(), "ce")
