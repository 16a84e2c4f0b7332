"""The reduced model's coordinates (e, w) read off a full transformer, and the reduced model written into one
(Makkuva et al. 2024, §3: the rank-one "canonical" parameters of the LayerNorm-free model).

**Reduced model inside the transformer.** In the LayerNorm-free ReLU model (``variant="simple"``), take a unit
vector α ∈ R^d and set the token embeddings wte[x] = (x − ½) e α, the positional embeddings to 0, the value
block of the attention to 0, ``c_fc`` = u αᵀ and MLP ``c_proj`` = α vᵀ with u = (2|w|/√(4d)) 𝟏 and
v = (2w/√(4d)) 𝟏, and the head bias to (0, b). With the tied head the logit of "next = 1" minus that of
"next = 0" is eα · h. The direct path gives e²(x − ½); since ReLU(z) − ReLU(−z) = z and u ≥ 0, the MLP adds
(e²/2) u·v · x = 2w|w| e² x and nothing at x = 0. So the transformer's logit is exactly the reduced model's
e²(1 + 2w|w|) x + b − e²/2 (:func:`neurips24.markov.reduced.logits`).

**Reading (e, w) off any transformer.** With Δ = wte[1] − wte[0] (the tied head's logit direction):

- e = ‖Δ‖: the direct path (embedding → head) contributes Δ·Δ = e² to the logit slope, as in the reduced model;
- w is the signed root of 2w|w| = S/e² − 1, where S is the transformer's logit slope: the change of the logit
  at position n when the token x_n goes from 0 to 1, its context x_{<n} held fixed, averaged over the
  positions of probe sequences.

So (e, w) is the point of the reduced model with the transformer's embedding norm and its average logit slope:
the two make the same next-token predictions on average, and the reduced loss at (e, w, b*) is the loss the
transformer would have if its predictions did not depend on the position. The reading is exact on the
embedding above (tested); on a trained transformer the attention's share of the slope is part of S.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from .model import EnsembleTransformer, _check_index, check_tokens


def _finite(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    return float(value)


@torch.no_grad()
def embed_reduced(model: EnsembleTransformer, m: int, e: float, w: float, b: float = 0.0, alpha=None) -> None:
    """Write the reduced model (e, w, b) into model m of a LayerNorm-free ensemble (module docstring).

    Parameters
    ----------
    model : an :class:`EnsembleTransformer` with ``variant="simple"``.   m : model index.
    e, w, b : finite reduced parameters (e may have either sign; the logit depends on e²).
    alpha : (d,) direction of the embedding (normalised here); default the first basis vector.

    Raises
    ------
    ValueError if the model has LayerNorm (its normalisation breaks the reduction), m is not an index, e, w or b
    is not finite, or alpha has the wrong shape, is not finite or is zero.
    """
    if model.variant != "simple":
        raise ValueError(f"model must have variant 'simple' (no LayerNorm), got {model.variant!r}")
    _check_index(model, m)
    e, w, b = abs(_finite("e", e)), _finite("w", w), _finite("b", b)     # the reduced model depends on e²
    d = model.d_model
    a = torch.zeros(d) if alpha is None else torch.as_tensor(alpha, dtype=torch.float32).clone()
    if alpha is None:
        a[0] = 1.0
    if a.shape != (d,) or not bool(torch.isfinite(a).all()) or float(a.norm()) == 0.0:
        raise ValueError(f"alpha must be a finite, non-zero vector of shape ({d},), got {tuple(a.shape)}")
    a = a / a.norm()
    n_hidden = 4 * d
    model.wte[m, 0] = -0.5 * e * a
    model.wte[m, 1] = 0.5 * e * a
    model.wpe[m] = 0.0
    model.c_attn[m, 2 * d:] = 0.0                      # value block: the attention writes nothing
    model.c_fc[m] = (2.0 * abs(w) / math.sqrt(n_hidden)) * torch.outer(torch.ones(n_hidden), a)
    model.mlp_proj[m] = (2.0 * w / math.sqrt(n_hidden)) * torch.outer(a, torch.ones(n_hidden))
    model.head_bias[m] = torch.tensor([0.0, b])


@torch.no_grad()
def counterfactual_logits(model: EnsembleTransformer, x: torch.Tensor, token: int) -> torch.Tensor:
    """z_n = logit₁ − logit₀ at every position n had the token at n been ``token``, the earlier tokens x_{<n}
    unchanged: x (M, B, T) → (M, B, T) float32. With ``token`` equal to x_n this is the model's own logit
    difference (tested against the forward pass); the difference of the two tokens is the effect of the current
    token on the prediction, with its context held fixed.

    The attention of position n sees the keys and values of x_{<n} and, at n itself, those of ``token``.

    Raises
    ------
    ValueError if token is not 0 or 1; like :func:`neurips24.markov.model.check_tokens` on a bad x.
    """
    if token not in (0, 1) or isinstance(token, bool):
        raise ValueError(f"token must be 0 or 1, got {token!r}")
    x = check_tokens(x, model.n_models, model.max_len)
    M, B, T = x.shape
    d = model.d_model
    parts = model._stream(x)                                              # (M, B·T, d), the actual stream
    h0 = parts["embed"].reshape(M, B, T, d)
    hc = (model.wte[:, token][:, None, None, :] + model.wpe[:, None, :T]).expand(M, B, T, d)
    qkv = torch.einsum("mbtd,med->mbte", model._norm(h0.reshape(M, B * T, d), "ln1").reshape(M, B, T, d),
                       model.c_attn)
    qkv_c = torch.einsum("mbtd,med->mbte", model._norm(hc.reshape(M, B * T, d), "ln1").reshape(M, B, T, d),
                         model.c_attn)
    _, k, v = qkv.split(d, dim=-1)
    qc, kc, vc = qkv_c.split(d, dim=-1)
    scale = 1.0 / math.sqrt(d)
    scores = torch.einsum("mbnd,mbjd->mbnj", qc, k) * scale               # query of `token` at n, keys of x_j
    diag = torch.arange(T, device=x.device)
    scores[..., diag, diag] = (qc * kc).sum(-1) * scale                   # n's own key is that of `token`
    scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1), float("-inf"))
    a = torch.softmax(scores, dim=-1)
    a_self = a[..., diag, diag]
    y = torch.einsum("mbnj,mbjd->mbnd", a, v) + (a_self[..., None] * (vc - v))
    attn = torch.einsum("mbne,mde->mbnd", y, model.attn_proj)
    h = (hc + attn).reshape(M, B * T, d)
    pre = torch.bmm(model._norm(h, "ln2"), model.c_fc.transpose(1, 2))
    z = torch.relu(pre) if model.variant == "simple" else torch.nn.functional.gelu(pre)
    h = model._norm(h + torch.bmm(z, model.mlp_proj.transpose(1, 2)), "ln_f")
    direction = (model.wte[:, 1] - model.wte[:, 0])[:, :, None]
    out = torch.bmm(h, direction)[..., 0] + (model.head_bias[:, 1] - model.head_bias[:, 0])[:, None]
    return out.reshape(M, B, T)


@torch.no_grad()
def read_coordinates(model: EnsembleTransformer, x: torch.Tensor) -> dict[str, np.ndarray]:
    """Read the reduced model's (e, w) off every model of the ensemble (module docstring).

    The logit slope is the effect of the current token with its context fixed,
    S = mean over the positions of x of [z_n(x_n := 1) − z_n(x_n := 0)] (:func:`counterfactual_logits`), so that
    it does not mix in how the prediction varies with the position or the earlier tokens; at a small e it is
    then a clean multiple of e².

    Parameters
    ----------
    model : an :class:`EnsembleTransformer` (either variant; the reduction is exact only without LayerNorm).
    x : (M, B, T) int64 probe tokens in {0, 1} (the contexts).

    Returns
    -------
    dict of (M,) float64 arrays: 'e' (= ‖wte[1] − wte[0]‖ >= 0), 'w' (NaN where e = 0: the slope does not
    fix w there), 'slope' (S, nats per unit of x) and 'intercept' (mean z_n(x_n := 0)).

    Raises
    ------
    TypeError / ValueError like :func:`neurips24.markov.model.check_tokens`.
    """
    z1 = counterfactual_logits(model, x, 1).double().flatten(1)
    z0 = counterfactual_logits(model, x, 0).double().flatten(1)
    slope = (z1 - z0).mean(1).cpu().numpy()
    e = (model.wte[:, 1] - model.wte[:, 0]).double().norm(dim=1).cpu().numpy()
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(e > 0, 0.5 * (slope / e**2 - 1.0), np.nan)           # r = w|w|
    return {"e": e, "w": np.sign(r) * np.sqrt(np.abs(r)), "slope": slope, "intercept": z0.mean(1).cpu().numpy()}
