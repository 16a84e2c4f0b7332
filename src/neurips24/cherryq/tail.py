"""QAT and CherryQ on SmolLM2 itself, on the last decoder blocks (book's own miniature of the paper's Sec. 6).

The paper fine-tunes all of LLaMA-2 with every decoder matrix quantized (one epoch of 50 k C4 samples, 8 GPUs).
On a CPU in seconds we quantize and train only the **last** ``n_blocks`` decoder blocks: the hidden states that
enter them are computed once with the model's own weights (:func:`capture_block_input`), and every training
step runs only those blocks, the final norm and the output head. The head and the norm stay frozen (the head
is tied to the embedding, which feeds the frozen blocks below); everything in the trained blocks is updated
by one AdamW optimizer, the cherries with their ordinary gradient and the other weights through the STE
(:class:`~neurips24.cherryq.qat.QuantLinear`), as in the paper's unified mixed-precision training.
"""
from __future__ import annotations

import copy
import math
from contextlib import contextmanager

import numpy as np
import torch

from .qat import bake_quant_linears, swap_in_quant_linears


@contextmanager
def capture_block_input(model, start: int):
    """Record the hidden states entering decoder block ``start`` during every forward pass in the context.

    Parameters
    ----------
    model : a transformers ``LlamaForCausalLM``.   start : block index, 0 ≤ start < number of blocks.

    Yields
    ------
    list, appended with one detached (B, T, d) float tensor per forward pass.

    Raises
    ------
    ValueError if ``start`` is not a block index.
    """
    layers = model.model.layers
    if isinstance(start, bool) or not isinstance(start, int) or not 0 <= start < len(layers):
        raise ValueError(f"start must be a block index in [0, {len(layers)}), got {start!r}")
    seen: list = []
    handle = layers[start].register_forward_pre_hook(lambda _m, args: seen.append(args[0].detach().clone()))
    try:
        yield seen
    finally:
        handle.remove()


def tail_blocks(model, n_blocks: int) -> torch.nn.ModuleList:
    """A trainable copy of the last ``n_blocks`` decoder blocks (the model itself is not changed)."""
    layers = model.model.layers
    if isinstance(n_blocks, bool) or not isinstance(n_blocks, int) or not 1 <= n_blocks <= len(layers):
        raise ValueError(f"n_blocks must be an integer in [1, {len(layers)}], got {n_blocks!r}")
    blocks = copy.deepcopy(layers[len(layers) - n_blocks:])
    for p in blocks.parameters():
        p.requires_grad_(True)
    return blocks


def tail_linear_names(blocks) -> list:
    """Names (inside ``blocks``) of the blocks' linear layers: '0.self_attn.q_proj', ..., '1.mlp.down_proj'."""
    return [n for n, m in blocks.named_modules() if isinstance(m, torch.nn.Linear)]


def tail_hidden(model, blocks, h):
    """The final normed hidden states (B, T, d) of the blocks applied to the block inputs h (B, T, d)."""
    pos = torch.arange(h.shape[1], device=h.device)[None]
    emb = model.model.rotary_emb(h, position_ids=pos)
    for block in blocks:
        h = block(h, attention_mask=None, position_embeddings=emb, position_ids=pos)   # causal (SDPA)
    return model.model.norm(h)


@torch.no_grad()
def tail_nll(model, blocks, h, ids, batch: int = 8) -> np.ndarray:
    """Mean next-token loss (nats) of each window: (N,) float64, with ``blocks`` on top of the inputs h (N, T, d).

    exp(mean) is the perplexity over all N(T−1) predicted tokens (windows of equal length).
    """
    if len(h) != len(ids) or h.shape[:2] != ids.shape:
        raise ValueError(f"h (N, T, d) and ids (N, T) must match, got {tuple(h.shape)} and {tuple(ids.shape)}")
    out = []
    for i in range(0, len(h), batch):
        logits = model.lm_head(tail_hidden(model, blocks, h[i:i + batch]))[:, :-1].float()
        nll = torch.nn.functional.cross_entropy(logits.transpose(1, 2), ids[i:i + batch, 1:], reduction="none")
        out.append(nll.mean(dim=1).double())
    return torch.cat(out).cpu().numpy()


