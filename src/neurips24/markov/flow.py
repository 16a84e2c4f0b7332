"""Batched gradient flow of the reduced model over a grid of initialisations (book's own; paper §4).

Every initialisation (e₀, w₀) is advanced at once by explicit Euler steps of size ``lr`` (= gradient descent
on the population loss). Two variants:

- ``bias='optimal'``: b is held at b*(e, w) at every step (the flow on which the energy E is conserved);
- ``bias='free'``: b is a third parameter, started at b*(e₀, w₀) unless ``b0`` is given.

:func:`gradient_flow_reference` is the float64 NumPy reference; on CuPy arrays :func:`gradient_flow` runs the
CUDA kernel ``flow.cu``, one thread per initialisation, with the same arithmetic in the same order.
"""
from __future__ import annotations

import time

import numpy as np

from ..backend import cupy_or_none, to_numpy
from .chain import check_pq, stationary
from .reduced import loss, optimal_bias

BIAS_MODES = ("optimal", "free")


def _check_flow_args(lr, steps, bias):
    if isinstance(lr, bool) or not isinstance(lr, (int, float, np.integer, np.floating)) or not np.isfinite(lr) \
            or not lr > 0:
        raise ValueError(f"lr must be a finite number > 0, got {lr!r}")
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:
        raise ValueError(f"steps must be an integer >= 0, got {steps!r}")
    if bias not in BIAS_MODES:
        raise ValueError(f"bias must be one of {BIAS_MODES}, got {bias!r}")


