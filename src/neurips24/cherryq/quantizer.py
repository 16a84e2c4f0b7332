"""The group-wise symmetric quantizer of CherryQ, cherry selection and the input checks (paper Sec. 5, official code).

One weight matrix W (out × in) is quantized row by row. In each row the k *cherry* columns (the largest impact,
chosen per output row) are set aside and kept in full precision; the remaining in − k weights are compacted,
split into contiguous groups of ``group_size`` (the last group of a row is shorter when group_size does not
divide in − k, exactly as the official ``_adjust_weight`` does), and every group gets its own scale from the
**non-cherry** weights only:

- b ≤ 4 bits (``FullSymQuantizer``): s = (max|w| + 1e-6) / 2^(b−1), level L = round(clamp(w/s, −q, q) − 0.5)
  with q = 2^(b−1) − 0.01, value (L + 0.5)·s: 2^b half-integer levels, **no zero level**.
- b > 4 bits (``RestrictedSymQuantizer``): s = (max|w| + 1e-6) / (2^(b−1) − 1), L = clamp(round(w/s), ±(2^(b−1)−1)),
  value L·s.

No clipping. Rounding is half-to-even (``torch.round``, ``numpy.round`` and CUDA ``rint`` agree).
``quantize_reference`` (NumPy) is the reference of the CUDA kernel; ``fake_quantize`` (torch) is the same
arithmetic on tensors, used inside the models.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

EPS = 1e-6
BITS_RANGE = (2, 8)


# ---------------------------------------------------------------------------------------------- input checks
def check_bits(bits) -> int:
    """``bits`` as an int in 2..8. Raises TypeError for a non-integer, ValueError outside 2..8."""
    if isinstance(bits, bool) or not isinstance(bits, (int, np.integer)):
        raise TypeError(f"bits must be an integer in 2..8, got {bits!r}")
    if not BITS_RANGE[0] <= int(bits) <= BITS_RANGE[1]:
        raise ValueError(f"bits must be in 2..8, got {bits}")
    return int(bits)


def check_group_size(group_size, in_features: int) -> int:
    """``group_size`` as an int ≥ 1 that divides ``in_features`` (the row length).

    Raises
    ------
    TypeError for a non-integer; ValueError if it is < 1 or does not divide ``in_features``.
    """
    if isinstance(group_size, bool) or not isinstance(group_size, (int, np.integer)):
        raise TypeError(f"group_size must be a positive integer, got {group_size!r}")
    g = int(group_size)
    if g < 1 or in_features % g != 0:
        divisors = [d for d in (16, 32, 64, 128, 256) if in_features % d == 0]
        raise ValueError(f"group_size must be a positive divisor of the row length {in_features} "
                         f"(e.g. {divisors or [in_features]}), got {group_size}")
    return g


def check_fraction(cherry_fraction) -> float:
    """``cherry_fraction`` as a float in the open interval (0, 1); ValueError otherwise."""
    try:
        f = float(cherry_fraction)
    except (TypeError, ValueError):
        raise TypeError(f"cherry_fraction must be a number in (0, 1), got {cherry_fraction!r}") from None
    if not 0.0 < f < 1.0:
        raise ValueError(f"cherry_fraction must be in the open interval (0, 1), got {cherry_fraction}")
    return f


def check_weight(w) -> tuple[int, int]:
    """Shape (out, in) of a 2-D NumPy array or torch tensor; ValueError for any other number of dimensions."""
    shape = tuple(getattr(w, "shape", ()))
    if len(shape) != 2:
        raise ValueError(f"the weight must be a 2-D (out_features, in_features) matrix, got shape {shape}")
    if shape[0] < 1 or shape[1] < 1:
        raise ValueError(f"the weight must be non-empty, got shape {shape}")
    return shape


def check_cherries(cherry_idx, shape: tuple[int, int]) -> np.ndarray:
    """Cherry indices as an (out, k) int64 array with 0 ≤ k < in, values in [0, in), distinct within a row."""
    idx = np.asarray(cherry_idx.cpu() if hasattr(cherry_idx, "cpu") else cherry_idx)
    out, n = shape
    if idx.ndim != 2 or idx.shape[0] != out or idx.shape[1] >= n:
        raise ValueError(f"cherry_idx must have shape (out={out}, k) with k < in={n}, got {idx.shape}")
    if idx.size and not np.issubdtype(idx.dtype, np.integer):
        raise TypeError(f"cherry_idx must hold integers, got dtype {idx.dtype}")
    idx = idx.astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise ValueError(f"cherry_idx values must lie in [0, {n}), got range [{idx.min()}, {idx.max()}]")
    if idx.shape[1] > 1 and np.any(np.diff(np.sort(idx, axis=1), axis=1) == 0):
        raise ValueError("cherry_idx must not repeat a column within a row")
    return idx


# ---------------------------------------------------------------------------------------------- cherry selection
def num_cherries(in_features: int, cherry_fraction: float = 1 / 256, multiple: int = 8) -> int:
    """Cherries per row: ceil(in · fraction) rounded **down** to a multiple of ``multiple`` (official ``//8*8``).

    With the default 1/256 a 4096-wide row of LLaMA-2-7B gets 16; a row of 576 (SmolLM2) gets 0, which is
    why the chapter uses 1/64 there. ``multiple=1`` drops the rounding.

    Raises
    ------
    ValueError if ``in_features`` < 1, ``multiple`` < 1 or the fraction is outside (0, 1).
    """
    f = check_fraction(cherry_fraction)
    if int(in_features) < 1 or int(multiple) < 1:
        raise ValueError(f"in_features and multiple must be >= 1, got {in_features}, {multiple}")
    return math.ceil(int(in_features) * f) // int(multiple) * int(multiple)


def select_cherries(score, k: int) -> np.ndarray:
    """The k columns of largest ``score`` in every row (official ``argsort(descending)[:, :k]``).

    Parameters
    ----------
    score : (out, in) float array or tensor — the impact H_ii (Fisher diagonal), or |w| for the magnitude baseline.
    k : cherries per row, 0 ≤ k < in.

    Returns
    -------
    (out, k) int64 column indices, sorted by decreasing score (``torch.topk``; the order of exact ties is
    unspecified).
    """
    import torch

    s = torch.as_tensor(np.asarray(score.detach().cpu() if hasattr(score, "detach") else score, dtype=np.float64))
    out, n = check_weight(s)
    if not 0 <= int(k) < n:
        raise ValueError(f"k must be in [0, {n}), got {k}")
    if int(k) == 0:
        return np.zeros((out, 0), dtype=np.int64)
    return torch.topk(s, int(k), dim=1, sorted=True).indices.numpy().astype(np.int64)


def cherry_mask(cherry_idx, shape: tuple[int, int]) -> np.ndarray:
    """(out, in) bool mask, True at the cherries."""
    idx = check_cherries(cherry_idx, shape)
    mask = np.zeros(shape, dtype=bool)
    np.put_along_axis(mask, idx, True, axis=1)
    return mask


# ---------------------------------------------------------------------------------------------- the quantizer
@dataclass
class Quantized:
    """Result of :func:`quantize_reference`.

    weight : (out, in) float64 — quantize–dequantized weights, cherries unchanged (full precision).
    levels : (out, in − k) int32 — integer level of every non-cherry weight, in compacted row order.
    scales : (out, n_groups) float64 — one scale per group of the compacted row.
    """

    weight: np.ndarray
    levels: np.ndarray
    scales: np.ndarray


def level_range(bits: int) -> tuple[int, int]:
    """Smallest and largest integer level: (−2^(b−1), 2^(b−1)−1) for b ≤ 4 (the value is L + 0.5 times the
    scale), (−(2^(b−1)−1), 2^(b−1)−1) for b > 4 (value L times the scale)."""
    b = check_bits(bits)
    half = 2 ** (b - 1)
    return (-half, half - 1) if b <= 4 else (-(half - 1), half - 1)


def quantize_reference(w, bits: int, group_size: int, cherry_idx=None) -> Quantized:
    """Group-wise symmetric quantize–dequantize with cherries, in NumPy float64 (the CUDA kernel's reference).

    Parameters
    ----------
    w : (out, in) float array — one weight matrix (row = output neuron).
    bits : 2..8.   group_size : divides ``in``.   cherry_idx : (out, k) int columns kept in full precision, or None.

    Returns
    -------
    :class:`Quantized` (see the module docstring for the formulas).

    Raises
    ------
    ValueError for a non-2-D weight, bits outside 2..8, a group size that does not divide the row, or bad
    cherry indices; TypeError for non-integer bits / group size.
    """
    shape = check_weight(w)
    b = check_bits(bits)
    g = check_group_size(group_size, shape[1])
    w = np.asarray(w, dtype=np.float64)
    out, n = shape
    if cherry_idx is None:
        keep = np.ones(shape, dtype=bool)
    else:
        keep = ~cherry_mask(cherry_idx, shape)
    m = int(keep[0].sum())
    compact = w[keep].reshape(out, m)
    n_groups = -(-m // g)
    padded = np.zeros((out, n_groups * g))
    padded[:, :m] = compact
    grouped = padded.reshape(out, n_groups, g)
    absmax = np.abs(grouped).max(axis=2, keepdims=True)         # zero padding never raises the max
    half = 2.0 ** (b - 1)
    if b <= 4:
        s = (absmax + EPS) / half
        qmax = half - 1e-2
        levels = np.round(np.clip(grouped / s, -qmax, qmax) - 0.5)
        deq = (levels + 0.5) * s
    else:
        s = (absmax + EPS) / (half - 1.0)
        levels = np.clip(np.round(grouped / s), -(half - 1.0), half - 1.0)
        deq = levels * s
    result = w.copy()
    result[keep] = deq.reshape(out, -1)[:, :m].reshape(-1)
    return Quantized(weight=result, levels=levels.reshape(out, -1)[:, :m].astype(np.int32),
                     scales=s[:, :, 0])


def fake_quantize(w, bits: int, group_size: int, cherry_idx=None):
    """The same quantize–dequantize as :func:`quantize_reference`, on a torch tensor, without gradient.

    Parameters
    ----------
    w : (out, in) float tensor (any float dtype; computed in that dtype).
    cherry_idx : (out, k) int64 tensor/array or None.

    Returns
    -------
    (out, in) tensor of w's dtype: quantized weights, cherries unchanged. Used by PTQ and inside
    :class:`~neurips24.cherryq.qat.QuantLinear`, where the straight-through estimator adds the gradient.

    Raises
    ------
    As :func:`quantize_reference`.
    """
    import torch

    out, n = check_weight(w)
    b = check_bits(bits)
    g = check_group_size(group_size, n)
    with torch.no_grad():
        w = w.detach()
        if cherry_idx is None or (hasattr(cherry_idx, "shape") and cherry_idx.shape[-1] == 0):
            keep = None
            compact = w
        else:
            idx = cherry_idx if isinstance(cherry_idx, torch.Tensor) else torch.as_tensor(
                check_cherries(cherry_idx, (out, n)))
            keep = torch.ones_like(w, dtype=torch.bool).scatter(1, idx.to(w.device, torch.long), False)
            compact = w[keep].reshape(out, -1)
        m = compact.shape[1]
        n_groups = -(-m // g)
        if n_groups * g != m:
            compact = torch.nn.functional.pad(compact, (0, n_groups * g - m))
        grouped = compact.reshape(out, n_groups, g)
        absmax = grouped.abs().amax(dim=2, keepdim=True)
        half = 2.0 ** (b - 1)
        if b <= 4:
            s = (absmax + EPS) / half
            qmax = half - 1e-2
            deq = (torch.round(torch.clamp(grouped / s, -qmax, qmax) - 0.5) + 0.5) * s
        else:
            s = (absmax + EPS) / (half - 1.0)
            deq = torch.clamp(torch.round(grouped / s), -(half - 1.0), half - 1.0) * s
        deq = deq.reshape(out, -1)[:, :m]
        if keep is None:
            return deq.contiguous()
        result = w.clone()
        result[keep] = deq.reshape(-1)
        return result
