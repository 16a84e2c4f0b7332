"""Parameter impact: the Fisher diagonal from per-sample gradients, and the heterogeneity score (paper Sec. 3–4).

Around converged weights the gradient is about zero, so a small change Δw_i changes the loss by
ΔL ≈ ½ H_ii Δw_i², and the Hessian diagonal is approximated by the Fisher diagonal, H_ii ≈ E[g_i²], with g the
gradient of **one** sample's loss. The square of a batch gradient is not the Fisher: it is (E g)², which is
near zero at a minimum. The official ``estimate_impact.py`` runs batch size 1, multiplies each sample's mean
loss by the sequence length, and keeps H as the running mean of grad².
"""
from __future__ import annotations

import math

import numpy as np
from tqdm.auto import tqdm


def per_sample_fisher(model, inputs, targets, names=None, chunk: int = 64) -> dict:
    """Fisher diagonal E[g_i²] over samples, from per-sample gradients (``torch.func.vmap`` over ``grad``).

    The loss of one sample is the cross-entropy of its target(s), summed over its tokens (the official mean
    loss times ``seq_len``).

    Parameters
    ----------
    model : a torch module mapping ``inputs[j:j+1]`` to logits (1, V) or (1, T, V).
    inputs : (N, ...) tensor of N samples.   targets : (N,) or (N, T) int64 targets.
    names : the parameter names to return (default: every parameter of dimension 2).
    chunk : samples per vmap call (bounds memory).

    Returns
    -------
    dict name -> tensor of the parameter's shape, float32: the mean over samples of the squared gradient.

    Raises
    ------
    ValueError if there are no samples, or inputs and targets differ in length.
    """
    import torch
    from torch.func import functional_call, grad, vmap

    if len(inputs) == 0 or len(inputs) != len(targets):
        raise ValueError(f"inputs and targets must hold the same number (>= 1) of samples, got "
                         f"{len(inputs)} and {len(targets)}")
    params = {k: v.detach() for k, v in model.named_parameters()}
    names = [k for k, v in params.items() if v.ndim == 2] if names is None else list(names)
    wanted = {k: params[k] for k in names}
    rest = {k: v for k, v in params.items() if k not in wanted}

    def loss_one(p, x, y):
        logits = functional_call(model, {**rest, **p}, (x.unsqueeze(0),))
        return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1),
                                                 reduction="sum")

    per_sample = vmap(grad(loss_one), in_dims=(None, 0, 0))
    H = {k: torch.zeros_like(v) for k, v in wanted.items()}
    for start in range(0, len(inputs), chunk):
        g = per_sample(wanted, inputs[start:start + chunk], targets[start:start + chunk])
        for k in H:
            H[k] += (g[k] ** 2).sum(dim=0)
    return {k: v / len(inputs) for k, v in H.items()}


def linear_fisher(model, inputs, targets, modules: dict) -> dict:
    """Fisher diagonal E[g_ij²] of linear layers that see **one** input row per sample, in one backward pass.

    For such a layer (an MLP on single samples) the gradient of sample n's loss is the outer product
    g_ij = δ_i x_j of the gradient δ at the layer's output and its input x, so
    F = (δ∘δ)ᵀ (x∘x) / N: one matrix product instead of N per-sample gradients. The δ of every sample comes
    from one backward pass of the summed loss (samples do not interact). Same result as
    :func:`per_sample_fisher` (a test checks it), much faster.

    Parameters
    ----------
    model : module mapping inputs (N, ...) to logits (N, V).   inputs, targets : N ≥ 1 samples, (N,) int64 targets.
    modules : name -> ``nn.Linear`` inside ``model`` whose input is (N, in) (one row per sample).

    Returns
    -------
    dict name -> (out, in) float32 tensor.

    Raises
    ------
    ValueError if there are no samples, inputs and targets differ in length, or a layer sees more than one
    row per sample.
    """
    import torch

    if len(inputs) == 0 or len(inputs) != len(targets):
        raise ValueError(f"inputs and targets must hold the same number (>= 1) of samples, got "
                         f"{len(inputs)} and {len(targets)}")
    xs, outs = {}, {}

    def keep(name):
        def hook(_mod, args, output):
            if args[0].shape[0] != len(inputs) or args[0].ndim != 2:
                raise ValueError(f"{name} must see one input row per sample, got input shape {tuple(args[0].shape)}")
            xs[name] = args[0].detach()
            output.retain_grad()
            outs[name] = output
        return hook

    handles = [mod.register_forward_hook(keep(name)) for name, mod in modules.items()]
    try:
        loss = torch.nn.functional.cross_entropy(model(inputs), targets, reduction="sum")
    finally:
        for h in handles:
            h.remove()
    loss.backward(inputs=[outs[n] for n in modules])
    return {n: (outs[n].grad.square().T @ xs[n].square()) / len(inputs) for n in modules}


