"""One simulation round for R runs: the CUDA kernel ``cts_step.cu`` and its NumPy reference (book's own).

A round is: sample θ (or compute the index), call the oracle, update the counts, record the regret. On a GPU
the policy's randomness is drawn with CuPy (Gamma draws for B-CTS, normals for BG-CTS) and the rest is one
kernel launch, one thread per run. The NumPy reference computes the same numbers in the same order, so on
shared pre-drawn randomness the two give identical actions and regrets. The kernel handles explicit action
matrices (the paper's two-set instance); a top-m oracle runs the array code on either backend.
"""
from __future__ import annotations

import time

import numpy as np

from ..backend import cupy_or_none, to_numpy
from .bandit import SemiBandit, _xp, two_sets
from .policies import Policy, escb_coefficients, gaussian_scale, make_policy, select, update

POLICY_CODES = {"bcts": 0, "bgcts": 1, "gcts": 1, "escb": 2, "cucb": 3}   # G-CTS: BG-CTS with c_t = σ


def step_reference(policy: Policy, bandit: SemiBandit, N, S, X, t, noise):
    """One round for R runs on NumPy (or CuPy) arrays: the reference of the CUDA kernel.

    Parameters
    ----------
    policy : a :class:`~neurips24.cts.policies.Policy`.   bandit : the instance.
    N, S : (R, d) float64 counts and reward sums, updated in place.
    X : (R, d) float64 rewards of this round (shared by all policies).
    t : round index ≥ 1.   noise : the pair from :func:`~neurips24.cts.policies.draw_noise`.

    Returns
    -------
    index : (R,) int64 chosen action (``None`` for a top-m set).   regret : (R,) float64, Δ of that action.
    """
    mask, index = select(policy, bandit, N, S, t, noise)
    update(N, S, mask, X)
    if index is None:
        return None, bandit.regret(mask)
    xp = _xp(N)
    return index, xp.asarray(bandit.gaps())[index]


