"""The batched fractional step: compile (no GPU), NumPy reference on CPU, parity on a GPU (mts.kernels)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import brentq

from neurips24.mts import Player, kernels, simulate, star_metric, uniform_metric, wasserstein1
from neurips24.mts.fractional import mirror_descent_step


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_kernel_compiles(arch):
    pytest.importorskip("cuda.bindings.nvrtc")
    from neurips24.cuda import compile_ptx, read_source

    cubin = compile_ptx(read_source("neurips24.mts", "mts_step.cu"), arch, "mts_step.cu")
    assert cubin[:4] == b"\x7fELF"


def _random_states(rng, B, n):
    q = rng.dirichlet(np.full(n, 0.3), size=B)
    c = rng.exponential(0.2, size=(B, n)) * (rng.random((B, n)) < 0.5)
    return q, c


@pytest.mark.parametrize("metric", [uniform_metric(8), star_metric([0.1, 0.5, 1.0, 2.0, 0.3])],
                         ids=["uniform", "star"])
def test_reference_is_the_chapter_code_path(metric):
    rng = np.random.default_rng(1)
    q, c = _random_states(rng, 64, metric.n)
    p, cost = kernels.star_step_reference(q, c, metric.length, eta=0.7)
    p_md = mirror_descent_step(q, c, metric.length, 0.7)
    np.testing.assert_array_equal(p, p_md)
    np.testing.assert_allclose(cost, wasserstein1(q, p_md, metric) + (c * p_md).sum(1), rtol=0, atol=1e-15)


def test_reference_solves_the_optimality_conditions():
    # independent of Newton: the multiplier from SciPy's brentq on Σ p(λ) = 1, one instance at a time
    rng = np.random.default_rng(2)
    n, eta = 6, 1.3
    leaf = rng.uniform(0.2, 1.5, n)
    q, c = _random_states(rng, 20, n)
    p, cost = kernels.star_step_reference(q, c, leaf, eta=eta)
    delta = 1.0 / n
    for b in range(q.shape[0]):
        def mass(lam, b=b):
            return np.maximum((q[b] + delta) * np.exp(-eta * (c[b] + lam) / leaf) - delta, 0).sum() - 1
        lam = brentq(mass, -c[b].max() - 50, 50, xtol=1e-15)
        p_b = np.maximum((q[b] + delta) * np.exp(-eta * (c[b] + lam) / leaf) - delta, 0)
        np.testing.assert_allclose(p[b], p_b, atol=1e-11)
        np.testing.assert_allclose(cost[b], leaf @ np.abs(p_b - q[b]) + c[b] @ p_b, atol=1e-11)


def test_a_chain_of_reference_steps_is_simulates_fractional_curve():
    # the random adversary of game.simulate draws rng.integers(n) once per step (no capped player, no relabel)
    n, T, eps, seed = 5, 40, 0.3, 7
    metric = uniform_metric(n)
    run = simulate(metric, [Player("mode", 1, "random")], T=T, eps=eps, seed=seed)[0]
    rng = np.random.default_rng(seed)
    q = np.zeros((1, n))
    q[0, 0] = 1.0
    total, curve = 0.0, []
    for _ in range(T):
        c = np.zeros((1, n))
        c[0, rng.integers(n)] = eps
        q, cost = kernels.star_step(q, c, metric.length)
        total += cost[0]
        curve.append(total)
    np.testing.assert_allclose(curve, run.curves["frac"], rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(q[0], run.final_p, atol=1e-15)


def test_random_costs_put_eps_on_one_point():
    c = kernels.random_costs(np.random.default_rng(0), 50, 7, 0.25)
    assert c.shape == (50, 7)
    np.testing.assert_array_equal((c > 0).sum(1), 1)
    np.testing.assert_allclose(c.sum(1), 0.25)


@pytest.mark.parametrize("kwargs, match", [
    ({"q": np.full(4, 0.25)}, "q must have shape"),
    ({"q": np.array([[0.5, 0.6, -0.1, 0.0]])}, "probability vectors"),
    ({"q": np.array([[np.nan, 0.5, 0.25, 0.25]])}, "probability vectors"),
    ({"c": np.array([[0.0, -1.0, 0.0, 0.0]])}, "non-negative"),
    ({"c": np.array([[0.0, np.inf, 0.0, 0.0]])}, "finite"),
    ({"c": np.zeros((2, 4))}, "shape of q"),
    ({"c": np.zeros((1, 3))}, "dimension n"),
    ({"leaf": np.array([0.5, 0.5, 0.0, 0.5])}, "leaf"),
    ({"leaf": np.full(3, 0.5)}, "leaf"),
    ({"eta": 0.0}, "eta"),
    ({"eta": np.nan}, "eta"),
    ({"delta": -0.1}, "delta"),
])
def test_reference_rejects_bad_inputs(kwargs, match):
    args = {"q": np.full((1, 4), 0.25), "c": np.zeros((1, 4)), "leaf": np.full(4, 0.5)}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        kernels.star_step_reference(**args)


def test_kernel_rejects_bad_newton_settings_before_cupy():
    with pytest.raises(ValueError, match="tol"):
        kernels.star_step_kernel(None, None, None, tol=0.0)
    with pytest.raises(ValueError, match="max_iter"):
        kernels.star_step_kernel(None, None, None, max_iter=0)


def test_bench_runs_on_cpu():
    rows = kernels.bench_mts_step(B=200, n=6, n_steps=2)
    assert rows[0][0] == "numpy reference (CPU)" and rows[0][1] > 0 and rows[0][2] == 8.0 * 200 * 19
    for bad in ({"B": 0}, {"n": 1}, {"n_steps": 0}, {"eps": 0.0}):
        with pytest.raises(ValueError):
            kernels.bench_mts_step(**bad)


@pytest.mark.gpu
def test_kernel_matches_reference_on_gpu():
    import cupy as cp

    rng = np.random.default_rng(3)
    leaf = np.array([0.1, 0.5, 1.0, 2.0, 0.3, 0.5, 0.5, 0.7])
    q, c = _random_states(rng, 5000, leaf.size)
    p, cost = kernels.star_step_reference(q, c, leaf, eta=0.9)
    p_d, cost_d = kernels.star_step_kernel(cp.asarray(q), cp.asarray(c), leaf, eta=0.9)
    np.testing.assert_allclose(cp.asnumpy(p_d), p, atol=1e-12)
    np.testing.assert_allclose(cp.asnumpy(cost_d), cost, atol=1e-12)
    out = kernels.kernel_parity(B=2048, n=16, n_steps=30)
    assert out["max_p_diff"] < 1e-10 and out["max_cost_diff"] < 1e-9
    with pytest.raises(ValueError, match="CuPy array"):
        kernels.star_step_kernel(cp.asarray(q, dtype=cp.float32), cp.asarray(c), leaf)
