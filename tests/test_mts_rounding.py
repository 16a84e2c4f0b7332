"""The book's capped rounding: its invariant, its laziness, and its moves against an independent transport LP."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from neurips24 import mts
from neurips24.mts.metric import transport_lp


def _min_cost_to_feasible(counts, cap, d):
    """Cheapest way (an LP, SciPy's HiGHS) to move the agents so that no point holds more than its cap."""
    n = d.shape[0]
    # variables π_ij >= 0: agents moved from i to j (π_ii = staying); rows: Σ_j π_ij = counts_i; cols: Σ_i π_ij <= cap_j
    rows = np.kron(np.eye(n), np.ones(n))
    cols = np.kron(np.ones(n), np.eye(n))
    res = linprog(d.ravel(), A_eq=rows, b_eq=counts, A_ub=cols, b_ub=cap, bounds=(0, None), method="highs")
    assert res.success
    return res.fun


@pytest.mark.parametrize("kind", ["uniform", "star", "line", "tree"])
@pytest.mark.parametrize("seed", [0, 1])
def test_capped_rounding_keeps_the_cap_and_moves_along_an_optimal_plan(kind, seed):
    rng = np.random.default_rng(seed)
    n = 6
    m = mts.make_metric(kind, n, seed=seed)
    for k in (n, 2 * n, n * n):
        agents = np.zeros(k, dtype=np.int64)
        p = np.eye(n)[0]
        for _ in range(30):
            p = 0.7 * p + 0.3 * rng.dirichlet(np.full(n, 0.5))
            new = mts.capped_rounding_step(agents, p, m.d)
            counts_old = np.bincount(agents, minlength=n)
            counts = np.bincount(new, minlength=n)
            cap = mts.capacity(p, k)
            assert counts.sum() == k and np.all(counts <= cap)          # eq. (mts-cap), Σ m = k
            assert np.all(counts <= 2 * k * p + 1e-6)
            moved = m.d[agents, new].sum()
            if np.all(counts_old <= cap):
                assert moved == 0                                        # lazy: nobody moves when the cap holds
            # the agents' total move is the least any plan needs to restore the cap (LP, independent) ...
            assert moved == pytest.approx(_min_cost_to_feasible(counts_old, cap, m.d), abs=1e-6)
            # ... and an optimal transport plan between the two configurations
            if moved:
                assert moved == pytest.approx(k * transport_lp(counts_old / k, counts / k, m.d), abs=1e-6)
            agents = new


def test_capped_rounding_by_hand():
    # 4 agents on 2 points, p = (0.3, 0.7): caps ⌊2.4⌋ = 2 and ⌊5.6⌋ = 5, so 2 agents leave point 0
    agents = np.array([0, 0, 0, 0])
    new = mts.capped_rounding_step(agents, np.array([0.3, 0.7]), 1 - np.eye(2))
    np.testing.assert_array_equal(np.bincount(new, minlength=2), [2, 2])
    np.testing.assert_array_equal(new[:2], [0, 0])            # the lowest-indexed agents stay
    # on a uniform metric the evicted agent takes the emptiest place relative to its cap
    agents = np.array([0, 0, 0, 1, 1, 2])
    p = np.array([0.2, 0.3, 0.5])                            # caps 2, 3, 6: one agent must leave point 0
    new = mts.capped_rounding_step(agents, p, 1 - np.eye(3))
    np.testing.assert_array_equal(np.bincount(new, minlength=3), [2, 2, 2])


def test_single_agents_by_hand():
    assert mts.mode_agent_step(0, [0.3, 0.7]) == 1            # 0.3 < 0.7 / 2 = 0.35: it moves to the mode
    assert mts.mode_agent_step(0, [0.4, 0.6]) == 0            # 0.4 >= 0.3: it stays
    d = 1 - np.eye(3)
    assert mts.wfa_step(0, np.array([1.0, 0.0, 0.5]), d) == 0     # 1 + 0 = 0 + 1: a tie, it stays
    assert mts.wfa_step(0, np.array([1.5, 0.0, 0.5]), d) == 1     # 1.5 > 0 + 1: it moves to 1


def test_rounding_rejects_bad_input():
    d = 1 - np.eye(3)
    p = np.array([0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match="k >= n"):
        mts.capped_rounding_step(np.array([0, 1]), p, d)
    with pytest.raises(ValueError, match="probability"):
        mts.capped_rounding_step(np.array([0, 1, 2]), np.array([0.5, 0.5, 0.5]), d)
    with pytest.raises(ValueError, match="point indices"):
        mts.capped_rounding_step(np.array([0, 1, 5]), p, d)
    with pytest.raises(ValueError, match="integer"):
        mts.capped_rounding_step(np.array([0.0, 1.0, 2.0]), p, d)
    with pytest.raises(ValueError, match="k must be"):
        mts.capacity(p, 0)
    with pytest.raises(ValueError, match="x must be"):
        mts.mode_agent_step(3, p)
    with pytest.raises(ValueError, match="finite"):
        mts.wfa_step(0, np.array([np.nan, 0, 0]), d)
