"""The Semi-NMF V-step kernel: source compiles without a GPU; parity with the NumPy reference on a GPU."""
from __future__ import annotations

import numpy as np
import pytest

import neurips24
from neurips24.concepts import kernels, seminmf


def test_kernel_source_compiles():
    pytest.importorskip("cuda.bindings.nvrtc", reason="cuda-bindings (the 'test' extra) is not installed")
    from neurips24.cuda import compile_ptx, read_source

    src = read_source("neurips24.concepts", "seminmf_vstep.cu")
    for arch in ("sm_80", "sm_90"):
        assert compile_ptx(src, arch, "seminmf_vstep.cu")[:4] == b"\x7fELF"


def test_without_gpu_the_chapter_falls_back():
    if neurips24.backend.gpu_available():
        pytest.skip("a GPU is present")
    assert kernels.kernel_parity() is None
    with pytest.raises(RuntimeError, match="CuPy"):
        kernels.encode_nonneg_gpu(np.ones((2, 3)), np.ones((1, 3)), 1.0)
    rows = kernels.bench_snmf_vstep(M=64, D=16, K=4, n_iter=10, repeats=1)
    assert len(rows) == 1 and rows[0][1] > 0


def test_reference_fixed_iterations_equals_manual_fista():
    # the kernel follows encode_nonneg(tol=0) step for step: check that reference against a hand loop
    rng = np.random.default_rng(0)
    U = rng.normal(size=(3, 5))
    Z = rng.normal(size=(4, 5))
    G, ZUt = U @ U.T, Z @ U.T
    eta = 1 / np.linalg.eigvalsh(G)[-1]
    V = np.zeros((4, 3))
    Y, t = V.copy(), 1.0
    for _ in range(7):
        Vn = np.maximum(Y - eta * (Y @ G - ZUt + 0.5), 0)
        tn = 0.5 * (1 + np.sqrt(1 + 4 * t * t))
        Y, V, t = Vn + (t - 1) / tn * (Vn - V), Vn, tn
    np.testing.assert_allclose(seminmf.encode_nonneg(Z, U, 0.5, n_iter=7, tol=0.0), V, atol=1e-14)


@pytest.mark.gpu
def test_kernel_matches_reference_on_gpu():
    assert kernels.kernel_parity(M=300, D=576, K=20, n_iter=300) < 1e-9
    assert kernels.kernel_parity(M=50, D=64, K=37, n_iter=50, seed=3) < 1e-9     # K not a multiple of 32