def _sigmoid(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _step(e, w, b, p, q, pi0, pi1, lr, bias):
    """One Euler step; the kernel ``flow.cu`` does exactly these operations."""
    if bias == "optimal":
        b = optimal_bias(e, w, p, q)
    e2 = e * e
    ww = 2.0 * w * np.abs(w)
    f1 = e2 * (0.5 + ww) + b
    f0 = b - 0.5 * e2
    g1 = pi1 * (_sigmoid(f1) - (1.0 - q))
    g0 = pi0 * (_sigmoid(f0) - p)
    ge = 2.0 * e * (0.5 + ww) * g1 - e * g0
    gw = 4.0 * np.abs(w) * e2 * g1
    if bias == "free":
        b = b - lr * (g1 + g0)
    return e - lr * ge, w - lr * gw, b


def gradient_flow_reference(e0, w0, p: float, q: float, *, lr: float = 0.02, steps: int = 10_000,
                            bias: str = "optimal", b0=None):
    """Run ``steps`` gradient-descent steps of size ``lr`` from every (e₀, w₀) at once (NumPy, float64).

    Parameters
    ----------
    e0, w0 : (n,) or any shape (broadcast together), float64 initial embedding norm e and MLP weight w.
    p, q : switching probabilities in (0, 1).
    lr : step size > 0 (time step of the Euler scheme). Steps above ~0.1 can jump the invariant line w = 0.
    steps : number of steps >= 0.
    bias : 'optimal' (b = b*(e, w) at every step) or 'free' (b trained too).
    b0 : initial b for bias='free' (default b*(e₀, w₀)); ignored for 'optimal'.

    Returns
    -------
    dict with float64 arrays of the broadcast shape: 'e', 'w', 'b' (final parameters) and 'loss'
    (final population loss, nats).

    Raises
    ------
    ValueError if p, q are outside (0, 1), lr is not finite and > 0, steps < 0, bias is unknown, e0, w0 or b0
    hold NaN or inf, or the flow diverges (lr too large for the landscape: some parameter or loss became
    non-finite); TypeError if e0, w0 or b0 is not numeric.
    """
    p, q = check_pq(p, q)
    _check_flow_args(lr, steps, bias)
    pi0, pi1 = stationary(p, q)
    e, w = np.broadcast_arrays(_finite_array("e0", e0), _finite_array("w0", w0))
    e, w = e.copy(), w.copy()
    b = optimal_bias(e, w, p, q) if (b0 is None or bias == "optimal") else np.broadcast_to(
        _finite_array("b0", b0), e.shape).copy()
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(steps):
            e, w, b = _step(e, w, b, p, q, pi0, pi1, float(lr), bias)
        if bias == "optimal":
            b = optimal_bias(e, w, p, q)
        out = {"e": e, "w": w, "b": b, "loss": loss(e, w, b, p, q)}
    _check_diverged(out, lr)
    return out


def _finite_array(name, value) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be an array of real numbers, got {type(value).__name__}") from exc
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return arr


def _check_diverged(out, lr):
    """A flow whose parameters or loss left the finite numbers diverged: its 'loss' must not be read as a
    minimum (a NaN compares False with every threshold, which a portrait would count as 'local')."""
    xp = np if isinstance(out["loss"], np.ndarray) or np.isscalar(out["loss"]) else cupy_or_none()
    bad = ~(xp.isfinite(out["e"]) & xp.isfinite(out["w"]) & xp.isfinite(out["b"]) & xp.isfinite(out["loss"]))
    n_bad = int(bad.sum())
    if n_bad:
        raise ValueError(f"lr={lr!r} is too large: the flow diverged (non-finite parameters or loss) from "
                         f"{n_bad} of {bad.size} initialisations; use a smaller lr (the explicit Euler step is "
                         f"stable only while lr times the loss's curvature stays below 2)")


def gradient_flow(e0, w0, p: float, q: float, *, lr: float = 0.02, steps: int = 10_000, bias: str = "optimal",
                  b0=None):
    """:func:`gradient_flow_reference` on NumPy input; the CUDA kernel ``flow.cu`` on CuPy input.

    Same parameters, returns and errors as the reference; on a GPU the arrays returned are CuPy's, and
    'loss' is evaluated by the kernel too.
    """
    cp = cupy_or_none()
    if cp is None or not isinstance(e0, cp.ndarray):
        return gradient_flow_reference(e0, w0, p, q, lr=lr, steps=steps, bias=bias, b0=b0)
    p, q = check_pq(p, q)
    _check_flow_args(lr, steps, bias)
    if not (bool(cp.isfinite(e0).all()) and bool(cp.isfinite(cp.asarray(w0)).all())):
        raise ValueError("e0 and w0 must be finite (no NaN or inf)")
    from ..cuda import raw_kernel

    e, w = cp.broadcast_arrays(cp.asarray(e0, dtype=cp.float64), cp.asarray(w0, dtype=cp.float64))
    e, w = cp.ascontiguousarray(e).copy(), cp.ascontiguousarray(w).copy()
    if bias == "free" and b0 is not None:
        b = cp.ascontiguousarray(cp.broadcast_to(cp.asarray(b0, dtype=cp.float64), e.shape)).copy()
        have_b = 1
    else:
        b = cp.zeros_like(e)
        have_b = 0
    out_loss = cp.empty_like(e)
    pi0, pi1 = stationary(p, q)
    n = e.size
    threads = 128
    blocks = (n + threads - 1) // threads
    raw_kernel("neurips24.markov", "flow.cu", "reduced_flow")(
        (blocks,), (threads,),
        (e, w, b, out_loss, np.int64(n), np.float64(p), np.float64(q), np.float64(pi0), np.float64(pi1),
         np.float64(lr), np.int64(steps), np.int32(bias == "free"), np.int32(have_b)))
    out = {"e": e, "w": w, "b": b, "loss": out_loss}
    _check_diverged(out, lr)
    return out


def bench_flow(sizes=((64, 1000), (512, 1000))) -> list[tuple[str, float, float]]:
    """Time the flow on an n × n grid for ``steps`` steps: NumPy reference (CPU) and, with a GPU, the kernel.

    Parameters
    ----------
    sizes : iterable of (n, steps): grid side n (n² initialisations) and number of steps.

    Returns
    -------
    list of (name, seconds, bytes) rows, like ``benchmarks/kernels.py``'s ``bench_mode_mix``: name says the
    backend and size, seconds is one call, bytes the parameter state read and written per step times steps
    (3 float64 in, 3 out per initialisation). Initialisations × steps per second = n² · steps / seconds.
    """
    rows = []
    cp = cupy_or_none()
    for n, steps in sizes:
        grid = np.linspace(-2.0, 2.0, n)
        w0, e0 = np.meshgrid(grid, grid)
        nbytes = float(48 * n * n * steps)
        t = time.perf_counter()
        gradient_flow_reference(e0, w0, 0.9, 0.9, lr=0.02, steps=steps)
        rows.append((f"markov.flow numpy (CPU) {n}x{n}x{steps}", time.perf_counter() - t, nbytes))
        if cp is not None:
            e_d, w_d = cp.asarray(e0), cp.asarray(w0)
            gradient_flow(e_d, w_d, 0.9, 0.9, lr=0.02, steps=10)
            cp.cuda.Device().synchronize()
            t = time.perf_counter()
            gradient_flow(e_d, w_d, 0.9, 0.9, lr=0.02, steps=steps)
            cp.cuda.Device().synchronize()
            rows.append((f"markov.flow cuda kernel (GPU) {n}x{n}x{steps}", time.perf_counter() - t, nbytes))
    return rows


def kernel_check(n: int = 64, steps: int = 2000):
    """Kernel vs reference on an n × n grid at (p, q) = (0.9, 0.9): None without a GPU, else a dict with
    'max_abs_diff' (final e, w, loss), 'numpy_s', 'gpu_s' and 'inits_steps_per_s' for each."""
    cp = cupy_or_none()
    if cp is None:
        return None
    grid = np.linspace(-2.0, 2.0, n)
    w0, e0 = np.meshgrid(grid, grid)
    t = time.perf_counter()
    ref = gradient_flow_reference(e0, w0, 0.9, 0.9, lr=0.02, steps=steps)
    numpy_s = time.perf_counter() - t
    gradient_flow(cp.asarray(e0), cp.asarray(w0), 0.9, 0.9, lr=0.02, steps=10)
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    out = gradient_flow(cp.asarray(e0), cp.asarray(w0), 0.9, 0.9, lr=0.02, steps=steps)
    cp.cuda.Device().synchronize()
    gpu_s = time.perf_counter() - t
    diff = max(float(np.max(np.abs(to_numpy(out[k]) - ref[k]))) for k in ("e", "w", "loss"))
    work = n * n * steps
    return {"max_abs_diff": diff, "numpy_s": numpy_s, "gpu_s": gpu_s,
            "numpy_inits_steps_per_s": work / numpy_s, "gpu_inits_steps_per_s": work / gpu_s}
