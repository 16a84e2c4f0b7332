"""Globally pooled activations of named layers of a torch model, read with forward hooks."""
from __future__ import annotations

import numpy as np


def pooled_activations(model, inputs, layers, batch_size: int = 128) -> dict:
    """The outputs of the named modules, averaged over space (global average pooling), for every input.

    Parameters
    ----------
    model : torch.nn.Module, run in eval mode under ``torch.no_grad``.
    inputs : torch.Tensor (N, C, H, W) float32.
    layers : names from ``dict(model.named_modules())`` (e.g. '_blocks.3').
    batch_size : inputs per forward pass.

    Returns
    -------
    dict name -> (N, channels) float64 NumPy array, in the order of ``layers``, and the key 'logits' ->
    (N, classes) (the model's output).

    Raises
    ------
    ValueError if a layer name does not exist in the model (the message lists a few that do), if ``layers``
    is empty, or if an activation is not finite.
    """
    import torch

    modules = dict(model.named_modules())
    layers = [layers] if isinstance(layers, str) else list(layers)
    if not layers:
        raise ValueError("layers must name at least one module")
    missing = [n for n in layers if n not in modules or n == ""]
    if missing:
        some = [n for n in modules if n][:8]
        raise ValueError(f"layer(s) {missing} do not exist in the model; named modules include {some} ...")
    store: dict[str, list] = {n: [] for n in layers}

    def hook(name):
        def record(_module, _inp, out):
            store[name].append((out.mean((2, 3)) if out.ndim == 4 else out).double().cpu())
        return record

    handles = [modules[n].register_forward_hook(hook(n)) for n in layers]
    logits = []
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            for i in range(0, len(inputs), batch_size):
                logits.append(model(inputs[i:i + batch_size]).double().cpu())
    finally:
        for h in handles:
            h.remove()
        model.train(was_training)
    out = {n: torch.cat(v).reshape(len(inputs), -1).numpy() for n, v in store.items()}
    out["logits"] = torch.cat(logits).numpy()
    for n, a in out.items():
        if not np.isfinite(a).all():
            raise ValueError(f"layer {n!r} produced non-finite activations")
    return out
