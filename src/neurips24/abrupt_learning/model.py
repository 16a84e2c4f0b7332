"""A BERT-style encoder for matrix completion (the official code's ``src/model.py``: a Hugging Face
``BertModel`` without pooler, token-type or dropout, plus a ``Linear(d, 1)`` read-out), written in plain torch.

Post-LayerNorm blocks as in BERT (Devlin et al. 2019): h <- LN(h + MHA(h)), h <- LN(h + FFN(h)), GELU FFN of
width ``ffn`` (= 4·d in the official configuration), learned absolute position embeddings, LayerNorm on the
embeddings, weights initialised N(0, 0.02²) with zero biases (BERT's ``initializer_range``); the read-out keeps
torch's default initialisation, as in the official code. Attention maps and hidden states can be returned for
the probes (paper §4).
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


class EncoderLayer(nn.Module):
    """One post-LN BERT layer: multi-head self-attention then a GELU feed-forward block."""

    def __init__(self, d: int, heads: int, ffn: int):
        super().__init__()
        if d % heads:
            raise ValueError(f"d={d} must be divisible by heads={heads}")
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.ln1 = nn.LayerNorm(d, eps=1e-12)
        self.ff1 = nn.Linear(d, ffn)
        self.ff2 = nn.Linear(ffn, d)
        self.ln2 = nn.LayerNorm(d, eps=1e-12)

    def forward(self, h: torch.Tensor, return_attention: bool = False):
        B, T, d = h.shape
        q, k, v = self.qkv(h).view(B, T, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // self.heads), dim=-1)   # (B, H, T, T)
        a = (att @ v).transpose(1, 2).reshape(B, T, d)
        h = self.ln1(h + self.out(a))
        h = self.ln2(h + self.ff2(F.gelu(self.ff1(h))))
        return (h, att) if return_attention else (h, None)


class MatrixBERT(nn.Module):
    """BERT encoder + linear read-out: tokens (B, T) int64 -> predicted entries (B, T) float32.

    Parameters
    ----------
    vocab_size : number of tokens (official: 2002, MASK + the value grid).
    T : sequence length m·n (official: 49).
    d : hidden size (official: 768).
    layers : number of layers (official: 4).
    heads : attention heads (official: 8).
    ffn : feed-forward width (official: 3072 = 4·d); None means 4·d.
    """

    def __init__(self, vocab_size: int, T: int, d: int = 768, layers: int = 4, heads: int = 8,
                 ffn: int | None = None):
        super().__init__()
        self.config = dict(vocab_size=vocab_size, T=T, d=d, layers=layers, heads=heads, ffn=ffn or 4 * d)
        self.tok = nn.Embedding(vocab_size, d)
        self.pos = nn.Embedding(T, d)
        self.ln = nn.LayerNorm(d, eps=1e-12)
        self.blocks = nn.ModuleList(EncoderLayer(d, heads, ffn or 4 * d) for _ in range(layers))
        self.read_out = nn.Linear(d, 1)
        for mod in [self.tok, self.pos, self.ln, *self.blocks]:
            mod.apply(_bert_init)

    def forward(self, tokens: torch.Tensor, return_internals: bool = False):
        """Predictions (B, T); with ``return_internals`` also the hidden states (layers+1 tensors (B, T, d))
        and attention maps (layers tensors (B, H, T, T))."""
        T = tokens.shape[1]
        h = self.ln(self.tok(tokens) + self.pos(torch.arange(T, device=tokens.device)))
        hidden, maps = [h], []
        for blk in self.blocks:
            h, att = blk(h, return_attention=return_internals)
            hidden.append(h)
            maps.append(att)
        y = self.read_out(h).squeeze(-1)
        return (y, hidden, maps) if return_internals else y


def _bert_init(mod: nn.Module) -> None:
    if isinstance(mod, (nn.Linear, nn.Embedding)):
        nn.init.normal_(mod.weight, std=0.02)
        if isinstance(mod, nn.Linear) and mod.bias is not None:
            nn.init.zeros_(mod.bias)
    elif isinstance(mod, nn.LayerNorm):
        nn.init.ones_(mod.weight)
        nn.init.zeros_(mod.bias)
