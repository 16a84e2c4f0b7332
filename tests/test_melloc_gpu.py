"""The CUDA residual kernel and the CuPy FFT solve against the NumPy/SciPy reference, bit for bit (GPU only)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.melloc import compress, decompress
from neurips24.melloc.fields import make_field
from neurips24.melloc.intmap import float_to_int
from neurips24.melloc.kernels import residual_gpu, residual_reference, solve_periodic_gpu
from neurips24.melloc.stencil import FAMILY, apply_stencil, solve_periodic

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize(("a", "b"), FAMILY)
def test_residual_kernel_bitwise(a, b):
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(a + b)
    q = rng.integers(-2**40, 2**40, (37, 53))
    f = rng.integers(-2**40, 2**40, (37, 53))
    assert np.array_equal(cp.asnumpy(residual_gpu(cp.asarray(q), cp.asarray(f), a, b)), residual_reference(q, f, a, b))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gpu_solve_bitwise(dtype):
    pytest.importorskip("cupy")
    q = float_to_int(make_field("poisson", 256, dtype))[0]
    f = apply_stencil(q, 1, 0)
    assert np.array_equal(solve_periodic_gpu(f, 1, 0, int(q[0, 0])), solve_periodic(f, 1, 0, int(q[0, 0])))


def test_gpu_decompress_bitwise():
    pytest.importorskip("cupy")
    u = make_field("heat", 200, np.float64)
    blob = compress(u)
    assert np.array_equal(decompress(blob, device="gpu").view(np.uint64), decompress(blob).view(np.uint64))
