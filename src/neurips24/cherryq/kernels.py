"""The fused cherry quantize–dequantize kernel ``cherry_quant.cu`` and its use (book's own).

One CUDA thread handles one group of one compacted row: it walks the row skipping the (sorted) cherry columns,
takes the absmax of its group, then writes the levels and the dequantized weights; the cherries are copied
unchanged. :func:`~neurips24.cherryq.quantizer.quantize_reference` (NumPy float64) is the reference: levels and
scales equal bit for bit.
"""
from __future__ import annotations

import time
from functools import partial

import numpy as np

from ..backend import cupy_or_none
from .quantizer import Quantized, check_bits, check_cherries, check_group_size, check_weight, quantize_reference


def quantize_kernel(w, bits: int, group_size: int, cherry_idx=None, block: int = 256) -> Quantized:
    """:func:`~neurips24.cherryq.quantizer.quantize_reference` as one launch of ``cherry_quant`` (CuPy arrays).

    Parameters
    ----------
    w : (out, in) float64 CuPy or NumPy array (moved to the GPU).   bits, group_size, cherry_idx : as the reference.

    Returns
    -------
    :class:`Quantized` holding CuPy arrays.

    Raises
    ------
    RuntimeError without CuPy and a GPU; the reference's ValueError/TypeError for bad input.
    """
    cp = cupy_or_none()
    if cp is None:
        raise RuntimeError("the cherry_quant kernel needs CuPy and a CUDA GPU; use quantize_reference on the CPU")
    from ..cuda import raw_kernel

    out, n = check_weight(w)
    b = check_bits(bits)
    g = check_group_size(group_size, n)
    idx = np.zeros((out, 0), np.int64) if cherry_idx is None else np.sort(check_cherries(
        cherry_idx.get() if hasattr(cherry_idx, "get") else cherry_idx, (out, n)), axis=1)
    k = idx.shape[1]
    m = n - k
    n_groups = -(-m // g)
    wd = cp.ascontiguousarray(cp.asarray(w, dtype=cp.float64))
    cd = cp.asarray(idx if k else np.zeros((out, 1), np.int64))
    w_out = cp.empty_like(wd)
    levels = cp.empty((out, m), dtype=cp.int32)
    scales = cp.empty((out, n_groups), dtype=cp.float64)
    total = out * n_groups
    grid = max(1, min((total + block - 1) // block, 65535))
    raw_kernel("neurips24.cherryq", "cherry_quant.cu", "cherry_quant")(
        (grid,), (block,), (wd, cd, w_out, levels, scales, np.int64(out), np.int64(n), np.int64(k), np.int64(g),
                            np.int32(b)))
    return Quantized(weight=w_out, levels=levels, scales=scales)


def bench_cherry_quant(sizes=((1536, 576), (576, 1536)), bits: int = 3, group_size: int = 64,
                       cherry_fraction: float = 1 / 64, repeats: int = 5, seed: int = 0) -> list:
    """Time the fused quantizer on SmolLM2-shaped matrices: NumPy reference (CPU), torch, and the kernel (GPU).

    Rows are (name, seconds per matrix, bytes), like ``benchmarks/kernels.py``'s ``bench_mode_mix``; bytes =
    what one pass must read and write: w (8 B) + w_out (8 B) + level (4 B) per weight, + the cherry indices.

    Raises
    ------
    ValueError for an empty size list, a size that is not (out, in) with positive entries, or repeats < 1.
    """
    import torch

    from .quantizer import fake_quantize, num_cherries, select_cherries

    if not sizes or any(len(s) != 2 or int(s[0]) < 1 or int(s[1]) < 1 for s in sizes):
        raise ValueError(f"sizes must be a non-empty list of (out, in) pairs of positive integers, got {sizes!r}")
    if int(repeats) < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    rng = np.random.default_rng(seed)
    rows = []
    cp = cupy_or_none()
    for out, n in sizes:
        w = rng.standard_normal((out, n))
        k = num_cherries(n, cherry_fraction)
        idx = select_cherries(rng.random((out, n)), k)
        nbytes = float(out * n * 20 + idx.size * 8)

        name = f"{out}x{n}"
        rows.append((f"numpy reference (CPU) {name}",
                     _timed(partial(quantize_reference, w, bits, group_size, idx), repeats), nbytes))
        wt, it = torch.as_tensor(w), torch.as_tensor(idx)
        rows.append((f"torch (CPU) {name}", _timed(partial(fake_quantize, wt, bits, group_size, it), repeats), nbytes))
        if cp is not None:
            sync = cp.cuda.Device().synchronize
            rows.append((f"cupy kernel (GPU) {name}",
                         _timed(partial(quantize_kernel, cp.asarray(w), bits, group_size, idx), repeats, sync), nbytes))
            if torch.cuda.is_available():
                fn = partial(fake_quantize, wt.cuda(), bits, group_size, it.cuda())
                rows.append((f"torch (GPU) {name}", _timed(fn, repeats, torch.cuda.synchronize), nbytes))
    return rows


def _timed(fn, repeats: int, sync=lambda: None) -> float:
    """Mean seconds of ``fn()`` over ``repeats`` calls, after one warm-up call."""
    fn()
    sync()
    t0 = time.perf_counter()
    for _ in range(repeats):
        fn()
    sync()
    return (time.perf_counter() - t0) / repeats


def kernel_parity(out: int = 1536, n: int = 576, group_size: int = 64, cherry_fraction: float = 1 / 64,
                  seed: int = 0) -> dict | None:
    """Compare the kernel with the NumPy reference at 2–8 bits on a random matrix with random cherries.

    Returns
    -------
    None without a GPU; otherwise bits -> (number of differing levels, max |Δ weight|, max |Δ scale|).
    """
    cp = cupy_or_none()
    if cp is None:
        return None
    from .quantizer import num_cherries, select_cherries

    rng = np.random.default_rng(seed)
    w = rng.standard_normal((out, n)) * rng.gamma(1.0, 1.0, (out, 1))
    idx = select_cherries(rng.random((out, n)), num_cherries(n, cherry_fraction))
    res = {}
    for bits in range(2, 9):
        ref = quantize_reference(w, bits, group_size, idx)
        gpu = quantize_kernel(w, bits, group_size, idx)
        res[bits] = (int(np.sum(gpu.levels.get() != ref.levels)), float(np.max(np.abs(gpu.weight.get() - ref.weight))),
                     float(np.max(np.abs(gpu.scales.get() - ref.scales))))
    return res
