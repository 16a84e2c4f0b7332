"""Training the one-layer transformer ensemble on the chain, with the official code's optimiser settings.

AdamW (lr 2e-3, β = (0.9, 0.95), weight decay 1e-3 on the matrices only), a one-cycle cosine schedule with
2 % warm-up, batch 16 (``Markov-LLM/src/config/markov.py``). The paper trains in fp16 autocast on a GPU; here
float32 on the CPU.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from tqdm.auto import tqdm

from .chain import bigram_loss, check_pq, sample_chain, unigram_loss
from .model import EnsembleTransformer, initialize


@dataclass
class TrainResult:
    p: float
    q: float
    seeds: list            # (M,) seed of each model (initialisation and training data)
    inits: list            # (M,) 'standard' | 'guideline'
    curves: np.ndarray     # (M, steps) training loss of each model per step (nats)
    final: np.ndarray      # (M,) held-out loss after training (nats)
    oracle: np.ndarray     # (M,) held-out loss of the true bigram predictor on the same sequences (nats)
    bigram: float          # population bigram loss π₀h(p) + π₁h(q) (nats)
    unigram: float         # population unigram loss h(π₁) (nats)

    def progress(self) -> np.ndarray:
        """(M,) fraction of the unigram-to-bigram gap closed: (unigram − final) / (unigram − bigram),
        with the model's held-out loss measured against the oracle on the same sequences."""
        return (self.unigram - (self.final - self.oracle + self.bigram)) / (self.unigram - self.bigram)

    def reached_bigram(self, threshold: float = 0.9) -> np.ndarray:
        """(M,) bool: the model closed at least ``threshold`` of the unigram-to-bigram gap."""
        return self.progress() >= threshold

    def half_time(self, window: int = 10) -> np.ndarray:
        """(M,) first step at which the training loss, averaged over ``window`` steps, falls below the midpoint
        (bigram + unigram)/2; ``steps`` when it never does. Long times mean a plateau near the unigram loss."""
        kernel = np.ones(window) / window
        mid = 0.5 * (self.bigram + self.unigram)
        out = np.full(len(self.curves), self.curves.shape[1])
        for m, c in enumerate(self.curves):
            below = np.flatnonzero(np.convolve(c, kernel, mode="valid") < mid)
            if below.size:
                out[m] = below[0] + window - 1
        return out

    def fraction(self, init: str, threshold: float = 0.9) -> float:
        """Fraction of the models with initialisation ``init`` that reached the bigram loss."""
        sel = np.array(self.inits) == init
        return float(np.mean(self.reached_bigram(threshold)[sel]))


def oracle_prob_one(x: torch.Tensor, p: float, q: float) -> torch.Tensor:
    """The bigram (true) predictor P(x_{t+1} = 1 | x_t): p after a 0, 1 − q after a 1. x (..., T) → (..., T)."""
    return torch.where(x == 1, 1.0 - q, p)


def train_ensemble(p: float, q: float, seeds, inits, *, steps: int = 400, batch: int = 16, length: int = 256,
                   d_model: int = 8, lr: float = 2e-3, weight_decay: float = 1e-3, warmup: float = 0.02,
                   n_eval: int = 128, progress: bool = True, device: str | None = None) -> TrainResult:
    """Train M = len(seeds) independent transformers at once, model m from ``seeds[m]`` with ``inits[m]``.

    Model m's initial weights and its training batches come from its seed alone, so a standard and a guideline
    model with the same seed see the same data. After training every model is evaluated on the same
    ``n_eval`` fresh sequences, next to the true bigram predictor.

    Parameters
    ----------
    p, q : switching probabilities in (0, 1).
    seeds : (M,) ints.   inits : (M,) 'standard' | 'guideline'.
    steps : optimiser steps >= 1.   batch : sequences per step >= 1.   length : T >= 2.
    d_model : width d.   lr, weight_decay, warmup : AdamW / one-cycle settings (fraction of steps warming up).
    n_eval : held-out sequences >= 1.   progress : show a tqdm bar.
    device : torch device; default 'cuda' when torch sees a GPU, else 'cpu'.

    Returns
    -------
    TrainResult.

    Raises
    ------
    ValueError on p, q outside (0, 1), length < 2, mismatched seeds/inits or a bad size.
    """
    p, q = check_pq(p, q)
    seeds, inits = [int(s) for s in seeds], list(inits)
    if len(seeds) != len(inits) or not seeds:
        raise ValueError("seeds and inits must be non-empty lists of the same length")
    if isinstance(length, bool) or not isinstance(length, int) or length < 2:
        raise ValueError(f"length must be an integer >= 2, got {length!r}")
    if steps < 1 or batch < 1 or n_eval < 1:
        raise ValueError("steps, batch and n_eval must be >= 1")
    M = len(seeds)
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    model = initialize(EnsembleTransformer(M, d_model, length), seeds, inits).to(device)
    data = {s: sample_chain(p, q, steps * batch, length, torch.Generator().manual_seed(10_000 + s))
            .reshape(steps, batch, length) for s in sorted(set(seeds))}
    matrices = [model.c_attn, model.attn_proj, model.c_fc, model.mlp_proj]
    others = [model.wte, model.wpe, model.ln1, model.ln2, model.ln_f, model.head_bias]
    opt = torch.optim.AdamW([{"params": matrices, "weight_decay": weight_decay},
                             {"params": others, "weight_decay": 0.0}], lr=lr, betas=(0.9, 0.95))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=warmup,
                                                anneal_strategy="cos", cycle_momentum=False, div_factor=1e2,
                                                final_div_factor=0.05)
    curves = np.empty((M, steps))
    for it in tqdm(range(steps), desc=f"train p={p}, q={q}", disable=None if progress else True):
        x = torch.stack([data[s][it] for s in seeds]).to(device)     # (M, B, T)
        losses = model.loss_per_model(x)
        opt.zero_grad(set_to_none=True)
        losses.sum().backward()
        opt.step()
        sched.step()
        curves[:, it] = losses.detach().cpu().numpy()
    x_eval = sample_chain(p, q, n_eval, length, torch.Generator().manual_seed(999_983))
    with torch.no_grad():
        final = model.loss_per_model(x_eval.expand(M, n_eval, length).to(device)).cpu().numpy().astype(np.float64)
    prob = oracle_prob_one(x_eval[:, :-1], p, q)
    y = x_eval[:, 1:]
    oracle = float(-torch.mean(torch.where(y == 1, torch.log(prob), torch.log1p(-prob))))
    return TrainResult(p, q, seeds, inits, curves, final, np.full(M, oracle), bigram_loss(p, q),
                       unigram_loss(p, q))
