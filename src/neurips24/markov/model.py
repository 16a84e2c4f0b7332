"""A single-layer transformer for next-token prediction on the chain (Makkuva et al. 2024, §2; official
``Markov-LLM/src/models/base.py``), written for an *ensemble*: M independent models in one set of tensors.

Each model is nanoGPT's block with the paper's settings: vocabulary {0, 1}, token and positional embeddings
(d), pre-LayerNorm causal self-attention with one head, a GELU MLP of width 4d, a final LayerNorm, and an
output layer whose weight is tied to the token embedding (with its own bias, as in the official code). No
other biases (``bias=False`` there). Every parameter carries a leading model axis M, so training M seeds at
once costs one batched forward pass, and the models never interact: the loss is a sum over models.

Initialisations:

- :func:`init_standard`: nanoGPT's N(0, 0.02²) for every weight, N(0, (0.02/√(2·n_layer))²) for the two
  residual output projections, zero output bias, LayerNorm gains 1.
- :func:`init_guideline`: the standard one, then the MLP set to a constant rank-one map with factors of
  **opposite sign** (c_fc = +v, c_proj = −v), the ``--init ashok`` option of the official code
  (``Markov-LLM-depth``). In the reduced model this is a start with w < 0, in the global basin I*.
"""
from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ..checks import check_count


class EnsembleTransformer(nn.Module):
    """M independent one-layer transformers over a binary vocabulary.

    Parameters
    ----------
    n_models : M >= 1.   d_model : embedding width d >= 1 (paper: 8).   max_len : longest sequence T >= 2.

    Forward: ``x`` (M, B, T) int64 tokens in {0, 1} → logits (M, B, T, 2) float32.

    Raises
    ------
    ValueError on a non-positive size (names the argument).
    """

    def __init__(self, n_models: int = 1, d_model: int = 8, max_len: int = 256):
        super().__init__()
        for name, v, low in (("n_models", n_models, 1), ("d_model", d_model, 1), ("max_len", max_len, 2)):
            check_count(name, v, low)
        M, d = n_models, d_model
        self.n_models, self.d_model, self.max_len = M, d, max_len
        self.wte = nn.Parameter(torch.empty(M, 2, d))          # token embedding = output weight (tied)
        self.wpe = nn.Parameter(torch.empty(M, max_len, d))
        self.ln1 = nn.Parameter(torch.ones(M, d))
        self.c_attn = nn.Parameter(torch.empty(M, 3 * d, d))   # rows: query, key, value
        self.attn_proj = nn.Parameter(torch.empty(M, d, d))
        self.ln2 = nn.Parameter(torch.ones(M, d))
        self.c_fc = nn.Parameter(torch.empty(M, 4 * d, d))
        self.mlp_proj = nn.Parameter(torch.empty(M, d, 4 * d))
        self.ln_f = nn.Parameter(torch.ones(M, d))
        self.head_bias = nn.Parameter(torch.zeros(M, 2))
        for m in range(M):
            init_standard(self, m, seed=m)

    @staticmethod
    def _ln(x, gain):
        return F.layer_norm(x, x.shape[-1:], eps=1e-5) * gain[:, None, None, :]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        M, B, T = x.shape
        if M != self.n_models or T > self.max_len:
            raise ValueError(f"x must have shape ({self.n_models}, B, T <= {self.max_len}), got {tuple(x.shape)}")
        d = self.d_model
        h = torch.gather(self.wte[:, None].expand(M, B, 2, d), 2, x[..., None].expand(M, B, T, d))
        h = h + self.wpe[:, None, :T]
        a = self._ln(h, self.ln1)
        qkv = torch.einsum("mbtd,med->mbte", a, self.c_attn)
        qh, kh, vh = qkv.split(d, dim=-1)
        y = F.scaled_dot_product_attention(qh.reshape(M * B, 1, T, d), kh.reshape(M * B, 1, T, d),
                                           vh.reshape(M * B, 1, T, d), is_causal=True).reshape(M, B, T, d)
        h = h + torch.einsum("mbte,mde->mbtd", y, self.attn_proj)
        a = self._ln(h, self.ln2)
        z = F.gelu(torch.einsum("mbtd,mhd->mbth", a, self.c_fc))
        h = h + torch.einsum("mbth,mdh->mbtd", z, self.mlp_proj)
        h = self._ln(h, self.ln_f)
        return torch.einsum("mbtd,mvd->mbtv", h, self.wte) + self.head_bias[:, None, None, :]

    def loss_per_model(self, x: torch.Tensor) -> torch.Tensor:
        """Next-token cross-entropy (nats) of each model on its own batch: x (M, B, T) → (M,)."""
        logits = self(x[..., :-1])
        return F.cross_entropy(logits.reshape(-1, 2), x[..., 1:].reshape(-1), reduction="none").reshape(
            x.shape[0], -1).mean(dim=1)


INITS = ("standard", "guideline")


def _check_index(model, m):
    if isinstance(m, bool) or not isinstance(m, int) or not 0 <= m < model.n_models:
        raise ValueError(f"m must be a model index in [0, {model.n_models}), got {m!r}")


@torch.no_grad()
def init_standard(model: EnsembleTransformer, m: int, seed: int, std: float = 0.02) -> None:
    """Model m ← nanoGPT's Gaussian initialisation around 0 (module docstring), drawn from ``seed`` alone.

    Raises
    ------
    ValueError if m is not a model index.
    """
    _check_index(model, m)
    g = torch.Generator().manual_seed(int(seed))
    for p in (model.wte, model.wpe, model.c_attn, model.c_fc):
        p[m] = torch.randn(p.shape[1:], generator=g) * std
    for p in (model.attn_proj, model.mlp_proj):
        p[m] = torch.randn(p.shape[1:], generator=g) * (std / math.sqrt(2.0))   # 0.02/√(2·n_layer), n_layer = 1
    for p in (model.ln1, model.ln2, model.ln_f):
        p[m] = 1.0
    model.head_bias[m] = 0.0


@torch.no_grad()
def init_guideline(model: EnsembleTransformer, m: int, seed: int, value: float = 1.0, std: float = 0.02) -> None:
    """Model m ← the standard initialisation from ``seed``, then the MLP as a rank-one map with opposite-sign
    factors: c_fc = +value, c_proj = −value (official code's ``--init ashok``, ``--init_value`` 1.0).

    Raises
    ------
    ValueError if m is not a model index or value <= 0.
    """
    if not value > 0:
        raise ValueError(f"value must be > 0, got {value!r}")
    init_standard(model, m, seed, std)
    model.c_fc[m] = value
    model.mlp_proj[m] = -value


def initialize(model: EnsembleTransformer, seeds, inits) -> EnsembleTransformer:
    """Initialise every model: model m gets scheme ``inits[m]`` ('standard' or 'guideline') from ``seeds[m]``.

    Raises
    ------
    ValueError if the lists do not have length M or a scheme is unknown.
    """
    seeds, inits = list(seeds), list(inits)
    if len(seeds) != model.n_models or len(inits) != model.n_models:
        raise ValueError(f"seeds and inits must have length n_models = {model.n_models}")
    for m, (seed, kind) in enumerate(zip(seeds, inits, strict=True)):
        if kind not in INITS:
            raise ValueError(f"inits must hold values in {INITS}, got {kind!r}")
        (init_standard if kind == "standard" else init_guideline)(model, m, seed)
    return model
