"""The trainable miniature of Experiment B: a character-level MLP language model on ``pydoc_data.topics``.

The model reads the previous ``context`` characters, embeds each in ``d_emb`` dimensions, and maps the
concatenation (context·d_emb inputs) through two hidden layers of ``hidden`` ReLU units to the next-character
logits. Its two hidden linear layers (``fc1``, ``fc2``; rows of 256 inputs in the chapter's configuration) are
the quantized ones; the embedding and the output head stay in full precision, as in the paper.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from .corpus import split_text

QUANTIZED = ("fc1", "fc2")


@dataclass
class CharData:
    """Encoded train / held-out text. vocab : list of characters (index 0 = rare/unknown).
    train, test : (N,) int64 tensors of character ids."""

    vocab: list
    train: torch.Tensor
    test: torch.Tensor

    def windows(self, split: str, context: int, n: int | None = None, generator=None):
        """(X, Y): X (n, context) int64 windows, Y (n,) the next character; random positions (all if n is None)."""
        ids = self.train if split == "train" else self.test
        if n is None:
            start = torch.arange(len(ids) - context)
        else:
            start = torch.randint(0, len(ids) - context, (int(n),), generator=generator)
        X = ids[start[:, None] + torch.arange(context)]
        return X, ids[start + context]


def load_chars(min_count: int = 20) -> CharData:
    """The pydoc text as character ids; characters seen fewer than ``min_count`` times share id 0."""
    train, test = split_text()
    counts = Counter(train)
    vocab = ["\0"] + sorted(c for c, k in counts.items() if k >= min_count)
    index = {c: i for i, c in enumerate(vocab)}

    def enc(s):
        return torch.tensor([index.get(c, 0) for c in s], dtype=torch.long)

    return CharData(vocab=vocab, train=enc(train), test=enc(test))


class CharMLP(nn.Module):
    """Next-character MLP: embedding (V, d_emb) → fc1 (context·d_emb → hidden) → ReLU → fc2 → ReLU → head (→ V)."""

    def __init__(self, vocab_size: int, context: int = 8, d_emb: int = 32, hidden: int = 256):
        super().__init__()
        self.context = context
        self.emb = nn.Embedding(vocab_size, d_emb)
        self.fc1 = nn.Linear(context * d_emb, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.head = nn.Linear(hidden, vocab_size)

    def forward(self, x):
        h = self.emb(x).flatten(-2)
        h = torch.relu(self.fc1(h))
        h = torch.relu(self.fc2(h))
        return self.head(h)


def train_lm(model, data: CharData, steps: int, lr: float, batch: int = 128, seed: int = 0,
             warmup: float = 0.05, weight_decay: float = 0.0) -> list[float]:
    """Train with AdamW (β = (0.9, 0.95), as the paper) and a cosine schedule with linear warm-up.

    Every parameter is updated by the one optimizer: with :class:`~neurips24.cherryq.qat.QuantLinear` layers
    in place this is QAT (STE) or CherryQ (cherries with their ordinary gradient).

    Returns
    -------
    list of the training loss (nats per character) every step.
    """
    if steps < 1 or lr <= 0 or batch < 1:
        raise ValueError(f"steps and batch must be >= 1 and lr > 0, got {steps}, {batch}, {lr}")
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, betas=(0.9, 0.95), weight_decay=weight_decay)
    n_warm = max(1, int(warmup * steps))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda t: (t + 1) / n_warm if t < n_warm else 0.5 * (1 + math.cos(math.pi * (t - n_warm) / max(
            1, steps - n_warm))))
    model.train()
    losses = []
    for _ in range(steps):
        X, Y = data.windows("train", model.context, batch, gen)
        loss = nn.functional.cross_entropy(model(X), Y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sched.step()
        losses.append(float(loss.detach()))
    model.eval()
    return losses


@torch.no_grad()
def char_perplexity(model, X, Y, batch: int = 4096) -> float:
    """exp(mean cross-entropy) of the next character over the windows (X (N, context), Y (N,))."""
    model.eval()
    total = 0.0
    for i in range(0, len(X), batch):
        total += float(nn.functional.cross_entropy(model(X[i:i + batch]), Y[i:i + batch], reduction="sum"))
    return float(np.exp(total / len(X)))


@torch.no_grad()
def lm_nll(model, sequences, batch: int = 8) -> np.ndarray:
    """Mean next-token loss (nats) of each of the (N, T) windows of a causal LM: (N,) float64.

    exp(mean) is :func:`lm_perplexity` (windows of equal length); the per-window values give paired intervals.
    """
    out = []
    for i in range(0, len(sequences), batch):
        ids = sequences[i:i + batch]
        logits = model(input_ids=ids).logits[:, :-1].float()
        nll = nn.functional.cross_entropy(logits.transpose(1, 2), ids[:, 1:], reduction="none")
        out.append(nll.mean(dim=1).double())
    return torch.cat(out).cpu().numpy()


@torch.no_grad()
def lm_perplexity(model, sequences, batch: int = 8) -> float:
    """Token perplexity of a causal LM on (N, T) windows: exp of the mean next-token loss over all N(T−1) tokens."""
    total, count = 0.0, 0
    for i in range(0, len(sequences), batch):
        ids = sequences[i:i + batch]
        logits = model(input_ids=ids).logits[:, :-1].float()
        total += float(nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1),
                                                   reduction="sum"))
        count += ids[:, 1:].numel()
    return float(np.exp(total / count))