def step_kernel(policy: Policy, bandit: SemiBandit, N, S, X, t, noise, block: int = 128):
    """The same round as :func:`step_reference`, as one launch of the CUDA kernel ``cts_step`` (CuPy arrays).

    Raises
    ------
    ValueError for a top-m bandit (the kernel needs an explicit action matrix), a policy the kernel does not
    run ('escb_code') or non-contiguous state.
    """
    if policy.kind not in POLICY_CODES:
        raise ValueError(f"the CUDA step runs the kinds {tuple(POLICY_CODES)}, got {policy.kind!r}")
    if bandit.actions is None:
        raise ValueError("the CUDA step needs an explicit action matrix (actions); top-m runs on the array path")
    import cupy as cp

    from ..cuda import raw_kernel

    R, d = N.shape
    for name, a in (("N", N), ("S", S)):
        if a.dtype != cp.float64 or not a.flags.c_contiguous:
            raise ValueError(f"{name} must be a C-contiguous float64 CuPy array")
    K = bandit.n_actions
    u1, u2 = noise
    zeros = cp.zeros(1)
    u1 = zeros if u1 is None else cp.ascontiguousarray(u1, dtype=cp.float64)
    u2 = zeros if u2 is None else cp.ascontiguousarray(u2, dtype=cp.float64)
    coef = escb_coefficients(policy, bandit, t) if policy.kind == "escb" else np.zeros(K)
    c_t = gaussian_scale(policy, t, bandit.m) if policy.kind in ("bgcts", "gcts", "cucb") else 0.0
    action = cp.empty(R, dtype=cp.int64)
    regret = cp.empty(R, dtype=cp.float64)
    kernel = raw_kernel("neurips24.cts", "cts_step.cu", "cts_step")
    grid = min((R + block - 1) // block, 65535)
    kernel((grid,), (block,),
           (N, S, cp.ascontiguousarray(X, dtype=cp.float64), u1, u2, cp.asarray(bandit.actions), cp.asarray(coef),
            cp.asarray(bandit.gaps()), action, regret, np.int64(R), np.int64(d), np.int64(K),
            np.int32(POLICY_CODES[policy.kind]), np.float64(c_t)))
    return action, regret


def step(policy: Policy, bandit: SemiBandit, N, S, X, t, noise):
    """:func:`step_kernel` on CuPy arrays with an explicit action set, :func:`step_reference` otherwise."""
    if _xp(N) is not np and bandit.actions is not None:
        return step_kernel(policy, bandit, N, S, X, t, noise)
    return step_reference(policy, bandit, N, S, X, t, noise)


def step_torch(N, S, X, Z, A, gaps, c_t: float):
    """The BG-CTS round written in torch (for the benchmark): same math as the kernel, tensor ops only.

    N, S, X, Z : (R, d) float64 tensors (N, S updated in place); A : (K, d); gaps : (K,). Returns (index, regret).
    """
    import torch

    played = N > 0
    n = torch.where(played, N, torch.ones_like(N))
    theta = torch.where(played, S / n + (c_t / torch.sqrt(n)) * Z, torch.zeros_like(N))
    scores = theta @ A.T
    hidden = (~played).to(N.dtype) @ A.T > 0
    scores = torch.where(hidden, torch.full_like(scores, float("inf")), scores)
    index = torch.argmax(scores, dim=1)
    mask = A[index]
    N += mask
    S += mask * X
    return index, gaps[index]


def bench_cts_step(R: int = 10_000, m: int = 65, n_steps: int = 20, policy: str = "bgcts",
                   seed: int = 0) -> list[tuple[str, float, float]]:
    """Time one round at R runs on the two-set instance: NumPy (CPU), the CUDA kernel and torch (GPU).

    Each backend advances its own R runs ``n_steps`` rounds (the state warms up as in a real run); the
    randomness is drawn outside the timed part. Rows are (name, seconds per round, bytes per round), like
    ``benchmarks/kernels.py``'s ``bench_mode_mix``; steps per second = 1 / seconds.

    Raises
    ------
    ValueError for R < 1, m < 1, n_steps < 1 or an unknown policy.
    """
    from .bandit import check_positive_int

    R = check_positive_int("R", R)
    n_steps = check_positive_int("n_steps", n_steps)
    pol = make_policy(policy)
    bandit = two_sets(m)
    d = bandit.d
    n_arrays = 5 if pol.kind == "bgcts" else (6 if pol.kind == "bcts" else 4)   # N, S read+write, X, noise
    nbytes = 8.0 * R * d * (n_arrays + 2)
    rows = []

    def run(xp, stepper, sync=lambda: None):
        rng = xp.random.default_rng(seed)
        N, S = xp.zeros((R, d)), xp.zeros((R, d))
        total = 0.0
        for t in range(1, n_steps + 1):
            X = bandit.draw_rewards(rng, R)
            noise = _draw(pol, N, S, rng)
            sync()
            start = time.perf_counter()
            stepper(pol, bandit, N, S, X, t, noise)
            sync()
            total += time.perf_counter() - start
        return total / n_steps

    rows.append(("numpy reference (CPU)", run(np, step_reference), nbytes))
    cp = cupy_or_none()
    if cp is not None:
        sync = cp.cuda.Device().synchronize
        run(cp, step_kernel, sync)                                   # compile + warm up
        rows.append(("cupy kernel (GPU)", run(cp, step_kernel, sync), nbytes))
        import torch

        if torch.cuda.is_available() and pol.kind == "bgcts":
            dev = "cuda"
            A = torch.as_tensor(bandit.actions, device=dev)
            gaps = torch.as_tensor(bandit.gaps(), device=dev)
            gen = torch.Generator(device=dev).manual_seed(seed)
            N, S = torch.zeros((R, d), dtype=torch.float64, device=dev), torch.zeros((R, d), dtype=torch.float64,
                                                                                     device=dev)
            mu = torch.as_tensor(bandit.mu, device=dev)
            total = 0.0
            for t in range(1, n_steps + 1):
                X = (torch.rand((R, d), generator=gen, device=dev, dtype=torch.float64) < mu).to(torch.float64)
                Z = torch.randn((R, d), generator=gen, device=dev, dtype=torch.float64)
                c_t = gaussian_scale(pol, t, bandit.m)
                torch.cuda.synchronize()
                start = time.perf_counter()
                step_torch(N, S, X, Z, A, gaps, c_t)
                torch.cuda.synchronize()
                total += time.perf_counter() - start
            rows.append(("torch (GPU)", total / n_steps, nbytes))
    return rows


def _draw(policy, N, S, rng):
    from .policies import draw_noise

    return draw_noise(policy, N, S, rng)


def kernel_parity(R: int = 4096, m: int = 20, n_steps: int = 50, seed: int = 0) -> dict | None:
    """Run every policy ``n_steps`` rounds through the kernel and the NumPy reference on shared draws.

    Returns
    -------
    ``None`` without a GPU; otherwise a dict policy label -> (number of differing actions, max |regret diff|),
    plus 'numpy_ms' and 'gpu_ms' (milliseconds per BG-CTS round).
    """
    cp = cupy_or_none()
    if cp is None:
        return None
    from .policies import paper_policies

    bandit = two_sets(m)
    out = {}
    for pol in paper_policies():
        rng = np.random.default_rng(seed)
        N, S = np.zeros((R, bandit.d)), np.zeros((R, bandit.d))
        Nd, Sd = cp.zeros_like(cp.asarray(N)), cp.zeros_like(cp.asarray(S))
        diff_actions, diff_regret = 0, 0.0
        for t in range(1, n_steps + 1):
            X = bandit.draw_rewards(rng, R)
            noise = _draw(pol, N, S, rng)
            idx, reg = step_reference(pol, bandit, N, S, X, t, noise)
            noise_d = tuple(None if u is None else cp.asarray(u) for u in noise)
            idx_d, reg_d = step_kernel(pol, bandit, Nd, Sd, cp.asarray(X), t, noise_d)
            diff_actions += int(np.sum(to_numpy(idx_d) != idx))
            diff_regret = max(diff_regret, float(np.max(np.abs(to_numpy(reg_d) - reg))))
        out[pol.label] = (diff_actions, diff_regret)
    rows = dict((name, sec) for name, sec, _ in bench_cts_step(R=R, m=m, n_steps=5))
    out["numpy_ms"] = 1e3 * rows["numpy reference (CPU)"]
    out["gpu_ms"] = 1e3 * rows["cupy kernel (GPU)"]
    return out
