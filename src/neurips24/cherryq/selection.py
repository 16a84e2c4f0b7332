"""Cherry selection criteria and what the selected cherries look like (paper Sec. 6.4; book's own analysis).

The paper ranks the weights of each row by their impact H_ii (the Fisher diagonal) and compares this with
ranking by magnitude |w_ij| and by activation; the book adds random cherries as the control every criterion
must beat. Activation ranks the input columns j by the mean square of the layer's input x_j over the
calibration tokens, E[x_j²]: the same columns in every row (the criterion of outlier-aware methods such as
LLM.int8() and AWQ).

- :func:`input_second_moments`: a context manager recording E[x_j²] of every listed linear layer's input.
- :func:`cherry_scores`: the (out, in) score matrix of one criterion, ranked by
  :func:`~neurips24.cherryq.quantizer.select_cherries`.
- :func:`outlier_column_share`, :func:`cherry_overlap`: how concentrated, and how reproducible, a selection is.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np
import torch

from .quantizer import check_cherries, check_weight

CRITERIA = ("impact", "magnitude", "activation", "random")


@contextmanager
def input_second_moments(modules: dict):
    """Record E[x_j²] of each module's input over every token passed through it while the context is open.

    Parameters
    ----------
    modules : name -> ``nn.Linear``.

    Yields
    ------
    dict name -> (in,) float64 tensor, filled (as running means over tokens) when the context closes.
    """
    sums = {name: torch.zeros(mod.in_features, dtype=torch.float64) for name, mod in modules.items()}
    counts = dict.fromkeys(modules, 0)
    result: dict = {}

    def hook(name):
        def record(_mod, args):
            x = args[0].detach().reshape(-1, args[0].shape[-1])
            sums[name] += (x.double() ** 2).sum(dim=0).cpu()
            counts[name] += x.shape[0]
        return record

    handles = [mod.register_forward_pre_hook(hook(name)) for name, mod in modules.items()]
    try:
        yield result
    finally:
        for h in handles:
            h.remove()
        result.update({name: sums[name] / max(counts[name], 1) for name in modules})


def cherry_scores(criterion: str, weight, impact=None, act_sq=None, generator=None) -> torch.Tensor:
    """The score whose per-row top k are the cherries, for one selection criterion.

    Parameters
    ----------
    criterion : 'impact' (H_ii, eq. cherryq-fisher), 'magnitude' (|w_ij|), 'activation' (E[x_j²], the same in
        every row) or 'random' (uniform scores: a random choice of k columns per row).
    weight : (out, in) real finite tensor or array.
    impact : (out, in) Fisher diagonal, needed for 'impact'.   act_sq : (in,) E[x_j²], needed for 'activation'.
    generator : ``torch.Generator`` for 'random' (seeded: reproducible).

    Returns
    -------
    (out, in) float tensor (the dtype of the weight or score; float32 for 'random').

    Raises
    ------
    ValueError for an unknown criterion, a missing or mis-shaped score, or a NaN/inf/negative score.
    """
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be one of {CRITERIA}, got {criterion!r}")
    if criterion == "magnitude":
        check_weight(weight, "weight")
        return _tensor(weight).abs()
    shape = tuple(getattr(weight, "shape", ()))
    if len(shape) != 2 or min(shape) < 1:
        raise ValueError(f"weight must be a 2-D (out, in) matrix, got shape {shape}")
    out, n = shape
    if criterion == "random":
        return torch.rand((out, n), generator=generator)
    score, name, shape = (impact, "impact", (out, n)) if criterion == "impact" else (act_sq, "act_sq", (n,))
    if score is None:
        raise ValueError(f"criterion {criterion!r} needs {name}")
    s = _tensor(score)
    if tuple(s.shape) != shape:
        raise ValueError(f"{name} must have shape {shape}, got {tuple(s.shape)}")
    if not bool((s >= 0).all()) or not bool(torch.isfinite(s.max())):     # NaN fails s >= 0
        raise ValueError(f"{name} must be finite and non-negative")
    return s if criterion == "impact" else s.expand(out, n)


def _tensor(x) -> torch.Tensor:
    """A detached CPU float tensor of an array or tensor (float32 and float64 kept as they are)."""
    t = x.detach().cpu() if hasattr(x, "detach") else torch.as_tensor(np.asarray(x, dtype=float))
    return t if t.is_floating_point() else t.double()


def outlier_column_share(cherry_idx, shape: tuple[int, int]) -> float:
    """Share of a matrix's cherries that fall in its k most frequently chosen input columns (k per row).

    1 means every row chose the same k columns (a few outlier input features); a random choice gives about
    k/in plus a little (the most frequent of many random columns).

    Parameters
    ----------
    cherry_idx : (out, k) column indices, k ≥ 1.   shape : (out, in) of the matrix.

    Returns
    -------
    float in (0, 1].

    Raises
    ------
    ValueError for bad indices or k = 0.
    """
    idx = check_cherries(cherry_idx, shape)
    if idx.shape[1] == 0:
        raise ValueError("cherry_idx must hold at least one cherry per row")
    counts = np.bincount(idx.ravel(), minlength=shape[1])
    return float(np.sort(counts)[::-1][: idx.shape[1]].sum() / idx.size)


def cherry_overlap(a, b, shape: tuple[int, int]) -> float:
    """Mean over rows of |a_row ∩ b_row| / k: how many of the cherries of selection a are also in b.

    Raises
    ------
    ValueError if the two selections differ in shape or are empty.
    """
    a, b = check_cherries(a, shape), check_cherries(b, shape)
    if a.shape != b.shape or a.shape[1] == 0:
        raise ValueError(f"both selections must have the same shape (out, k >= 1), got {a.shape} and {b.shape}")
    hits = (a[:, :, None] == b[:, None, :]).any(axis=2).sum(axis=1)
    return float(np.mean(hits / a.shape[1]))
