"""The fused evidential kernel (edl.kernels, edl_fused.cu): its digamma/trigamma series against SciPy, its torch
reference against torch.distributions, torch autograd, finite differences and mpmath; the kernel's NumPy
transcription against the reference; parity on a GPU.
(The kernel's compilation for sm_80 and sm_90 is tested, without a GPU, by tests/test_cuda_compile.py.)"""
from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.special import digamma, polygamma

from neurips24.cuda import compile_ptx, read_source
from neurips24.edl import kernels as K
from neurips24.edl.dirichlet import _kl, uncertainties

# the arguments the kernel sees: α = exp(f) from tiny (f ≈ −20) to large, α₀, α + 1 and α₀ + 1, the recurrence's
# switch at 10, and the zero of ψ near 1.4616
GRID = np.concatenate([np.geomspace(1e-9, 1e8, 600), np.linspace(0.05, 12.0, 400), [0.5, 1.0, 1.4616321449683622,
                       9.999, 10.0, 10.001]])


def test_digamma_and_trigamma_series_match_scipy():
    got = np.array([K.digamma_series(x) for x in GRID])
    np.testing.assert_allclose(got, digamma(GRID), rtol=2e-15, atol=2e-15)
    got = np.array([K.trigamma_series(x) for x in GRID])
    np.testing.assert_allclose(got, polygamma(1, GRID), rtol=4e-15)


def test_series_match_mpmath_at_small_and_switch_arguments():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    for x in (1e-8, 1e-5, 0.003, 0.37, 1.0, 6.5, 9.999, 10.0, 10.5, 37.0, 1e5):
        assert K.digamma_series(x) == pytest.approx(float(mpmath.digamma(x)), rel=2e-15, abs=2e-15)
        assert K.trigamma_series(x) == pytest.approx(float(mpmath.psi(1, x)), rel=4e-15)


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
def test_reference_gradient_matches_autograd_and_finite_differences(lam):
    f, y = _case(n=16, C=4, seed=1, scale=2.0)
    ref = K.fused_reference(f, y, lam)
    # torch autograd of the loss: its ψ' (torch's trigamma) is off by up to 5e-10 relative, and the two terms
    # of size 1/λ cancel, so it agrees only to that accuracy; that is why the reference uses SciPy's ψ'
    ft = torch.tensor(f, requires_grad=True)
    target = 1.0 + torch.nn.functional.one_hot(torch.tensor(y), 4).double() / lam
    (auto,) = torch.autograd.grad(_kl(torch.exp(ft), target).sum(), ft)
    np.testing.assert_allclose(ref["grad"], auto.numpy(), rtol=1e-8, atol=1e-8 / lam)
    # central differences of the loss
    h = 1e-6
    fd = np.zeros_like(f)
    for j in range(4):
        e = np.zeros_like(f)
        e[:, j] = h
        fd[:, j] = (K.fused_reference(f + e, y, lam)["loss"] - K.fused_reference(f - e, y, lam)["loss"]) / (2 * h)
    np.testing.assert_allclose(ref["grad"], fd, rtol=1e-5, atol=1e-5 * (1 / lam))


@pytest.mark.parametrize("lam", [0.1, 1e-4])
def test_reference_gradient_matches_a_40_digit_derivative(lam):
    # the reference gradient to ~1e-13 against mpmath: the KL written with mpmath's ln Γ and ψ, differentiated
    # at 40 digits, for rows with tiny, moderate and large α (f from −12 to 9)
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    f = np.array([[-12.0, 0.3, 2.0, -1.0], [0.0, 0.5, -0.7, 1.2], [9.0, -4.0, 0.05, 3.0]])
    y = np.array([1, 3, 0])
    ref = K.fused_reference(f, y, lam)["grad"]
    nu = mpmath.mpf(1) / mpmath.mpf(lam)
    for i in range(3):
        beta = [1 + (nu if c == y[i] else 0) for c in range(4)]

        def kl(*fs, beta=beta):
            a = [mpmath.exp(v) for v in fs]
            a0, b0 = sum(a), sum(beta)
            return (mpmath.loggamma(a0) - sum(mpmath.loggamma(v) for v in a) - mpmath.loggamma(b0)
                    + sum(mpmath.loggamma(v) for v in beta)
                    + sum((a[c] - beta[c]) * (mpmath.digamma(a[c]) - mpmath.digamma(a0)) for c in range(4)))

        for c in range(4):
            order = tuple(int(k == c) for k in range(4))
            exact = float(mpmath.diff(kl, tuple(mpmath.mpf(v) for v in f[i]), order))
            assert ref[i, c] == pytest.approx(exact, rel=1e-12, abs=1e-12), (i, c)


@pytest.mark.parametrize("lam", [0.1, 1e-4])
def test_kernel_transcription_matches_reference_at_the_gpu_tolerance(lam):
    # the kernel's arithmetic (fused_numpy: edl_fused.cu line for line) against the reference, on the gpu
    # test's case and at its tolerance; with torch's autograd gradient as the reference this failed on 28.7 %
    # (λ = 0.1) and 5.4 % (λ = 1e-4) of the gradient entries, as the kernel did on an H200
    f, y = _case(n=5000, C=10, seed=2)
    ref = K.fused_reference(f, y, lam)
    got = K.fused_numpy(f, y, lam)
    for k in ref:
        np.testing.assert_allclose(got[k], ref[k], rtol=1e-10, atol=1e-10, err_msg=k)


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
