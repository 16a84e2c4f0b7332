"""Weights that live on the GPU as CuPy arrays: the checks run in the array's own library, never through
``np.asarray`` (which CuPy refuses: "Implicit conversion to a NumPy array is not allowed"). On a CPU-only machine a
small stand-in plays CuPy: an array type from a module named ``cupy`` that, like CuPy's, raises on implicit
conversion, and a module with the few functions the host-side code calls."""
from __future__ import annotations

import sys
import types

import numpy as np
import pytest

from neurips24.cherryq import kernels, quantizer


class _DeviceArray:
    """A CuPy-like array: shape and dtype, ``.get()`` to copy to the host, no implicit conversion."""

    def __init__(self, a):
        self._a = np.asarray(a)

    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)

    def __array__(self, *args, **kwargs):
        raise TypeError("Implicit conversion to a NumPy array is not allowed. Please use `.get()` to construct a "
                        "NumPy array explicitly.")

    def get(self):
        return self._a.copy()

    def all(self):
        return _DeviceArray(self._a.all())

    def __bool__(self):
        return bool(self._a)


_DeviceArray.__module__ = "cupy"


def _fake_cupy():
    cp = types.ModuleType("cupy")
    unwrap = (lambda a: a._a if isinstance(a, _DeviceArray) else np.asarray(a))  # noqa: E731
    cp.asarray = lambda a, dtype=None: _DeviceArray(unwrap(a).astype(dtype or unwrap(a).dtype))
    cp.ascontiguousarray = lambda a: _DeviceArray(np.ascontiguousarray(unwrap(a)))
    cp.isfinite = lambda a: _DeviceArray(np.isfinite(unwrap(a)))
    cp.empty_like = lambda a: _DeviceArray(np.empty_like(unwrap(a)))
    cp.empty = lambda shape, dtype: _DeviceArray(np.empty(shape, dtype))
    cp.float64, cp.int32 = np.float64, np.int32
    return cp


@pytest.fixture
def fake_cupy(monkeypatch):
    cp = _fake_cupy()
    monkeypatch.setitem(sys.modules, "cupy", cp)
    return cp


def test_the_stand_in_refuses_numpy_like_cupy():
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.asarray(_DeviceArray(np.ones((2, 3))))


def test_check_weight_runs_on_the_arrays_device(fake_cupy):
    w = _DeviceArray(np.ones((3, 8)))
    assert quantizer.array_module(w) is fake_cupy and quantizer.array_module(np.ones(2)) is np
    assert quantizer.check_weight(w) == (3, 8)
    bad = np.ones((3, 8))
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match="finite"):
        quantizer.check_weight(_DeviceArray(bad))
    with pytest.raises(TypeError, match="real"):
        quantizer.check_weight(_DeviceArray(np.ones((3, 8), complex)))


def test_kernel_host_side_takes_a_device_weight(fake_cupy, monkeypatch):
    # everything quantize_kernel does before the launch, with a device weight as bench_cherry_quant passes it
    import neurips24.cuda

    launched = {}

    def raw_kernel(package, filename, name):
        return lambda grid, block, args: launched.update(grid=grid, block=block, args=args)

    monkeypatch.setattr(kernels, "cupy_or_none", lambda: fake_cupy)
    monkeypatch.setattr(neurips24.cuda, "raw_kernel", raw_kernel)
    rng = np.random.default_rng(0)
    w = rng.standard_normal((16, 64))
    idx = quantizer.select_cherries(rng.random((16, 64)), 2)
    q = kernels.quantize_kernel(fake_cupy.asarray(w), 3, 16, idx)
    assert q.levels.shape == (16, 62) and q.scales.shape == (16, 4) and q.weight.shape == (16, 64)
    np.testing.assert_array_equal(launched["args"][0].get(), w)
    assert launched["args"][1].get().tolist() == np.sort(idx, axis=1).tolist()


@pytest.mark.gpu
def test_bench_times_the_kernel_on_a_device_weight():
    pytest.importorskip("cupy")
    from neurips24.backend import gpu_available

    if not gpu_available():
        pytest.skip("needs a GPU")
    rows = kernels.bench_cherry_quant(sizes=[(64, 128)], repeats=1)
    assert any(r[0].startswith("cupy kernel (GPU)") and r[1] > 0 for r in rows)
