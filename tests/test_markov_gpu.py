"""The CUDA flow kernel against its NumPy reference (skipped without a GPU)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.markov.flow import gradient_flow, gradient_flow_reference

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize(("p", "q", "bias"), [(0.9, 0.9, "optimal"), (0.2, 0.3, "optimal"), (0.5, 0.8, "free"),
                                               (0.7, 0.1, "optimal")])
def test_flow_kernel_matches_reference(p, q, bias):
    cupy = pytest.importorskip("cupy")
    rng = np.random.default_rng(3)
    e0, w0 = rng.uniform(-2, 2, 1000), rng.uniform(-2, 2, 1000)
    ref = gradient_flow_reference(e0, w0, p, q, lr=0.02, steps=500, bias=bias)
    out = gradient_flow(cupy.asarray(e0), cupy.asarray(w0), p, q, lr=0.02, steps=500, bias=bias)
    for k in ("e", "w", "b", "loss"):
        assert isinstance(out[k], cupy.ndarray)
        np.testing.assert_allclose(out[k].get(), ref[k], rtol=1e-9, atol=1e-11)


def test_flow_kernel_free_bias_with_b0():
    cupy = pytest.importorskip("cupy")
    e0, w0, b0 = np.array([0.5, 1.5]), np.array([-1.0, 0.3]), np.array([0.2, -0.4])
    ref = gradient_flow_reference(e0, w0, 0.6, 0.7, lr=0.01, steps=100, bias="free", b0=b0)
    out = gradient_flow(cupy.asarray(e0), cupy.asarray(w0), 0.6, 0.7, lr=0.01, steps=100, bias="free", b0=b0)
    np.testing.assert_allclose(out["b"].get(), ref["b"], rtol=1e-10, atol=1e-12)
