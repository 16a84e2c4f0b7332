"""TTD's weights + feature-fusion kernel (ttd.kernels, rd_fuse.cu): the NumPy reference against torch, bad
inputs, compilation without a GPU, parity on a GPU."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.ttd import kernels as K


def test_reference_matches_torch_softmax_and_einsum():
    ell, h = K._case(P=300, C=5, M=3, seed=1)
    w, f = K.rd_fuse_reference(ell, h, gamma=50.0)
    wt = 3 * torch.softmax(torch.exp(-50.0 * torch.from_numpy(ell).double()), dim=0)
    ft = torch.einsum("mp,mcp->cp", wt, torch.from_numpy(h).double()) / 3
    np.testing.assert_allclose(w, wt.numpy(), rtol=1e-6)
    np.testing.assert_allclose(f, ft.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("args", [
    (np.zeros((1, 10)), np.zeros((1, 2, 10))),              # M < 2
    (np.zeros((9, 10)), np.zeros((9, 2, 10))),              # M > 8
    (np.zeros((2, 10)), np.zeros((2, 2, 11))),              # pixel counts differ
    (-np.ones((2, 10)), np.zeros((2, 2, 10))),              # negative loss
    (np.full((2, 10), np.nan), np.zeros((2, 2, 10))),       # non-finite
])
def test_bad_inputs(args):
    with pytest.raises(ValueError):
        K.rd_fuse_reference(*args)
    with pytest.raises(ValueError):
        K.rd_fuse_reference(np.zeros((2, 10)), np.zeros((2, 2, 10)), gamma=0.0)


def test_kernel_compiles_without_a_gpu():
    pytest.importorskip("cuda.bindings.nvrtc", reason="cuda-bindings (the 'test' extra) is not installed")
    from neurips24.cuda import compile_ptx, read_source

    cubin = compile_ptx(read_source("neurips24.ttd", "rd_fuse.cu"), "sm_80", "rd_fuse.cu")
    assert cubin[:4] == b"\x7fELF"


def test_without_gpu_parity_is_none_and_benchmark_has_the_cpu_row():
    from neurips24.backend import cupy_or_none

    rows = K.bench_rd_fuse(P=1000, C=4)
    assert rows[0][0].startswith("ttd.rd_fuse numpy") and rows[0][1] > 0
    if cupy_or_none() is None:
        assert K.kernel_parity() is None
        with pytest.raises(RuntimeError):
            K.rd_fuse_kernel(*K._case(10, 2))


@pytest.mark.gpu
def test_gpu_parity():
    out = K.kernel_parity()
    assert out["weights"] < 1e-5 and out["fused"] < 1e-4
