"""The fractional algorithm and the work function, against SciPy's constrained optimiser and brute force."""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize

from neurips24 import mts


def _md_objective(p, q, c, w, eta, delta):
    return c @ p + np.sum(w * ((p + delta) * np.log((p + delta) / (q + delta)) - p + q)) / eta


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mirror_descent_step_is_the_argmin_of_its_objective(seed):
    rng = np.random.default_rng(seed)
    n = 6
    q = rng.dirichlet(np.ones(n))
    c = rng.exponential(1.0, n) * (rng.random(n) < 0.5)
    w = rng.uniform(0.2, 1.0, n)
    eta, delta = 1.3, 1 / n
    p = mts.mirror_descent_step(q, c, w, eta, delta)
    res = minimize(_md_objective, q, args=(q, c, w, eta, delta), method="SLSQP", bounds=[(0, 1)] * n,
                   constraints=[{"type": "eq", "fun": lambda x: x.sum() - 1}], options={"ftol": 1e-14})
    assert res.success
    np.testing.assert_allclose(p, res.x, atol=1e-5)
    assert _md_objective(p, q, c, w, eta, delta) <= res.fun + 1e-10


def test_mirror_descent_step_basic_properties():
    q = np.array([0.4, 0.3, 0.2, 0.1])
    leaf = np.full(4, 0.5)
    np.testing.assert_allclose(mts.mirror_descent_step(q, np.zeros(4), leaf), q, atol=1e-12)   # no cost, no move
    p = mts.mirror_descent_step(q, np.array([1.0, 0, 0, 0]), leaf)
    assert p.sum() == pytest.approx(1.0) and p[0] < q[0] and np.all(p[1:] > q[1:])
    huge = mts.mirror_descent_step(q, np.array([50.0, 0, 0, 0]), leaf)
    assert huge[0] == 0.0                                                   # the shift δ lets mass reach 0
    batch = mts.mirror_descent_step(np.tile(q, (3, 1)), np.eye(4)[:3], leaf)
    for i in range(3):
        np.testing.assert_allclose(batch[i], mts.mirror_descent_step(q, np.eye(4)[i], leaf), atol=1e-14)


def _brute_force_opt(d, costs, start):
    n, T = d.shape[0], len(costs)
    best = np.inf
    for path in itertools.product(range(n), repeat=T):
        x, total = start, 0.0
        for t, y in enumerate(path):
            total += d[x, y] + costs[t][y]
            x = y
        best = min(best, total)
    return best


@pytest.mark.parametrize("kind", ["uniform", "line", "tree"])
def test_work_function_gives_the_offline_optimum(kind):
    rng = np.random.default_rng(5)
    m = mts.make_metric(kind, 3, seed=1)
    costs = rng.exponential(0.7, (6, 3))
    w = m.d[0].copy()
    for c in costs:
        w = mts.work_function_update(w, c, m.d)
    assert w.min() == pytest.approx(_brute_force_opt(m.d, costs, 0), rel=1e-12)


def test_bad_inputs_are_rejected():
    leaf = np.full(3, 0.5)
    q = np.array([0.5, 0.25, 0.25])
    with pytest.raises(ValueError, match="finite"):
        mts.mirror_descent_step(q, [np.nan, 0, 0], leaf)
    with pytest.raises(ValueError, match="non-negative"):
        mts.mirror_descent_step(q, [-1.0, 0, 0], leaf)
    with pytest.raises(ValueError, match="probability"):
        mts.mirror_descent_step([0.5, 0.5, 0.5], [0, 0, 0], leaf)
    with pytest.raises(ValueError, match="eta"):
        mts.mirror_descent_step(q, [0, 0, 0], leaf, eta=0.0)
    with pytest.raises(ValueError, match="leaf"):
        mts.mirror_descent_step(q, [0, 0, 0], [0.5, 0.5])
    with pytest.raises(ValueError, match="dimension"):
        mts.mirror_descent_step(q, [0, 0], leaf)
    with pytest.raises(ValueError, match="finite"):
        mts.work_function_update(np.zeros(3), [0, np.inf, 0], 1 - np.eye(3))
