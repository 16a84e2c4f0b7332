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

Two more grids, for the baselines a quantization reader expects (book's own, not in the official code):

- ``grid="zero-level"``: the symmetric grid **with** a zero level, s = (max|w| + 1e-6) / (2^(b−1) − 1),
  L = clamp(round(w/s), ±(2^(b−1)−1)), value L·s (the official b > 4 formula, used at any b: 2^b − 1 levels).
- ``grid="zero-point"``: asymmetric min–max round-to-nearest with a zero point (the RTN of the quantization
  literature, e.g. GPTQ's and AWQ's baselines): s = max(max w − min w, 1e-6) / (2^b − 1), z = round(−min w / s),
  L = clamp(round(w/s) + z, 0, 2^b − 1), value (L − z)·s: 2^b levels spanning [min w, max w], zero exact.

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
GRIDS = ("official", "zero-level", "zero-point")


def _is_int(x) -> bool:
    return not isinstance(x, bool) and isinstance(x, (int, np.integer))


def check_bits(bits) -> int:
    """``bits`` as an int in 2..8. Raises TypeError for a non-integer, ValueError outside 2..8."""
    if not _is_int(bits):
        raise TypeError(f"bits must be an integer in 2..8, got {bits!r}")
    if not BITS_RANGE[0] <= int(bits) <= BITS_RANGE[1]:
        raise ValueError(f"bits must be in 2..8, got {bits}")
    return int(bits)


def check_grid(grid) -> str:
    """``grid`` as one of 'official', 'zero-level', 'zero-point'; ValueError otherwise."""
    if grid not in GRIDS:
        raise ValueError(f"grid must be one of {GRIDS}, got {grid!r}")
    return grid


def check_group_size(group_size, in_features: int) -> int:
    """``group_size`` as an int ≥ 1 that divides ``in_features`` (the row length).

    Raises
    ------
    TypeError for a non-integer; ValueError if it is < 1 or does not divide ``in_features``.
    """
    if not _is_int(group_size):
        raise TypeError(f"group_size must be a positive integer, got {group_size!r}")
    g = int(group_size)
    if g < 1 or in_features % g != 0:
        divisors = [d for d in (16, 32, 64, 128, 256) if in_features % d == 0]
        raise ValueError(f"group_size must be a positive divisor of the row length {in_features} "
                         f"(e.g. {divisors or [in_features]}), got {group_size}")
    return g


def check_fraction(cherry_fraction) -> float:
    """``cherry_fraction`` as a float in the open interval (0, 1).

    Raises
    ------
    TypeError for anything but a real number (a string such as '0.01' included); ValueError outside (0, 1)
    or for NaN.
    """
    if isinstance(cherry_fraction, bool) or not isinstance(cherry_fraction, (int, float, np.integer, np.floating)):
        raise TypeError(f"cherry_fraction must be a number in (0, 1), got {cherry_fraction!r}")
    f = float(cherry_fraction)
    if not 0.0 < f < 1.0:
        raise ValueError(f"cherry_fraction must be in the open interval (0, 1), got {cherry_fraction}")
    return f


def array_module(w):
    """The array library that owns ``w``: CuPy for a CuPy array, NumPy otherwise (lists, NumPy arrays).

    A CuPy array refuses implicit conversion to NumPy (``np.asarray`` raises TypeError), so every check of an
    array that may live on the GPU runs in its own library: the same code on the CPU and on the GPU.
    """
    if type(w).__module__.split(".")[0] == "cupy":
        import cupy

        return cupy
    return np


def check_weight(w, name: str = "the weight") -> tuple[int, int]:
    """Shape (out, in) of a 2-D real, finite NumPy array, CuPy array (checked on its device, see
    :func:`array_module`) or torch tensor.

    Raises
    ------
    ValueError for another number of dimensions, an empty matrix or a NaN/inf entry (one NaN would turn its
    whole group into NaN); TypeError for complex or non-numeric entries.
    """
    shape = tuple(getattr(w, "shape", ()))
    if len(shape) != 2:
        raise ValueError(f"{name} must be a 2-D (out_features, in_features) matrix, got shape {shape}")
    if shape[0] < 1 or shape[1] < 1:
        raise ValueError(f"{name} must be non-empty, got shape {shape}")
    if hasattr(w, "is_complex"):                      # a torch tensor
        import torch

        if w.is_complex() or w.dtype == torch.bool:
            raise TypeError(f"{name} must be real, got dtype {w.dtype}")
        finite = bool(torch.isfinite(w).all()) if w.is_floating_point() else True
    else:
        xp = array_module(w)
        a = xp.asarray(w)
        if not (np.issubdtype(a.dtype, np.floating) or np.issubdtype(a.dtype, np.integer)):
            raise TypeError(f"{name} must be real numbers, got dtype {a.dtype}")
        finite = bool(xp.isfinite(a).all())
    if not finite:
        raise ValueError(f"{name} must be finite: it holds NaN or inf")
    return shape


def check_cherries(cherry_idx, shape: tuple[int, int]) -> np.ndarray:
    """Cherry indices (NumPy array, list or torch tensor) as an (out, k) int64 array with 0 ≤ k < in,
    values in [0, in), distinct within a row.

    Raises
    ------
    ValueError for a wrong shape, an index out of range or a repeated column; TypeError for non-integers.
    """
    idx = np.asarray(cherry_idx.detach().cpu() if hasattr(cherry_idx, "detach") else cherry_idx)
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
    ValueError if ``in_features`` < 1, ``multiple`` < 1 or the fraction is outside (0, 1); TypeError if
    ``in_features`` or ``multiple`` is not an integer (3.7 is not truncated to 3) or the fraction not a number.
    """
    f = check_fraction(cherry_fraction)
    if not _is_int(in_features) or not _is_int(multiple):
        raise TypeError(f"in_features and multiple must be integers, got {in_features!r}, {multiple!r}")
    if int(in_features) < 1 or int(multiple) < 1:
        raise ValueError(f"in_features and multiple must be >= 1, got {in_features}, {multiple}")
    return math.ceil(int(in_features) * f) // int(multiple) * int(multiple)


def select_cherries(score, k: int) -> np.ndarray:
    """The k columns of largest ``score`` in every row (official ``argsort(descending)[:, :k]``).

    Parameters
    ----------
    score : (out, in) float array or tensor — the impact H_ii (Fisher diagonal), or |w| for the magnitude baseline.
    k : cherries per row, 0 ≤ k < in.

    Raises
    ------
    ValueError for a NaN/inf score (it would be ranked first) or k outside [0, in); TypeError for a non-integer k.

    Returns
    -------
    (out, k) int64 column indices, sorted by decreasing score (``torch.topk``; the order of exact ties is
    unspecified).
    """
    import torch

    out, n = check_weight(score, "score")
    if not _is_int(k):
        raise TypeError(f"k must be an integer, got {k!r}")
    if not 0 <= int(k) < n:
        raise ValueError(f"k must be in [0, {n}), got {k}")
    if int(k) == 0:
        return np.zeros((out, 0), dtype=np.int64)
    s = score.detach().cpu() if hasattr(score, "detach") else torch.as_tensor(np.asarray(score, dtype=np.float64))
    if out > 1 and s.stride(0) == 0:                # one row broadcast to all (the activation score): rank it once
        return torch.topk(s[0], int(k), sorted=True).indices.numpy().astype(np.int64)[None].repeat(out, axis=0)
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


def level_range(bits: int, grid: str = "official") -> tuple[int, int]:
    """Smallest and largest integer level: (−2^(b−1), 2^(b−1)−1) for the official grid at b ≤ 4 (value
    (L + 0.5)·s), (−(2^(b−1)−1), 2^(b−1)−1) for the official grid at b > 4 and for 'zero-level' (value L·s),
    (0, 2^b − 1) for 'zero-point' (value (L − z)·s)."""
    b, grid = check_bits(bits), check_grid(grid)
    half = 2 ** (b - 1)
    if grid == "zero-point":
        return 0, 2 ** b - 1
    return (-half, half - 1) if grid == "official" and b <= 4 else (-(half - 1), half - 1)


def _grid_numpy(grouped, b: int, grid: str):
    """Levels, scales and dequantized values of (out, n_groups, G) groups (NumPy float64)."""
    half = 2.0 ** (b - 1)
    if grid == "zero-point":                                    # asymmetric min-max, zero point z
        lo, hi = grouped.min(axis=2, keepdims=True), grouped.max(axis=2, keepdims=True)
        s = np.maximum(hi - lo, EPS) / (2.0 ** b - 1)
        z = np.round(-lo / s)
        levels = np.clip(np.round(grouped / s) + z, 0, 2.0 ** b - 1)
        return levels, s, (levels - z) * s
    absmax = np.abs(grouped).max(axis=2, keepdims=True)
    if grid == "official" and b <= 4:                          # FullSymQuantizer: half-integer levels, no zero
        s = (absmax + EPS) / half
        qmax = half - 1e-2
        levels = np.round(np.clip(grouped / s, -qmax, qmax) - 0.5)
        return levels, s, (levels + 0.5) * s
    s = (absmax + EPS) / (half - 1.0)                           # RestrictedSymQuantizer: with a zero level
    levels = np.clip(np.round(grouped / s), -(half - 1.0), half - 1.0)
    return levels, s, levels * s


def quantize_reference(w, bits: int, group_size: int, cherry_idx=None, grid: str = "official") -> Quantized:
    """Group-wise quantize–dequantize with cherries, in NumPy float64 (the CUDA kernel's reference).

    Parameters
    ----------
    w : (out, in) real, finite float array — one weight matrix (row = output neuron).
    bits : 2..8.   group_size : divides ``in``.   cherry_idx : (out, k) int columns kept in full precision, or None.
    grid : 'official' (the paper's code; the CUDA kernel), 'zero-level' or 'zero-point' (module docstring).

    Returns
    -------
    :class:`Quantized` (see the module docstring for the formulas).

    Raises
    ------
    ValueError for a non-2-D or non-finite weight, bits outside 2..8, a group size that does not divide the row,
    bad cherry indices or an unknown grid; TypeError for complex weights or non-integer bits / group size.
    """
    shape = check_weight(w)
    b, grid = check_bits(bits), check_grid(grid)
    g = check_group_size(group_size, shape[1])
    w = np.asarray(w, dtype=np.float64)
    out, n = shape
    keep = np.ones(shape, dtype=bool) if cherry_idx is None else ~cherry_mask(cherry_idx, shape)
    m = int(keep[0].sum())
    compact = w[keep].reshape(out, m)                           # the cherries set aside, rows compacted
    n_groups = -(-m // g)                                       # the last group of a row may be shorter:
    padded = np.pad(compact, ((0, 0), (0, n_groups * g - m)), mode="edge")   # repeat its last weight
    levels, s, deq = _grid_numpy(padded.reshape(out, n_groups, g), b, grid)
    result = w.copy()
    result[keep] = deq.reshape(out, -1)[:, :m].reshape(-1)      # scatter back; cherries untouched
    return Quantized(weight=result, levels=levels.reshape(out, -1)[:, :m].astype(np.int32),
                     scales=s[:, :, 0])


def fake_quantize(w, bits: int, group_size: int, cherry_idx=None, grid: str = "official"):
    """The same quantize–dequantize as :func:`quantize_reference`, on a torch tensor, without gradient.

    Parameters
    ----------
    w : (out, in) real, finite float tensor (any float dtype; computed in that dtype).
    cherry_idx : (out, k) int64 tensor/array or None (validated like an array, tensors included).
    grid : 'official', 'zero-level' or 'zero-point'.

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
    b, grid = check_bits(bits), check_grid(grid)
    g = check_group_size(group_size, n)
    idx = None if cherry_idx is None else torch.as_tensor(check_cherries(cherry_idx, (out, n)), device=w.device)
    return fake_quantize_unchecked(w, b, g, keep_columns(idx, (out, n)), grid)


def keep_columns(cherry_idx, shape: tuple[int, int]):
    """(out, in − k) int64 tensor: the non-cherry columns of every row, in increasing order (None if k = 0).

    ``cherry_idx`` is a validated (out, k) int64 tensor or None. Gathering these columns compacts the rows.
    """
    import torch

    if cherry_idx is None or cherry_idx.shape[-1] == 0:
        return None
    c = torch.sort(cherry_idx.long(), dim=1).values                  # c_1 < ... < c_k in each row
    k = c.shape[1]
    before = c - torch.arange(k, device=c.device)                    # kept columns before cherry i: c_i − i
    j = torch.arange(shape[1] - k, device=c.device).expand(shape[0], -1).contiguous()
    return j + torch.searchsorted(before, j, right=True)             # the j-th kept column skips the cherries


def fake_quantize_unchecked(w, b: int, g: int, keep, grid: str):
    """:func:`fake_quantize` without the input checks. ``keep`` marks the non-cherry weights: None (no cherries),
    an (out, in) bool mask (one-shot use), or :func:`keep_columns` of the cherries, an index that
    :class:`~neurips24.cherryq.qat.QuantLinear` builds once and reuses at every forward pass."""
    import torch

    out = w.shape[0]
    with torch.no_grad():
        w = w.detach()
        if keep is None:
            compact = w
        elif keep.dtype == torch.bool:                                        # the cherries set aside
            compact = w[keep].reshape(out, -1)
        else:
            compact = w.gather(1, keep.to(w.device))
        m = compact.shape[1]
        n_groups = -(-m // g)
        if n_groups * g != m:                                   # repeat the last weight (as the reference)
            compact = torch.cat([compact, compact[:, -1:].expand(out, n_groups * g - m)], dim=1)
        grouped = compact.reshape(out, n_groups, g)
        half = 2.0 ** (b - 1)
        if grid == "zero-point":                    # in-place chains: the same operations, fewer copies
            lo, hi = grouped.amin(dim=2, keepdim=True), grouped.amax(dim=2, keepdim=True)
            s = torch.clamp(hi - lo, min=EPS) / (2.0 ** b - 1)
            z = torch.round(-lo / s)
            deq = grouped.div(s).round_().add_(z).clamp_(0, 2.0 ** b - 1).sub_(z).mul_(s)
        elif grid == "official" and b <= 4:
            s = (grouped.abs().amax(dim=2, keepdim=True) + EPS) / half
            qmax = half - 1e-2
            deq = grouped.div(s).clamp_(-qmax, qmax).sub_(0.5).round_().add_(0.5).mul_(s)
        else:
            s = (grouped.abs().amax(dim=2, keepdim=True) + EPS) / (half - 1.0)
            deq = grouped.div(s).round_().clamp_(-(half - 1.0), half - 1.0).mul_(s)
        deq = deq.reshape(out, -1)[:, :m]
        if keep is None:
            return deq.contiguous()
        if keep.dtype == torch.bool:
            return w.masked_scatter(keep, deq)                  # row-major order: back into place
        return w.scatter(1, keep.to(w.device), deq)             # scatter back; cherries untouched
