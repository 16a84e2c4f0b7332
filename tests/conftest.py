"""Shared test setup: no writes to the home folder, one CPU thread, no network, GPU tests skipped without a GPU."""
from __future__ import annotations

import matplotlib
import pytest
import torch

matplotlib.use("Agg")   # figures are drawn off screen in the tests

from neurips24.backend import gpu_available


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch, tmp_path):
    """Claims go to a per-test folder; scale, device and seed offset come from the defaults, not the caller's shell."""
    monkeypatch.setenv("NEURIPS24_CLAIMS_DIR", str(tmp_path / "claims"))
    monkeypatch.delenv("NEURIPS24_SCALE", raising=False)
    monkeypatch.delenv("NEURIPS24_DEVICE", raising=False)
    monkeypatch.delenv("NEURIPS24_SEED_OFFSET", raising=False)


@pytest.fixture(autouse=True, scope="session")
def _one_thread():
    torch.set_num_threads(1)


def pytest_collection_modifyitems(config, items):
    """Skip tests marked ``gpu`` without a GPU; block the network (pytest-socket) in every test."""
    has_gpu = gpu_available()
    skip_gpu = pytest.mark.skip(reason="needs a CUDA GPU and CuPy")
    for item in items:
        if "gpu" in item.keywords and not has_gpu:
            item.add_marker(skip_gpu)
        if item.get_closest_marker("enable_socket") is None:
            item.add_marker(pytest.mark.disable_socket)
