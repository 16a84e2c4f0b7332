"""The Monte Carlo reduction kernel (dlq.kernels): compile (no GPU), the kernel's layout checked against the torch
reference on CPU through a NumPy transcription of one launch, parity on a GPU."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.backend import gpu_available
from neurips24.dlq import kernels as K
from neurips24.dlq.tables import reduce_chunk, support_subsets


def _case(n=300, Kt=3, Fk=2, d=5, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, Kt)), rng.normal(size=(n, Fk, d))


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_kernel_compiles(arch):
    pytest.importorskip("cuda.bindings.nvrtc")
    from neurips24.cuda import compile_ptx, read_source

    cubin = compile_ptx(read_source("neurips24.dlq", "mc_reduce.cu"), arch, "mc_reduce.cu")
    assert cubin[:4] == b"\x7fELF"


def test_subset_index_pads_with_minus_one():
    idx = K.subset_index([(2,), (0, 1), (1, 1), (0, 3, 4)], 5)
    assert idx.dtype == np.int32
    np.testing.assert_array_equal(idx, [[2, -1, -1], [0, 1, -1], [1, 1, -1], [0, 3, 4]])
    assert K.subset_index([], 3).shape == (0, 1)


@pytest.mark.parametrize("bad, match", [([()], "at least one"), ([(0, 5)], r"\[0, 5\)"), ([(-1,)], r"\[0, 5\)")])
def test_subset_index_rejects_bad_sets(bad, match):
    with pytest.raises(ValueError, match=match):
        K.subset_index(bad, 5)


def test_numpy_launch_matches_hand_sums():
    T, F = _case(n=6, Kt=2, d=4)
    s, sq = K.subset_sums_numpy(T, F, K.subset_index([(1, 3), (2, 2)], 4))
    for a in range(2):
        for k in range(2):
            x = T[:, a] * F[:, k, 1] * F[:, k, 3]
            assert s[a, k, 0] == pytest.approx(x.sum()) and sq[a, k, 0] == pytest.approx((x * x).sum())
            assert s[a, k, 1] == pytest.approx((T[:, a] * F[:, k, 2] ** 2).sum())


@pytest.mark.parametrize("pair_columns, pair_feature", [((2, 0), 1), ((), -1), ((1,), 0)])
def test_kernel_layout_reproduces_reference(pair_columns, pair_feature):
    # the kernel's path (index layout, pairs mirrored, outputs split) with the launch done in NumPy
    T, F = _case()
    subsets = support_subsets((0, 2, 3))
    ref = reduce_chunk(T, F, pair_columns, pair_feature, subsets)
    got = K._assemble(T, F, pair_columns, pair_feature, subsets, K.subset_sums_numpy)
    assert set(got) == set(ref) and got["n"] == ref["n"]
    for key in ref:
        if key != "n":
            assert got[key].shape == ref[key].shape, key
            np.testing.assert_allclose(got[key], ref[key], rtol=1e-12, atol=1e-12, err_msg=key)


def test_shape_mismatch_raises():
    T, F = _case()
    with pytest.raises(ValueError, match="same n"):
        K.subset_sums_numpy(T[:-1], F, K.subset_index([(0,)], 5))


def test_bench_rejects_bad_sizes():
    with pytest.raises(ValueError, match="n must be"):
        K.bench_dlq_reduce(n=0)
    with pytest.raises(ValueError, match="d must be"):
        K.bench_dlq_reduce(d=0)


@pytest.mark.skipif(gpu_available(), reason="checks the CPU fallbacks")
def test_cpu_fallbacks():
    T, F = _case()
    assert K.kernel_parity() is None
    with pytest.raises(RuntimeError, match="CuPy"):
        K.subset_sums_kernel(T, F, K.subset_index([(0,)], 5))
    ref = reduce_chunk(T, F, (0,), -1, [(0, 1)])
    got = K.reduce_chunk_any(T, F, (0,), -1, [(0, 1)])
    for key in ref:
        np.testing.assert_array_equal(got[key], ref[key])
    rows = K.bench_dlq_reduce(n=500, K=3, d=6)
    assert len(rows) == 1 and rows[0][1] > 0 and rows[0][2] == 8.0 * 500 * (3 + 12)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 1000, 70_001])
def test_kernel_matches_reference_on_gpu(n):
    T, F = _case(n=n, Kt=6, Fk=2, d=32, seed=3)
    args = ((0, 3), -1, support_subsets((0, 1, 2)))
    ref = reduce_chunk(T, F, *args)
    got = K.reduce_chunk_kernel(T, F, *args)
    for key in ref:
        if key != "n":
            np.testing.assert_allclose(got[key], ref[key], rtol=1e-10, atol=1e-10 * n, err_msg=key)


@pytest.mark.gpu
def test_kernel_parity_and_bench_on_gpu():
    out = K.kernel_parity(n=4096, K=4, d=16)
    assert all(out[k] < 1e-9 for k in out if not k.endswith("_ms"))
    rows = K.bench_dlq_reduce(n=4096, K=3, d=8)
    assert len(rows) == 2 and "GPU" in rows[1][0]
