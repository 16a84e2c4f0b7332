"""The chapter's claims in the package (mts.reproduction), the threshold adversary, and the fractional step and
work function on extreme or invalid input."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24 import claims, mts
from neurips24.mts import reproduction as rp

# ----- the mirror-descent step in the log domain ------------------------------------------------------------

def _reference_step(q, c, w, eta, delta):
    """The closed form solved by bisection on λ (independent of the Newton iteration)."""
    def p_of(lam):
        return np.maximum((q + delta) * np.exp(-eta * (c + lam) / w) - delta, 0.0)
    lo, hi = -c.max() - 50, c.max() + 50
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if p_of(mid).sum() > 1 else (lo, mid)
    p = p_of(0.5 * (lo + hi))
    return p / p.sum()


@pytest.mark.parametrize("c", [[0.1, 0, 0, 0], [1.0, 0.5, 0, 2.0], [3.0, 3.0, 0.0, 1e-3]])
def test_step_matches_bisection(c):
    q = np.array([0.4, 0.3, 0.2, 0.1])
    w = np.array([0.5, 0.25, 1.0, 0.5])
    got = mts.mirror_descent_step(q, c, w, eta=1.0)
    np.testing.assert_allclose(got, _reference_step(q, np.asarray(c, float), w, 1.0, 0.25), atol=1e-10)


@pytest.mark.parametrize("c", [[1e6, 0, 0, 0], [1e300, 0, 5, 0], [0, 1e12, 1e12, 1e12]])
def test_huge_costs_give_a_finite_state(c):
    """η·cost/leaf beyond ~709 overflowed exp() before the log-domain start; the mass must leave the costly points."""
    p = mts.mirror_descent_step(np.full(4, 0.25), c, np.full(4, 0.5))
    assert np.isfinite(p).all() and abs(p.sum() - 1) < 1e-12
    assert p[np.asarray(c) == max(c)].sum() < 1e-12


def test_simulate_with_a_huge_step_runs():
    runs = mts.simulate(mts.uniform_metric(4), [mts.Player("capped", 16, "crowded")], 20, eps=400.0)
    assert np.isfinite(runs[0].frac_cost) and runs[0].cap_excess <= 0


def test_non_finite_state_raises(monkeypatch):
    monkeypatch.setattr(mts.fractional.np, "log", lambda x: np.full_like(x, np.nan))
    with pytest.raises(FloatingPointError, match="non-finite"):
        mts.mirror_descent_step(np.full(3, 1 / 3), [1.0, 0, 0], np.full(3, 0.5))


# ----- the work function rejects a distance matrix that is not a metric --------------------------------------

@pytest.mark.parametrize(("d", "match"), [
    ([[0, 1, 5], [1, 0, 1], [5, 1, 0]], "triangle"),
    ([[0, 1], [2, 0]], "symmetric"),
    ([[0, -1], [-1, 0]], "non-negative"),
    ([[0, np.nan], [np.nan, 0]], "finite"),
    ([[1, 1], [1, 0]], "diagonal"),
])
def test_work_function_rejects_a_non_metric(d, match):
    n = len(d)
    with pytest.raises(ValueError, match=match):
        mts.work_function_update(np.zeros(n), np.zeros(n), d)


def test_work_function_accepts_a_metric_object_and_rejects_nan_w():
    m = mts.line_metric([0.0, 1.0, 3.0])
    np.testing.assert_allclose(mts.work_function_update(np.zeros(3), [1.0, 0, 0], m), [1, 0, 0])
    with pytest.raises(ValueError, match="w must be finite"):
        mts.work_function_update(np.array([0, np.nan, 0]), np.zeros(3), m)


# ----- the threshold adversary -------------------------------------------------------------------------------

def test_threshold_adversary_hits_the_point_closest_to_its_cap():
    metric = mts.uniform_metric(4)
    runs = mts.simulate(metric, [mts.Player("capped", 16, "threshold"), mts.Player("capped", 16, "crowded")], 300)
    thr, crowd = runs
    assert thr.cap_excess <= 0 and thr.service_excess <= 1e-12
    assert thr.moves > 0 and not np.array_equal(thr.curves["cost"], crowd.curves["cost"])
    # one agent: the only occupied point is its own, as for the crowded adversary
    one = mts.simulate(metric, [mts.Player("wfa", 1, "threshold"), mts.Player("wfa", 1, "crowded")], 100)
    np.testing.assert_array_equal(one[0].curves["cost"], one[1].curves["cost"])
    with pytest.raises(ValueError, match="adversary"):
        mts.Player("capped", 16, "sneaky")


# ----- the checks: pass on the real runs, fail where the claim is false -------------------------------------

@pytest.fixture(scope="module")
def small(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setitem(mts.experiment.CONFIG, "fast", dict(kinds=mts.metric.KINDS, n_values=(4, 8), T=300, eps=0.1,
                                                   n_seeds=3))
    try:
        sweep = mts.run_sweep("fast")
        plain, shuffled = mts.relabel_control("fast", n=4)
    finally:
        mp.undo()
    return sweep, plain, shuffled


def test_checks_pass_on_the_real_runs(small):
    checks = rp.checks(*small)
    assert set(checks) == {"mts.cap_and_service", "mts.factor_two", "mts.no_growth_with_n",
                           "mts.uniform_agent_identity"}
    assert {cid: claims.outcome(cid, **kw) for cid, kw in checks.items()} == dict.fromkeys(checks, "pass")
    assert len(checks["mts.factor_two"]["per_seed"]) == 3


def test_cap_check_fails_when_a_collective_exceeds_its_cap(small):
    sweep, plain, shuffled = small
    run = sweep.select(rule="capped")[0]
    old = run.cap_excess
    run.cap_excess = 1.0
    try:
        assert claims.outcome("mts.cap_and_service", **rp.cap_and_service(sweep)) == "fail"
    finally:
        run.cap_excess = old


def test_factor_control_is_k_equals_n(small):
    sweep, plain, shuffled = small
    kw = rp.factor_two(sweep, mts.reproduction_values(sweep, plain, shuffled))
    assert kw["control"]["measured"] > 2              # one agent per point breaks the factor on some instance
