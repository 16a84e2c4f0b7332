"""Post-training quantization (RTN, cherry PTQ) and quantization-aware training with the STE (QAT, CherryQ).

- RTN: every weight of the decoder's linear layers rounded on the grid of :func:`fake_quantize`, no cherries.
- Cherry PTQ: the same, with the cherries of every row kept in full precision and left out of the scales.
- QAT: training through the quantizer with the straight-through estimator (STE),
  w_q ← sg(w_q) − sg(w) + w: the forward pass sees w_q, the gradient reaches w unchanged.
- CherryQ (*unified mixed-precision training*): QAT in which the cherries are not quantized; since w_q = w there,
  they are trained with their ordinary gradient, the other weights with the STE gradient, by one optimizer.

The embedding and the output head are never quantized (as in the paper).
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import torch

from .quantizer import (
    check_bits,
    check_cherries,
    check_grid,
    check_group_size,
    check_weight,
    fake_quantize,
    fake_quantize_unchecked,
    keep_columns,
)


class QuantLinear(torch.nn.Module):
    """A linear layer whose forward pass uses its quantized weight, with the STE for the backward pass.

    Parameters
    ----------
    linear : the ``nn.Linear`` to wrap; its ``weight`` and ``bias`` Parameters are shared, not copied.
    bits : 2..8.   group_size : divides ``in_features``.
    cherry_idx : (out, k) int64 columns kept in full precision (CherryQ), or None (plain QAT); an array, a list
        or a tensor, validated here once.
    grid : 'official' (default, the paper's), 'zero-level' or 'zero-point' (see :mod:`.quantizer`).

    Raises
    ------
    As :func:`~neurips24.cherryq.quantizer.fake_quantize` (bad weights, bits, group size, cherries or grid).
    """

    def __init__(self, linear, bits: int, group_size: int, cherry_idx=None, grid: str = "official"):
        super().__init__()
        out, n = check_weight(linear.weight)
        self.bits = check_bits(bits)
        self.group_size = check_group_size(group_size, n)
        self.grid = check_grid(grid)
        self.weight = linear.weight
        self.bias = linear.bias
        idx = np.zeros((out, 0), dtype=np.int64) if cherry_idx is None else check_cherries(cherry_idx, (out, n))
        self.register_buffer("cherry_idx", torch.as_tensor(idx, dtype=torch.long).to(linear.weight.device))
        self.register_buffer("keep", keep_columns(self.cherry_idx, (out, n)), persistent=False)
        self.in_features, self.out_features = n, out

    def quantized_weight(self):
        """The forward-pass weight: w + sg(w_q − w) (value w_q, gradient of w)."""
        w = self.weight
        wq = fake_quantize_unchecked(w, self.bits, self.group_size, self.keep, self.grid)
        return w + (wq - w).detach()

    def forward(self, x):
        return torch.nn.functional.linear(x, self.quantized_weight(), self.bias)


def _parent(model, name: str):
    *path, leaf = name.split(".")
    mod = model
    for p in path:
        mod = getattr(mod, p)
    return mod, leaf


def swap_in_quant_linears(model, names, bits: int, group_size: int, cherries: dict | None = None,
                          grid: str = "official") -> None:
    """Replace the linear layers ``names`` of ``model`` by :class:`QuantLinear` (in place; Parameters are shared).

    ``cherries`` maps a name to its (out, k) indices (CherryQ); None means plain QAT.
    """
    for name in names:
        parent, leaf = _parent(model, name)
        lin = getattr(parent, leaf)
        setattr(parent, leaf, QuantLinear(lin, bits, group_size, None if cherries is None else cherries[name], grid))


def bake_quant_linears(model) -> None:
    """Write every :class:`QuantLinear`'s quantized weight into a plain ``nn.Linear`` (after training)."""
    for name, mod in list(model.named_modules()):
        if isinstance(mod, QuantLinear):
            lin = torch.nn.Linear(mod.in_features, mod.out_features, bias=mod.bias is not None,
                                  device=mod.weight.device, dtype=mod.weight.dtype)
            with torch.no_grad():
                lin.weight.copy_(mod.quantized_weight())
                if mod.bias is not None:
                    lin.bias.copy_(mod.bias)
            parent, leaf = _parent(model, name)
            setattr(parent, leaf, lin)


@contextmanager
def quantized_weights(modules: dict, bits: int, group_size: int, cherries: dict | None = None,
                      grid: str = "official"):
    """Temporarily replace each module's weight by its quantized version (PTQ: RTN or cherry PTQ).

    Parameters
    ----------
    modules : name -> ``nn.Linear``.   bits, group_size : the grid.
    cherries : name -> (out, k) indices kept in full precision, or None for RTN.
    grid : 'official' (the paper's), 'zero-level' or 'zero-point' (see :mod:`.quantizer`).

    The original weights are restored on exit (the Parameters keep their identity: their storage is swapped
    for the quantized copy and back, so nothing is copied twice).
    """
    saved = {}
    try:
        with torch.no_grad():
            for name, mod in modules.items():
                idx = None if cherries is None else cherries[name]
                quantized = fake_quantize(mod.weight, bits, group_size, idx, grid)
                saved[name] = mod.weight.data
                mod.weight.data = quantized
        yield
    finally:
        for name, w in saved.items():
            modules[name].weight.data = w
