"""The single-layer transformers of the paper's official code, written for an *ensemble*: M independent models in
one set of tensors (Makkuva et al. 2024, §2 and §5; github.com/Bond1995/Markov).

Two variants of nanoGPT's block over the vocabulary {0, 1}, with token and positional embeddings of width d, one
causal self-attention head, an MLP of width 4d, and an output layer whose weight is tied to the token embedding,
with its own bias. No other biases (``bias=False`` there).

- ``variant="simple"`` — ``Markov-Simple/src/models/base.py``: **no LayerNorm** (the code comments all three
  out) and a **ReLU** MLP. This is the model of the paper's initialisation figure (``Markov-Simple/figures/
  loss.py``, launched by ``Markov-Simple/src/schedule2.sh`` at commit f3a2ec1) and the one whose rank-one
  restriction is the reduced (e, w, b) model of :mod:`neurips24.markov.reduced`.
- ``variant="llm"`` — ``Markov-LLM/src/models/base.py``: pre-LayerNorm before attention and MLP, a final
  LayerNorm (gains only), and a **GELU** MLP.

Every parameter carries a leading model axis M, so training M seeds at once costs one batched forward pass, and
the models never interact: the loss is a sum over models.

Initialisations (each drawn from the model's seed alone):

- :func:`init_standard`: nanoGPT's N(0, std²), std = 0.02, for every weight; the residual output projections
  (attention's and the MLP's ``c_proj``) N(0, (std/√(2·n_layer))²); zero output bias; LayerNorm gains 1.
- :func:`init_good`: the ``--init good`` option of ``Markov-Simple`` at commit f3a2ec1 (the paper's
  "our initialization"): the Gaussian draw of every weight, then the constants ``wte`` = 0.5, ``wpe`` = −0.25,
  ``c_fc`` = 2, MLP ``c_proj`` = −2; the attention's ``c_proj`` keeps N(0, std²) (that branch skips the
  1/√(2·n_layer) scaling). Later commits changed ``wte``/``wpe`` to −1/0.5, which makes every ReLU input
  2·8·(−1 + 0.5) = −8 < 0: the MLP starts dead. We use the f3a2ec1 values, with which the figure was made.
- :func:`init_ashok`: the ``--init ashok`` option of ``Markov-LLM-depth`` (the chapter's first version used it
  as "the guideline"): the standard draw, then ``c_fc`` = +value, MLP ``c_proj`` = −value.
"""
from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..checks import check_count

VARIANTS = ("simple", "llm")
"""'simple': Markov-Simple (no LayerNorm, ReLU), the paper's Fig. 4 model; 'llm': Markov-LLM (LayerNorm, GELU)."""


def check_tokens(x, n_models: int | None = None, max_len: int | None = None) -> torch.Tensor:
    """Validate a batch of token sequences for an ensemble: returns ``x`` as an int64 tensor.

    Parameters
    ----------
    x : (M, B, T) tensor of integer tokens, each 0 or 1.
    n_models : the ensemble's M (checked when given).   max_len : the longest T allowed (checked when given).

    Raises
    ------
    TypeError if x is not a torch tensor of an integer dtype; ValueError if it is not 3-d, has the wrong M,
    T > max_len or T < 1, or holds a token other than 0 and 1.
    """
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"x must be a torch.Tensor of int64 tokens, got {type(x).__name__}")
    if x.dtype.is_floating_point or x.dtype.is_complex or x.dtype == torch.bool:
        raise TypeError(f"x must hold integer tokens (int64), got dtype {x.dtype}")
    if x.ndim != 3:
        raise ValueError(f"x must have shape (M, B, T), got {tuple(x.shape)}")
    M, _, T = x.shape
    if n_models is not None and M != n_models:
        raise ValueError(f"x must have M = n_models = {n_models} rows on axis 0, got {M}")
    if T < 1 or (max_len is not None and T > max_len):
        raise ValueError(f"x must have 1 <= T <= max_len = {max_len}, got T = {T}")
    if x.numel() and not bool(((x == 0) | (x == 1)).all()):
        raise ValueError("x must be binary: every token 0 or 1")
    return x.long()


