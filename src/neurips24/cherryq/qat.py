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

from .quantizer import check_bits, check_group_size, check_weight, fake_quantize


class QuantLinear(torch.nn.Module):
    """A linear layer whose forward pass uses its quantized weight, with the STE for the backward pass.

    Parameters
    ----------
    linear : the ``nn.Linear`` to wrap; its ``weight`` and ``bias`` Parameters are shared, not copied.
    bits : 2..8.   group_size : divides ``in_features``.
    cherry_idx : (out, k) int64 columns kept in full precision (CherryQ), or None (plain QAT).
    """

    def __init__(self, linear, bits: int, group_size: int, cherry_idx=None):
        super().__init__()
        out, n = check_weight(linear.weight)
        self.bits = check_bits(bits)
        self.group_size = check_group_size(group_size, n)
        self.weight = linear.weight
        self.bias = linear.bias
        idx = torch.zeros((out, 0), dtype=torch.long) if cherry_idx is None else torch.as_tensor(
            np.asarray(cherry_idx), dtype=torch.long)
        self.register_buffer("cherry_idx", idx.to(linear.weight.device))
        self.in_features, self.out_features = n, out

    def quantized_weight(self):
        """The forward-pass weight: w + sg(w_q − w) (value w_q, gradient of w)."""
        w = self.weight
        wq = fake_quantize(w, self.bits, self.group_size, self.cherry_idx if self.cherry_idx.shape[1] else None)
        return w + (wq - w).detach()

    def forward(self, x):
        return torch.nn.functional.linear(x, self.quantized_weight(), self.bias)


def _parent(model, name: str):
    *path, leaf = name.split(".")
    mod = model
    for p in path:
        mod = getattr(mod, p)
    return mod, leaf


def swap_in_quant_linears(model, names, bits: int, group_size: int, cherries: dict | None = None) -> None:
    """Replace the linear layers ``names`` of ``model`` by :class:`QuantLinear` (in place; Parameters are shared).

    ``cherries`` maps a name to its (out, k) indices (CherryQ); None means plain QAT.
    """
    for name in names:
        parent, leaf = _parent(model, name)
        lin = getattr(parent, leaf)
        setattr(parent, leaf, QuantLinear(lin, bits, group_size, None if cherries is None else cherries[name]))


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
def quantized_weights(modules: dict, bits: int, group_size: int, cherries: dict | None = None):
    """Temporarily replace each module's weight by its quantized version (PTQ: RTN or cherry PTQ).

    Parameters
    ----------
    modules : name -> ``nn.Linear``.   bits, group_size : the grid.
    cherries : name -> (out, k) indices kept in full precision, or None for RTN.

    The original weights are restored on exit.
    """
    saved = {}
    try:
        with torch.no_grad():
            for name, mod in modules.items():
                saved[name] = mod.weight.detach().clone()
                idx = None if cherries is None else cherries[name]
                mod.weight.copy_(fake_quantize(mod.weight, bits, group_size, idx))
        yield
    finally:
        with torch.no_grad():
            for name, w in saved.items():
                modules[name].weight.copy_(w)
