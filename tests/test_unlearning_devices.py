"""Stacks whose tensors live off the host (the GPU at full scale): inputs that are already torch tensors are moved
with ``Tensor.to``, never read through NumPy (which cannot read device memory). PyTorch's 'meta' device stands
in for the GPU on a CPU-only machine: like CUDA memory, a meta tensor has no host buffer NumPy could read."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.unlearning import stack


def _blobs(n=30):
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, 4)).astype(np.float32), np.repeat([0, 1], n // 2)


@pytest.fixture
def meta(monkeypatch):
    monkeypatch.setattr(stack, "device", lambda: torch.device("meta"))
    return torch.device("meta")


def test_training_on_a_device_numpy_cannot_read(meta):
    # train_stack moves x to the stack's device once, then the loss calls logits(params, x) with that tensor
    x, y = _blobs()
    p = stack.fit_from_scratch(x, y, np.ones((2, len(y)), bool), hidden=8, steps=3, lr=0.01, seed=0, n_classes=2)
    assert {k: (v.device.type, tuple(v.shape)) for k, v in p.items()} == {
        "W1": ("meta", (2, 4, 8)), "b1": ("meta", (2, 8)), "W2": ("meta", (2, 8, 2)), "b2": ("meta", (2, 2))}


def test_device_tensor_inputs_are_accepted(meta):
    params = stack.init_stack(3, 4, 8, 2, seed=0)
    x = torch.zeros(5, 4, dtype=torch.float64, device=meta)
    z = stack.logits(params, x)
    assert z.device.type == "meta" and z.dtype == torch.float32 and tuple(z.shape) == (3, 5, 2)
    assert tuple(stack.take(params, torch.tensor([0, 2])).get("W1").shape) == (2, 4, 8)


def test_tensor_inputs_skip_numpy(monkeypatch):
    # the same numbers whether x comes as a NumPy array or as a tensor that refuses to become one
    x, _ = _blobs()
    params = stack.init_stack(2, 4, 8, 2, seed=0)
    want = stack.logits(params, x)

    def refuse(*args, **kwargs):
        raise AssertionError("a tensor input went through NumPy")

    monkeypatch.setattr(torch.Tensor, "__array__", refuse)
    monkeypatch.setattr(torch.Tensor, "numpy", refuse)
    torch.testing.assert_close(stack.logits(params, torch.as_tensor(x, dtype=torch.float64)), want)
    torch.testing.assert_close(stack.logits(params, torch.as_tensor(x).requires_grad_(True)), want)
    masks = torch.tensor([[True, False, True], [True, True, True]])
    torch.testing.assert_close(stack.subset_weights(masks), torch.tensor([[0.5, 0, 0.5], [1 / 3, 1 / 3, 1 / 3]]))
    assert tuple(stack.take(params, torch.tensor([1, 1, 0]))["W1"].shape) == (3, 4, 8)