class EnsembleTransformer(nn.Module):
    """M independent one-layer transformers over a binary vocabulary (module docstring).

    Parameters
    ----------
    n_models : M >= 1.   d_model : embedding width d >= 1 (paper: 8).   max_len : longest sequence T >= 2.
    variant : 'simple' (no LayerNorm, ReLU; the paper's Fig. 4 model) or 'llm' (LayerNorm, GELU).

    Forward: ``x`` (M, B, T) int64 tokens in {0, 1} → logits (M, B, T, 2) float32.

    Raises
    ------
    ValueError on a non-positive size or an unknown variant (names the argument).
    """

    def __init__(self, n_models: int = 1, d_model: int = 8, max_len: int = 256, variant: str = "llm"):
        super().__init__()
        for name, v, low in (("n_models", n_models, 1), ("d_model", d_model, 1), ("max_len", max_len, 2)):
            check_count(name, v, low)
        if variant not in VARIANTS:
            raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
        M, d = n_models, d_model
        self.n_models, self.d_model, self.max_len, self.variant = M, d, max_len, variant
        self.wte = nn.Parameter(torch.empty(M, 2, d))          # token embedding = output weight (tied)
        self.wpe = nn.Parameter(torch.empty(M, max_len, d))
        self.c_attn = nn.Parameter(torch.empty(M, 3 * d, d))   # rows: query, key, value
        self.attn_proj = nn.Parameter(torch.empty(M, d, d))
        self.c_fc = nn.Parameter(torch.empty(M, 4 * d, d))
        self.mlp_proj = nn.Parameter(torch.empty(M, d, 4 * d))
        self.head_bias = nn.Parameter(torch.zeros(M, 2))
        if variant == "llm":
            self.ln1 = nn.Parameter(torch.ones(M, d))
            self.ln2 = nn.Parameter(torch.ones(M, d))
            self.ln_f = nn.Parameter(torch.ones(M, d))
        for m in range(M):
            init_standard(self, m, seed=m)

    def matrices(self) -> list[nn.Parameter]:
        """The weights the official code decays (``nn.Linear`` weights): attention and MLP matrices."""
        return [self.c_attn, self.attn_proj, self.c_fc, self.mlp_proj]

    def others(self) -> list[nn.Parameter]:
        """The parameters it does not decay: embeddings (tied head), head bias, LayerNorm gains."""
        extra = [self.ln1, self.ln2, self.ln_f] if self.variant == "llm" else []
        return [self.wte, self.wpe, self.head_bias, *extra]

    def _norm(self, x, name):
        if self.variant == "simple":
            return x
        return F.layer_norm(x, x.shape[-1:], eps=1e-5) * getattr(self, name)[:, None, :]

    def _stream(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        """Residual-stream parts as (M, B·T, d) tensors; x already checked."""
        M, B, T = x.shape
        d = self.d_model
        rows = x + 2 * torch.arange(M, device=x.device)[:, None, None]        # row of wte.reshape(2M, d)
        h0 = (F.embedding(rows, self.wte.reshape(2 * M, d)) + self.wpe[:, None, :T]).reshape(M, B * T, d)
        qkv = torch.bmm(self._norm(h0, "ln1"), self.c_attn.transpose(1, 2))    # (M, B·T, 3d)
        qh, kh, vh = (t.reshape(M * B, 1, T, d) for t in qkv.split(d, dim=-1))
        y = F.scaled_dot_product_attention(qh, kh, vh, is_causal=True).reshape(M, B * T, d)
        attn = torch.bmm(y, self.attn_proj.transpose(1, 2))
        h = h0 + attn
        pre = torch.bmm(self._norm(h, "ln2"), self.c_fc.transpose(1, 2))       # (M, B·T, 4d)
        z = F.relu(pre) if self.variant == "simple" else F.gelu(pre)
        mlp = torch.bmm(z, self.mlp_proj.transpose(1, 2))
        return {"embed": h0, "attn": attn, "mlp": mlp, "final": self._norm(h + mlp, "ln_f")}

    def residual_parts(self, x: torch.Tensor) -> dict[str, torch.Tensor]:
        """The residual stream split into what writes to it: x (M, B, T) tokens → dict of (M, B, T, d) tensors
        'embed' (token + position), 'attn' (attention output) and 'mlp' (MLP output), and 'final' (their sum,
        after the final LayerNorm for variant 'llm'). Raises like :func:`check_tokens`."""
        x = check_tokens(x, self.n_models, self.max_len)
        return {k: v.reshape(*x.shape, self.d_model) for k, v in self._stream(x).items()}

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = check_tokens(x, self.n_models, self.max_len)
        logits = torch.bmm(self._stream(x)["final"], self.wte.transpose(1, 2)) + self.head_bias[:, None, :]
        return logits.reshape(*x.shape, 2)

    def loss_per_model(self, x: torch.Tensor) -> torch.Tensor:
        """Next-token cross-entropy (nats) of each model on its own batch: x (M, B, T) → (M,).

        With two classes the cross-entropy is that of a logistic model on the logit difference
        z = logit₁ − logit₀ = (wte[1] − wte[0]) · h + (bias₁ − bias₀), which is what is computed.

        Raises like :func:`check_tokens` (and ValueError if T < 2: there is no next token)."""
        x = check_tokens(x, self.n_models, self.max_len)
        if x.shape[-1] < 2:
            raise ValueError(f"x must have T >= 2 to predict a next token, got T = {x.shape[-1]}")
        inp, target = x[..., :-1], x[..., 1:]
        M = x.shape[0]
        h = self._stream(inp)["final"]                                            # (M, B·(T−1), d)
        direction = (self.wte[:, 1] - self.wte[:, 0])[:, :, None]                 # (M, d, 1)
        z = torch.bmm(h, direction)[..., 0] + (self.head_bias[:, 1] - self.head_bias[:, 0])[:, None]
        return F.binary_cross_entropy_with_logits(z, target.reshape(M, -1).to(z.dtype),
                                                  reduction="none").mean(dim=1)


INITS = ("standard", "good", "ashok")
"""'standard': nanoGPT's Gaussian; 'good': the paper's (Markov-Simple, f3a2ec1); 'ashok': Markov-LLM-depth's."""

GOOD_VALUES = {"wte": 0.5, "wpe": -0.25, "c_fc": 2.0, "mlp_proj": -2.0}
"""The constants of ``--init good`` at commit f3a2ec1 of github.com/Bond1995/Markov (``Markov-Simple``)."""


def _check_index(model, m):
    if isinstance(m, bool) or not isinstance(m, (int, np.integer)) or not 0 <= m < model.n_models:
        raise ValueError(f"m must be a model index in [0, {model.n_models}), got {m!r}")


def _check_positive(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def _check_seed(seed):
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    return int(seed)


@torch.no_grad()
def init_standard(model: EnsembleTransformer, m: int, seed: int, std: float = 0.02) -> None:
    """Model m ← nanoGPT's Gaussian initialisation around 0 (module docstring), drawn from ``seed`` alone.

    Parameters
    ----------
    model : the ensemble.   m : model index in [0, M).   seed : int >= 0.
    std : standard deviation of the weights, finite and > 0 (official code: 0.02).

    Raises
    ------
    ValueError if m is not a model index, seed is not an integer >= 0, or std is not finite and > 0.
    """
    _check_index(model, m)
    g = torch.Generator().manual_seed(_check_seed(seed))
    std = _check_positive("std", std)
    for p in (model.wte, model.wpe, model.c_attn, model.c_fc):
        p[m] = torch.randn(p.shape[1:], generator=g) * std
    for p in (model.attn_proj, model.mlp_proj):
        p[m] = torch.randn(p.shape[1:], generator=g) * (std / math.sqrt(2.0))   # std/√(2·n_layer), n_layer = 1
    if model.variant == "llm":
        for p in (model.ln1, model.ln2, model.ln_f):
            p[m] = 1.0
    model.head_bias[m] = 0.0


@torch.no_grad()
def init_good(model: EnsembleTransformer, m: int, seed: int, std: float = 0.02) -> None:
    """Model m ← the paper's initialisation, ``--init good`` of ``Markov-Simple`` at commit f3a2ec1.

    The standard draw from ``seed``, then ``wte`` = 0.5 (so the tied head too), ``wpe`` = −0.25, ``c_fc`` = 2,
    MLP ``c_proj`` = −2 (:data:`GOOD_VALUES`); the attention's output projection is N(0, std²) (the same draw
    as the standard one, times √2), as that branch of the official code leaves it. Query, key and value keep
    their N(0, std²) draw.

    Both tokens start with the same embedding (0.5 + (−0.25) = 0.25 in every coordinate), so the embedding
    difference e is 0 at step 0 and grows from the first gradient step; the MLP, a constant rank-one map with
    factors of opposite sign and all its ReLUs active, maps that difference to a large *negative* multiple of
    itself: in the reduced model's coordinates, w ≪ −1/√2, inside the global basin (paper §4).

    Raises
    ------
    ValueError like :func:`init_standard`.
    """
    init_standard(model, m, seed, std)
    model.attn_proj[m] *= math.sqrt(2.0)          # N(0, std²): the 'good' branch skips the 1/√(2·n_layer)
    model.wte[m] = GOOD_VALUES["wte"]
    model.wpe[m] = GOOD_VALUES["wpe"]
    model.c_fc[m] = GOOD_VALUES["c_fc"]
    model.mlp_proj[m] = GOOD_VALUES["mlp_proj"]


@torch.no_grad()
def init_ashok(model: EnsembleTransformer, m: int, seed: int, value: float = 1.0, std: float = 0.02) -> None:
    """Model m ← the standard initialisation from ``seed``, then the MLP as a rank-one map with opposite-sign
    factors: c_fc = +value, c_proj = −value (``--init ashok`` of ``Markov-LLM-depth``, ``--init_value`` 1.0).

    Raises
    ------
    ValueError like :func:`init_standard`, or if value is not finite and > 0.
    """
    value = _check_positive("value", value)
    init_standard(model, m, seed, std)
    model.c_fc[m] = value
    model.mlp_proj[m] = -value


_INIT_FUNCTIONS = {"standard": init_standard, "good": init_good, "ashok": init_ashok}


def initialize(model: EnsembleTransformer, seeds, inits) -> EnsembleTransformer:
    """Initialise every model: model m gets scheme ``inits[m]`` (one of :data:`INITS`) from ``seeds[m]``.

    Raises
    ------
    ValueError if the lists do not have length M, a seed is not an integer >= 0 or a scheme is unknown.
    """
    seeds, inits = list(seeds), list(inits)
    if len(seeds) != model.n_models or len(inits) != model.n_models:
        raise ValueError(f"seeds and inits must have length n_models = {model.n_models}, "
                         f"got {len(seeds)} and {len(inits)}")
    for kind in inits:
        if kind not in INITS:
            raise ValueError(f"inits must hold values in {INITS}, got {kind!r}")
    for m, (seed, kind) in enumerate(zip(seeds, inits, strict=True)):
        _INIT_FUNCTIONS[kind](model, m, seed)
    return model
