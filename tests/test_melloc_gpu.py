"""The CUDA residual kernel and the CuPy FFT solve against the NumPy/SciPy reference, bit for bit (GPU only)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.melloc import compress, decompress
from neurips24.melloc.fields import make_field
from neurips24.melloc.intmap import float_to_int
from neurips24.melloc.kernels import residual_gpu, residual_reference, solve_periodic_gpu
from neurips24.melloc.stencil import LAPLACE5, apply_stencil, solve_periodic, stencil_matrix, template

MEMBERS = [LAPLACE5, stencil_matrix(4, 1), template(1, 4), template(1, 1, p=1), template(3, 3, e=1)]

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("m", MEMBERS)
def test_residual_kernel_bitwise(m):
    cp = pytest.importorskip("cupy")
    rng = np.random.default_rng(int(np.abs(m).sum()))
    q = rng.integers(-2**40, 2**40, (37, 53))
    f = rng.integers(-2**40, 2**40, (37, 53))
    assert np.array_equal(cp.asnumpy(residual_gpu(cp.asarray(q), cp.asarray(f), m)), residual_reference(q, f, m))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m", MEMBERS)
def test_gpu_solve_bitwise(dtype, m):
    pytest.importorskip("cupy")
    q = float_to_int(make_field("poisson", 256, dtype))[0]
    f = apply_stencil(q, m)
    assert np.array_equal(solve_periodic_gpu(f, m, int(q[0, 0])), solve_periodic(f, m, int(q[0, 0])))


def test_gpu_decompress_bitwise():
    pytest.importorskip("cupy")
    u = make_field("heat", 200, np.float64)
    blob = compress(u)
    assert np.array_equal(decompress(blob, device="gpu").view(np.uint64), decompress(blob).view(np.uint64))