def train_tail(model, blocks, h, ids, steps: int, lr: float, batch: int, positions: int, seed: int,
               warmup: float = 0.05, stop: int | None = None) -> list:
    """Fine-tune ``blocks`` (QuantLinear layers already swapped in for QAT / CherryQ) on cached inputs.

    AdamW (β = (0.9, 0.95), weight decay 0, as the paper), cosine schedule with linear warm-up; each step takes
    ``batch`` random windows of h (N, T, d) and the loss of ``positions`` random next-token predictions in each
    (the output head over 49 152 words is the costly part; the blocks see the full windows).
    ``stop`` (1 ≤ stop ≤ steps, default steps) ends the run after its first ``stop`` steps of the same
    ``steps``-step schedule: the prefix of the full run, step for step (the chapter replays shipped runs so).

    Returns
    -------
    list of the training loss (nats per token) at every step run.

    Raises
    ------
    ValueError for steps, batch or positions < 1, lr ≤ 0, stop outside [1, steps], or h and ids of different
    lengths.
    """
    if steps < 1 or batch < 1 or positions < 1 or not lr > 0:
        raise ValueError(f"steps, batch, positions must be >= 1 and lr > 0, got {steps}, {batch}, {positions}, {lr}")
    stop = steps if stop is None else stop
    if isinstance(stop, bool) or not isinstance(stop, int) or not 1 <= stop <= steps:
        raise ValueError(f"stop must be an integer in [1, steps={steps}], got {stop!r}")
    if len(h) != len(ids):
        raise ValueError(f"h and ids must hold the same windows, got {len(h)} and {len(ids)}")
    gen = torch.Generator().manual_seed(seed)
    params = [p for p in blocks.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, betas=(0.9, 0.95), weight_decay=0.0)
    n_warm = max(1, int(warmup * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda t: (t + 1) / n_warm if t < n_warm else 0.5 * (
        1 + math.cos(math.pi * (t - n_warm) / max(1, steps - n_warm))))
    T = ids.shape[1]
    losses = []
    for _ in range(stop):
        rows = torch.randint(0, len(h), (batch,), generator=gen).to(h.device)
        cols = torch.randint(0, T - 1, (batch, positions), generator=gen).to(h.device)
        at = torch.arange(batch, device=h.device)[:, None]
        hid = tail_hidden(model, blocks, h[rows])
        picked = hid[at, cols]                                              # (batch, positions, d)
        loss = torch.nn.functional.cross_entropy(model.lm_head(picked).flatten(0, 1).float(),
                                                 ids[rows][at, cols + 1].flatten())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
    return losses


def run_tail_method(model, h_train, ids_train, h_eval, ids_eval, n_blocks: int, bits: int, group_size: int,
                    cherries: dict | None, cfg: dict, seed: int, grid: str = "official") -> dict:
    """One QAT (``cherries`` None) or CherryQ run on the last ``n_blocks`` blocks; the model is left unchanged.

    Parameters
    ----------
    cherries : name (inside the tail, as :func:`tail_linear_names`) -> (out, k) indices, or None for QAT.
    cfg : 'steps', 'lr', 'batch', 'positions' of :func:`train_tail` (steps = 0: PTQ only, no training), and
        optionally 'stop' (run only the first ``stop`` steps of the schedule, see :func:`train_tail`).

    Returns
    -------
    dict: 'nll' (N_eval,) per-window loss after training (weights baked on the grid), 'losses'.
    """
    model.lm_head.weight.requires_grad_(False)
    for p in model.model.norm.parameters():
        p.requires_grad_(False)
    blocks = tail_blocks(model, n_blocks)
    swap_in_quant_linears(blocks, tail_linear_names(blocks), bits, group_size, cherries, grid)
    losses = []
    if cfg["steps"]:
        losses = train_tail(model, blocks, h_train, ids_train, cfg["steps"], cfg["lr"], cfg["batch"],
                            cfg["positions"], seed, stop=cfg.get("stop"))
    bake_quant_linears(blocks)
    return {"nll": tail_nll(model, blocks, h_eval, ids_eval), "losses": losses}
