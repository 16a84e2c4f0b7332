"""Fused causal attention that also returns the attention maps (CUDA kernel ``causal_attention.cu``), beside its
torch reference. The chapter's metrics (Cabannes et al. 2024, §4) read the maps of every test sequence; at full
scale (T = 35, thousands of sequences per evaluation) the kernel computes maps and outputs in one pass.

The model's attention (:meth:`neurips24.iteration_heads.model.EnsembleTransformer.attention`) goes through
:func:`causal_attention`: the kernel when the tensors are on a GPU, CuPy is installed and no gradient is needed
(evaluation: every epoch's accuracy and attention scores), the torch reference otherwise (training, the CPU).
"""
from __future__ import annotations

import math
import time

import numpy as np
import torch

from ..backend import cupy_or_none


def _check_qkv(q, k, v):
    shapes = {tuple(t.shape) for t in (q, k, v)}
    if len(shapes) != 1 or len(q.shape) != 3:
        raise ValueError(f"q, k, v must share one shape (G, T, dh), got {[tuple(t.shape) for t in (q, k, v)]}")
    G, T, dh = q.shape
    if not 1 <= T <= 1024 or dh < 1:
        raise ValueError(f"q must have 1 <= T <= 1024 and dh >= 1, got T = {T}, dh = {dh}")


def attention_reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor):
    """Causal softmax attention, one map per row g (torch; the kernel's reference).

    A[g] = softmax(q[g] k[g]ᵀ / √dh) with the entries above the diagonal masked, z[g] = A[g] v[g].

    Parameters
    ----------
    q, k, v : (G, T, dh) float32 tensors (G = models × sequences × heads).

    Returns
    -------
    (z, A) : (G, T, dh) and (G, T, T) float32.

    Raises
    ------
    ValueError if the shapes differ or T is outside [1, 1024].
    """
    _check_qkv(q, k, v)
    T, dh = q.shape[1], q.shape[2]
    scores = q @ k.transpose(-1, -2) / math.sqrt(dh)
    causal = torch.ones(T, T, dtype=torch.bool, device=q.device).tril()
    A = scores.masked_fill(~causal, float("-inf")).softmax(dim=-1)
    return A @ v, A


def fused_attention(q, k, v):
    """The CUDA kernel on CuPy float32 arrays (G, T, dh): returns (z, A) as CuPy arrays, like
    :func:`attention_reference`. Raises RuntimeError without CuPy, ValueError as the reference."""
    cp = cupy_or_none()
    if cp is None:
        raise RuntimeError("fused_attention needs CuPy and a GPU; use attention_reference on the CPU")
    _check_qkv(q, k, v)
    from ..cuda import raw_kernel

    q, k, v = (cp.ascontiguousarray(cp.asarray(t, dtype=cp.float32)) for t in (q, k, v))
    G, T, dh = q.shape
    A = cp.empty((G, T, T), dtype=cp.float32)
    z = cp.empty((G, T, dh), dtype=cp.float32)
    threads = 32 * ((T + 31) // 32)
    raw_kernel("neurips24.iteration_heads", "causal_attention.cu", "causal_attention")(
        (G,), (threads,), (q, k, v, A, z, np.int32(T), np.int32(dh)))
    return z, A


def use_kernel(q: torch.Tensor) -> bool:
    """Whether :func:`causal_attention` runs the CUDA kernel on ``q``: a float32 CUDA tensor, no gradient
    recorded (``torch.no_grad()``), and CuPy importable."""
    return (q.is_cuda and q.dtype == torch.float32 and not (torch.is_grad_enabled() and q.requires_grad)
            and cupy_or_none() is not None)


def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor):
    """Causal attention with its maps, (G, T, dh) float32 tensors → (z (G, T, dh), A (G, T, T)), as
    :func:`attention_reference`; through the CUDA kernel when :func:`use_kernel` says so (the tensors go to CuPy
    and back by DLPack, without a copy), else the reference.

    Raises
    ------
    ValueError as :func:`attention_reference`.
    """
    if not use_kernel(q):
        return attention_reference(q, k, v)
    cp = cupy_or_none()
    z, A = fused_attention(*(cp.from_dlpack(t.detach().contiguous()) for t in (q, k, v)))
    return torch.from_dlpack(z), torch.from_dlpack(A)


def _inputs(G, T, dh, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(G, T, dh, generator=g) for _ in range(3)]


def bench_attention(G: int = 4096, T: int = 35, dh: int = 128) -> list[tuple[str, float, float]]:
    """Time one attention pass with maps on (G, T, dh): torch on the CPU, and with a GPU the kernel and torch.

    Returns rows (name, seconds, bytes) like ``benchmarks/kernels.py``'s: bytes = q, k, v read and z, A written.
    """
    q, k, v = _inputs(G, T, dh)
    nbytes = float(4 * G * T * (4 * dh + T))
    rows = []
    t = time.perf_counter()
    attention_reference(q, k, v)
    rows.append((f"iteration_heads.attention torch (CPU) G={G} T={T} dh={dh}", time.perf_counter() - t, nbytes))
    cp = cupy_or_none()
    if cp is not None:
        qd, kd, vd = (cp.asarray(t.numpy()) for t in (q, k, v))
        fused_attention(qd, kd, vd)
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        fused_attention(qd, kd, vd)
        cp.cuda.Device().synchronize()
        rows.append((f"iteration_heads.attention cuda kernel (GPU) G={G} T={T} dh={dh}", time.perf_counter() - t,
                     nbytes))
        if torch.cuda.is_available():
            qt, kt, vt = (t.cuda() for t in (q, k, v))
            attention_reference(qt, kt, vt)
            torch.cuda.synchronize()
            t = time.perf_counter()
            attention_reference(qt, kt, vt)
            torch.cuda.synchronize()
            rows.append((f"iteration_heads.attention torch (GPU) G={G} T={T} dh={dh}", time.perf_counter() - t,
                         nbytes))
    return rows


def kernel_check(G: int = 512, T: int = 35, dh: int = 32):
    """Kernel vs reference: None without a GPU, else a dict with 'max_abs_diff_A', 'max_abs_diff_z' and the
    rows of :func:`bench_attention` at the chapter's full-scale sizes."""
    cp = cupy_or_none()
    if cp is None:
        return None
    q, k, v = _inputs(G, T, dh, seed=1)
    z_ref, A_ref = attention_reference(q, k, v)
    z, A = fused_attention(*(cp.asarray(t.numpy()) for t in (q, k, v)))
    return {"max_abs_diff_A": float(np.abs(cp.asnumpy(A) - A_ref.numpy()).max()),
            "max_abs_diff_z": float(np.abs(cp.asnumpy(z) - z_ref.numpy()).max()),
            "bench": bench_attention()}
