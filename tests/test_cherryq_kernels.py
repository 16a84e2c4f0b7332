"""The fused cherry quantizer kernel: compile (no GPU), CPU bench, parity with the NumPy reference on a GPU."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from neurips24.cherryq import kernels
from neurips24.cherryq.quantizer import num_cherries, quantize_reference, select_cherries


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_kernel_compiles(arch):
    pytest.importorskip("cuda.bindings.nvrtc")
    from neurips24.cuda import compile_ptx, read_source

    cubin = compile_ptx(read_source("neurips24.cherryq", "cherry_quant.cu"), arch, "cherry_quant.cu")
    assert cubin[:4] == b"\x7fELF"


def test_kernel_is_picked_up_by_the_shared_compile_test():
    import neurips24

    root = Path(neurips24.__file__).parent
    assert root / "cherryq" / "cherry_quant.cu" in sorted(root.rglob("*.cu"))


def test_bench_runs_on_cpu():
    rows = kernels.bench_cherry_quant(sizes=[(64, 128)], repeats=1)
    assert rows[0][0].startswith("numpy reference (CPU)") and rows[0][1] > 0 and rows[0][2] > 0
    assert any(r[0].startswith("torch (CPU)") for r in rows)
    with pytest.raises(ValueError, match="sizes"):
        kernels.bench_cherry_quant(sizes=[])
    with pytest.raises(ValueError, match="repeats"):
        kernels.bench_cherry_quant(repeats=0)


def test_parity_and_kernel_need_a_gpu():
    from neurips24.backend import gpu_available

    if gpu_available():
        pytest.skip("a GPU is present")
    assert kernels.kernel_parity() is None
    with pytest.raises(RuntimeError, match="needs CuPy"):
        kernels.quantize_kernel(np.ones((2, 4)), 3, 4)


@pytest.mark.gpu
@pytest.mark.parametrize("bits", range(2, 9))
@pytest.mark.parametrize("shape,group", [((96, 576), 64), ((40, 1536), 128), ((7, 64), 16)])
def test_kernel_matches_reference_bit_for_bit(bits, shape, group):
    pytest.importorskip("cupy")
    rng = np.random.default_rng(bits)
    w = rng.standard_normal(shape) * rng.gamma(1.0, 1.0, (shape[0], 1))
    idx = select_cherries(rng.random(shape), max(num_cherries(shape[1], 1 / 64), 3))
    ref = quantize_reference(w, bits, group, idx)
    got = kernels.quantize_kernel(w, bits, group, idx)
    np.testing.assert_array_equal(got.levels.get(), ref.levels)
    np.testing.assert_array_equal(got.scales.get(), ref.scales)
    np.testing.assert_array_equal(got.weight.get(), ref.weight)
    plain = kernels.quantize_kernel(w, bits, group)
    np.testing.assert_array_equal(plain.weight.get(), quantize_reference(w, bits, group).weight)
