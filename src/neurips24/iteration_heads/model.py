"""The paper's decoder-only transformer, written for an *ensemble*: M independent models in one set of tensors
(Cabannes et al. 2024, §3; github.com/facebookresearch/pal, ``src/cot/models/transformer.py``).

As in the official code (``TransformerConfig`` defaults and ``train.py``):

- token embedding (64 × d, N(0, 1), PyTorch's ``nn.Embedding`` default) plus a **learned** absolute position
  embedding (T × d, N(0, 1)), then embedding dropout (0.1 in the paper);
- n_layer blocks, each one causal self-attention with n_head heads (no bias, scores scaled by 1/√(d/n_head)) and
  a GELU MLP of width 4d (no bias); linear weights drawn as PyTorch's ``nn.Linear`` default, U(±1/√fan_in);
- LayerNorm **without bias** (gain only, ε = 1e-5), and the code's ``pre_norm=True`` block, which is *not* the
  usual pre-LN: it **overwrites the residual stream** with its normalised version before attention,

      x ← LN₁(x);   x ← x + Attn(x);   x ← x + MLP(LN₂(x))                                   (code's block)

  where standard pre-LN keeps x and adds Attn(LN₁(x)). A final LayerNorm, then an untied linear read-out to 64
  logits.

Every parameter carries a leading model axis M (and a layer axis for the blocks): training M seeds at once is one
batched program (``torch.bmm``), and the models never interact (the loss is a sum over models).
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ..checks import check_count
from .kernels import causal_attention
from .tasks import VOCAB


def check_tokens(x, n_models: int, max_len: int) -> torch.Tensor:
    """Validate a batch of token sequences for an ensemble of M models: returns it as int64.

    Parameters
    ----------
    x : (M, B, T) integer tensor of token ids in [0, 64), T <= max_len.

    Raises
    ------
    TypeError if x is not an integer torch tensor; ValueError for another shape, M != n_models, T > max_len or
    a token outside [0, 64).
    """
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor of int64 token ids, got {type(x).__name__}")
    if x.dtype.is_floating_point or x.dtype.is_complex or x.dtype == torch.bool:
        raise TypeError(f"x must hold integer token ids, got dtype {x.dtype}")
    if x.ndim != 3 or x.shape[0] != n_models or not 1 <= x.shape[2] <= max_len:
        raise ValueError(f"x must have shape (M={n_models}, B, T) with 1 <= T <= {max_len}, got {tuple(x.shape)}")
    if x.numel() and (int(x.min()) < 0 or int(x.max()) >= VOCAB):
        raise ValueError(f"x must hold token ids in [0, {VOCAB}), got values in [{int(x.min())}, {int(x.max())}]")
    return x.long()


class EnsembleTransformer(nn.Module):
    """M independent copies of the paper's transformer (module docstring), each with its own seed.

    Parameters
    ----------
    n_models : M >= 1.   d : embedding width (paper: 128; grid 32 … 128), divisible by n_head.
    n_layer : blocks (paper: 2; the control: 1).   n_head : heads per block (paper: 1).
    max_len : longest input T (positions learned), >= 2.   dropout : embedding dropout in [0, 1) (paper: 0.1).
    seeds : M integer seeds >= 0 for the initialisation (default 0 … M−1).
    dropout_seeds : M integer seeds >= 0 of each model's own dropout stream (default: ``seeds``): model m's
        dropout masks come from its own generator, so a model trains the same whatever else is in the ensemble.

    Forward: ``x`` (M, B, T) int64 → logits (M, B, T, 64) float32; with ``return_attention=True`` also the
    attention maps (n_layer, M, B, n_head, T, T), rows = queries, softmax over the last axis.

    Raises
    ------
    ValueError naming the argument for a non-positive size, d not divisible by n_head, dropout outside [0, 1) or
    a wrong number of seeds.
    """

    def __init__(self, n_models: int = 1, d: int = 128, n_layer: int = 2, n_head: int = 1, max_len: int = 66,
                 dropout: float = 0.1, seeds=None, dropout_seeds=None):
        super().__init__()
        M = check_count("n_models", n_models, 1)
        d, n_layer = check_count("d", d, 1), check_count("n_layer", n_layer, 1)
        n_head, max_len = check_count("n_head", n_head, 1), check_count("max_len", max_len, 2)
        if d % n_head:
            raise ValueError(f"d must be divisible by n_head = {n_head}, got d = {d}")
        if not isinstance(dropout, (int, float)) or not 0 <= dropout < 1:
            raise ValueError(f"dropout must be in [0, 1), got {dropout!r}")
        seeds = list(range(M)) if seeds is None else [check_count("seeds[i]", s, 0) for s in seeds]
        if len(seeds) != M:
            raise ValueError(f"seeds must hold n_models = {M} seeds, got {len(seeds)}")
        dropout_seeds = seeds if dropout_seeds is None else [check_count("dropout_seeds[i]", s, 0)
                                                             for s in dropout_seeds]
        if len(dropout_seeds) != M:
            raise ValueError(f"dropout_seeds must hold n_models = {M} seeds, got {len(dropout_seeds)}")
        self.dropout_seeds, self._streams = list(dropout_seeds), {}
        self.n_models, self.d, self.n_layer, self.n_head, self.max_len = M, d, n_layer, n_head, max_len
        self.dropout, self.seeds = float(dropout), seeds
        Lr = n_layer
        self.tok = nn.Parameter(torch.empty(M, VOCAB, d))
        self.pos = nn.Parameter(torch.empty(M, max_len, d))
        self.qkv = nn.Parameter(torch.empty(Lr, M, d, 3 * d))        # x @ qkv: queries, keys, values
        self.proj = nn.Parameter(torch.empty(Lr, M, d, d))
        self.fc1 = nn.Parameter(torch.empty(Lr, M, d, 4 * d))
        self.fc2 = nn.Parameter(torch.empty(Lr, M, 4 * d, d))
        self.norm1 = nn.Parameter(torch.ones(Lr, M, d))
        self.norm2 = nn.Parameter(torch.ones(Lr, M, d))
        self.norm_out = nn.Parameter(torch.ones(M, d))
        self.out = nn.Parameter(torch.empty(M, d, VOCAB))
        self.reset(seeds)

    @torch.no_grad()
    def reset(self, seeds) -> None:
        """Draw every model's weights from its own seed (PyTorch's defaults, as the official code keeps them):
        embeddings N(0, 1), linear weights U(−1/√fan_in, 1/√fan_in), LayerNorm gains 1."""
        for m, seed in enumerate(seeds):
            g = torch.Generator().manual_seed(int(seed))
            self.tok[m] = torch.randn(self.tok.shape[1:], generator=g)
            self.pos[m] = torch.randn(self.pos.shape[1:], generator=g)
            for w in (self.qkv, self.proj, self.fc1, self.fc2):
                for layer in range(self.n_layer):
                    bound = 1 / math.sqrt(w.shape[-2])
                    w[layer, m] = (torch.rand(w.shape[2:], generator=g) * 2 - 1) * bound
            self.out[m] = (torch.rand(self.out.shape[1:], generator=g) * 2 - 1) / math.sqrt(self.d)
        for p in (self.norm1, self.norm2, self.norm_out):
            p.fill_(1.0)

    def _dropout(self, h: torch.Tensor) -> torch.Tensor:
        """Embedding dropout with one mask stream per model (its own generator, seeded by ``dropout_seeds``)."""
        if not self.training or self.dropout == 0:
            return h
        key = str(h.device)
        if key not in self._streams:
            self._streams[key] = [torch.Generator(device=h.device).manual_seed(int(s)) for s in self.dropout_seeds]
        keep = torch.stack([torch.rand(h.shape[1:], generator=g, device=h.device) >= self.dropout
                            for g in self._streams[key]])
        return h * keep / (1 - self.dropout)

    def _norm(self, x, gain):
        return F.layer_norm(x, x.shape[-1:], eps=1e-5) * gain[:, None, :]

    def attention(self, h: torch.Tensor, layer: int, B: int, T: int):
        """Causal attention of one block: h (M, B·T, d) → (output (M, B·T, d), maps (M, B, H, T, T))."""
        M, d, H = self.n_models, self.d, self.n_head
        q, k, v = torch.bmm(h, self.qkv[layer]).split(d, dim=-1)
        q, k, v = (t.reshape(M, B, T, H, d // H).transpose(2, 3) for t in (q, k, v))     # (M, B, H, T, d/H)
        z, A = causal_attention(*(t.reshape(-1, T, d // H) for t in (q, k, v)))   # scores / √(d/H), causal
        z, A = z.reshape(M, B, H, T, d // H), A.reshape(M, B, H, T, T)
        z = z.transpose(2, 3).reshape(M, B * T, d)
        return torch.bmm(z, self.proj[layer]), A

    def forward(self, x: torch.Tensor, return_attention: bool = False):
        x = check_tokens(x, self.n_models, self.max_len)
        M, B, T = x.shape
        rows = x + VOCAB * torch.arange(M, device=x.device)[:, None, None]
        h = F.embedding(rows, self.tok.reshape(M * VOCAB, self.d)) + self.pos[:, None, :T]
        h = self._dropout(h).reshape(M, B * T, self.d)
        maps = []
        for layer in range(self.n_layer):
            h = self._norm(h, self.norm1[layer])                      # the code's pre-norm: overwrite x
            z, A = self.attention(h, layer, B, T)
            h = h + z
            h = h + torch.bmm(F.gelu(torch.bmm(self._norm(h, self.norm2[layer]), self.fc1[layer])), self.fc2[layer])
            maps.append(A)
        logits = torch.bmm(self._norm(h, self.norm_out), self.out).reshape(M, B, T, VOCAB)
        return (logits, torch.stack(maps)) if return_attention else logits

    @torch.no_grad()
    def load_member(self, m: int, other: EnsembleTransformer, k: int) -> None:
        """Copy model k of ``other`` into model m of this ensemble (transfer: fine-tune from a checkpoint).

        Raises
        ------
        ValueError if the architectures differ (d, n_layer, n_head, max_len) or an index is out of range.
        """
        for name in ("d", "n_layer", "n_head", "max_len"):
            if getattr(self, name) != getattr(other, name):
                raise ValueError(f"other must have the same {name} = {getattr(self, name)}, "
                                 f"got {getattr(other, name)}")
        if not 0 <= m < self.n_models or not 0 <= k < other.n_models:
            raise ValueError(f"m must be in [0, {self.n_models}) and k in [0, {other.n_models}), got {m}, {k}")
        for name in ("tok", "pos", "norm_out", "out"):                  # model axis first
            getattr(self, name)[m] = getattr(other, name)[k]
        for name in ("qkv", "proj", "fc1", "fc2", "norm1", "norm2"):       # layer axis, then model axis
            getattr(self, name)[:, m] = getattr(other, name)[:, k]
