"""What the official code measures (``src/cot/evals/cot.py``): teacher-forced sequence accuracy, and the two
attention scores that reveal the iteration head (Cabannes et al. 2024, §4).

For a sequence of length L (EoI at position L + 1, s_t at L + 1 + t, 0-based):

- **attn0**: layer-1 attention from the chain-of-thought position L + 1 + t (t = 1 … L, the token s_t) to EoI,
  A¹[L + 1 + t, L + 1] — the first step of the circuit: "where am I relative to EoI?";
- **attn1**: layer-2 attention from the position that predicts s_t to the input x_t,
  A²[L + t, t] (t = 1 … L: the row of EoI reads x_1, the row of s_1 reads x_2, …) — the iteration head;
- **peakiness**: the fraction of those entries above 0.5; averaged per length, then over lengths.

Accuracy is **teacher-forced**, as in the code: a sequence is correct when the argmax prediction is right at every
target strictly after EoI (the states and the EoS padding), each position fed the true prefix.
"""
from __future__ import annotations

import torch

from .tasks import cot_mask


def _check_batch(seqs, lengths):
    if not isinstance(seqs, torch.Tensor) or seqs.ndim != 3:
        raise ValueError(f"seqs must be an (M, N, T) tensor of token ids, got {getattr(seqs, 'shape', seqs)!r}")
    if not isinstance(lengths, torch.Tensor) or lengths.shape != seqs.shape[1:2]:
        raise ValueError(f"lengths must be an (N,) tensor matching seqs (N = {seqs.shape[1]}), "
                         f"got {getattr(lengths, 'shape', lengths)!r}")
    if lengths.numel() and (int(lengths.min()) < 1 or 2 * int(lengths.max()) + 2 > seqs.shape[2]):
        raise ValueError(f"lengths must be in [1, (T - 2) / 2] = [1, {(seqs.shape[2] - 2) // 2}]")


def per_length_mean(values: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
    """Mean over the sequences of each length, then over lengths (the code's per-length report, averaged).

    values : (M, N) float tensor; lengths : (N,) int64. Returns (M,) float64."""
    out = []
    for L in torch.unique(lengths):
        out.append(values[:, lengths == L].double().mean(dim=1))
    return torch.stack(out, dim=1).mean(dim=1)


@torch.no_grad()
def sequence_correct(logits: torch.Tensor, seqs: torch.Tensor) -> torch.Tensor:
    """Teacher-forced correctness of each sequence: logits (M, N, T−1, 64) of ``seqs[..., :-1]``, seqs (M, N, T)
    int64 → (M, N) bool, True when every target strictly after EoI is the argmax."""
    targets = seqs[..., 1:]
    wrong = (logits.argmax(-1) != targets) & cot_mask(targets)
    return ~wrong.any(dim=-1)


@torch.no_grad()
def attention_scores(maps: torch.Tensor, lengths: torch.Tensor) -> dict[str, torch.Tensor]:
    """attn0 and attn1 entries of each sequence (module docstring).

    Parameters
    ----------
    maps : (n_layer >= 2, M, N, 1, T, T) attention maps of the full sequences (head 0 is read).
    lengths : (N,) int64, the length L of each sequence.

    Returns
    -------
    dict with 'attn0', 'attn1' : (M, N, L_max) float tensors, entry t−1 for t = 1 … L, NaN beyond L.

    Raises
    ------
    ValueError if the maps have fewer than 2 layers or do not match ``lengths``.
    """
    if maps.ndim != 6 or maps.shape[0] < 2 or maps.shape[2] != lengths.shape[0]:
        raise ValueError(f"maps must be (n_layer >= 2, M, N, H, T, T) with N = {lengths.shape[0]}, "
                         f"got {tuple(maps.shape)}")
    L_max = int(lengths.max())
    t = torch.arange(1, L_max + 1, device=lengths.device)
    valid = t[None, :] <= lengths[:, None]                                    # (N, L_max)
    L = lengths[:, None]
    n = torch.arange(len(lengths), device=lengths.device)[:, None]
    row0 = torch.where(valid, L + 1 + t, 0)
    row1, col1 = torch.where(valid, L + t, 0), torch.where(valid, t, 0)
    a0 = maps[0, :, n, 0, row0, torch.where(valid, L + 1, 0)]                 # (M, N, L_max)
    a1 = maps[1, :, n, 0, row1, col1]
    nan = torch.tensor(float("nan"), device=maps.device)
    return {"attn0": torch.where(valid, a0, nan), "attn1": torch.where(valid, a1, nan)}


def peakiness(scores: torch.Tensor, lengths: torch.Tensor, threshold: float = 0.5) -> torch.Tensor:
    """Fraction of attention entries above ``threshold`` (code: ``attn*_peaky_thres``), per length then averaged.

    scores : (M, N, L_max) from :func:`attention_scores` (NaN beyond L). Returns (M,) float64 in [0, 1]."""
    valid = ~torch.isnan(scores)
    frac = ((scores > threshold) & valid).sum(-1) / valid.sum(-1)
    return per_length_mean(frac, lengths)
