"""Array backend: NumPy by default, CuPy when a GPU is present.

``NEURIPS24_DEVICE=auto|cpu|gpu`` (default ``auto``) chooses. ``auto`` takes CuPy only when it imports
and sees a CUDA device; ``gpu`` without one raises a clear error. Nothing here fails to import where
CuPy is absent.
"""
from __future__ import annotations

import os
from types import ModuleType

import numpy as np

DEVICES = ("auto", "cpu", "gpu")
ENV_VAR = "NEURIPS24_DEVICE"


def cupy_or_none() -> ModuleType | None:
    """The ``cupy`` module if it imports and sees at least one CUDA device, else ``None``."""
    try:
        import cupy
    except Exception:  # ImportError, or a CUDA library missing at import time
        return None
    try:
        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:  # no driver, no device
        return None


def gpu_available() -> bool:
    """True when CuPy imports and a CUDA device is visible."""
    return cupy_or_none() is not None


def device(requested: str | None = None) -> str:
    """Resolve the device: 'cpu' or 'gpu'.

    Parameters
    ----------
    requested : 'auto', 'cpu' or 'gpu'; ``None`` reads ``NEURIPS24_DEVICE`` (default 'auto').

    Raises
    ------
    ValueError for any other value; RuntimeError for 'gpu' when CuPy or a CUDA device is missing.
    """
    raw = requested if requested is not None else os.environ.get(ENV_VAR, "auto")
    value = str(raw).strip().lower() or "auto"
    if value not in DEVICES:
        raise ValueError(f"device must be one of {DEVICES}, got {value!r}")
    if value == "cpu":
        return "cpu"
    if gpu_available():
        return "gpu"
    if value == "gpu":
        raise RuntimeError(
            "a GPU was requested (NEURIPS24_DEVICE=gpu) but CuPy or a CUDA device is missing; "
            "install the 'gpu' extra (cupy-cuda12x) on a machine with an NVIDIA GPU, or use 'cpu'"
        )
    return "cpu"


def array_module(requested: str | None = None) -> ModuleType:
    """``numpy`` or ``cupy`` for the resolved device (see :func:`device`)."""
    return cupy_or_none() if device(requested) == "gpu" else np


def to_numpy(x):
    """A NumPy copy of a NumPy or CuPy array (CuPy arrays are moved to the host)."""
    return x.get() if hasattr(x, "get") else np.asarray(x)