def fisher_lm(model, sequences, modules: dict, progress: bool = False) -> dict:
    """Fisher diagonal of the weights of ``modules`` for a causal language model, batch size 1 (official).

    For each calibration sequence (one sample), the loss is the model's mean next-token loss times the
    sequence length; H is the running mean of grad² over the sequences: H ← H + (g² − H)/(t + 1).

    Parameters
    ----------
    model : a transformers causal LM (``model(input_ids, labels=...)`` returns ``.loss``).
    sequences : (N, T) int64 token ids, N ≥ 1 calibration sequences.
    modules : name -> ``nn.Linear`` whose ``weight`` gets a Fisher diagonal (others get no gradient).

    Returns
    -------
    dict name -> (out, in) float32 tensor H.
    """
    import torch

    if len(sequences) == 0:
        raise ValueError("sequences must hold at least one calibration sequence")
    was = {n: p.requires_grad for n, p in model.named_parameters()}
    for p in model.parameters():
        p.requires_grad_(False)
    for mod in modules.values():
        mod.weight.requires_grad_(True)
    H = {name: torch.zeros_like(mod.weight) for name, mod in modules.items()}
    try:
        for t, seq in enumerate(tqdm(sequences, disable=None if progress else True, desc="Fisher", leave=False)):
            ids = seq.unsqueeze(0)
            loss = model(input_ids=ids, labels=ids).loss * ids.shape[1]
            grads = torch.autograd.grad(loss, [mod.weight for mod in modules.values()])
            for name, g in zip(modules, grads, strict=True):
                H[name] += (g * g - H[name]) / (t + 1)
    finally:
        for n, p in model.named_parameters():
            p.requires_grad_(was[n])
    return H


def heterogeneity_score(values, top: float = 0.01) -> float:
    """Heterogeneity score of one matrix: mean of the top 1 % of ``values`` over the max of the other 99 %.

    HS = mean(v over the top ⌈top·N⌉ entries) / max(v over the rest) (official README figure, for the impact
    H_ii or the magnitude |w|). A homogeneous matrix gives HS ≈ 1; a few dominant entries give HS ≫ 1.

    Parameters
    ----------
    values : array or tensor of any shape, N ≥ 2 non-negative entries.   top : share of the top group, in (0, 1).

    Returns
    -------
    float ≥ 1 (``inf`` when the bottom group is all zero).

    Raises
    ------
    ValueError for fewer than 2 entries, a negative entry, or ``top`` outside (0, 1).
    """
    import torch

    v = (values.detach().cpu() if hasattr(values, "detach") else torch.as_tensor(np.asarray(values, dtype=float)))
    v = v.ravel()
    if not v.is_floating_point():
        v = v.double()
    if v.numel() < 2:
        raise ValueError(f"values must hold at least 2 entries, got {v.numel()}")
    if not 0 < top < 1:
        raise ValueError(f"top must be in (0, 1), got {top}")
    if bool(torch.any(v < 0)) or not bool(torch.all(torch.isfinite(v))):
        raise ValueError("values must be finite and non-negative (an impact H_ii or a magnitude |w|)")
    n = v.numel()
    k = min(max(1, math.ceil(top * n)), n - 1)
    bottom_max = torch.kthvalue(v, n - k).values             # the largest of the bottom n - k entries
    above = v[v > bottom_max].double()                        # the top group, minus ties with bottom_max
    top_mean = (float(above.sum()) + (k - above.numel()) * float(bottom_max)) / k
    return float("inf") if float(bottom_max) == 0 else top_mean / float(bottom_max)
