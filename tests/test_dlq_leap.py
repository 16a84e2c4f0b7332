"""Leap and Cover of set systems (dlq.leap), against hand-worked cases and a brute force over orders."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from neurips24.dlq.leap import cover, leap


def _leap_brute_force(system, support):
    """min over orders of the sets of max new coordinates per step, among orders whose union is S*."""
    best = math.inf
    sets = [frozenset(u) for u in system]
    for r in range(1, len(sets) + 1):
        for order in itertools.permutations(sets, r):
            known, worst = frozenset(), 0
            for u in order:
                worst = max(worst, len(u - known))
                known |= u
            if known == frozenset(support):
                best = min(best, worst)
    return best


@pytest.mark.parametrize("system, support, lp, cv", [
    ([{1}, {1, 2}, {1, 2, 3}], {1, 2, 3}, 1, 3),          # a staircase: leap 1, but coordinate 3 needs a 3-set
    ([{1, 2, 3}], {1, 2, 3}, 3, 3),                        # a parity-like target
    ([{1, 2}, {2, 3, 4}], {1, 2, 3, 4}, 2, 3),
    ([{1}, {2}, {3}], {1, 2, 3}, 1, 1),
    ([{1}, {2}], {1, 2, 3}, math.inf, math.inf),           # coordinate 3 is never detected
    ([], {1, 2}, math.inf, math.inf),
])
def test_hand_worked_cases(system, support, lp, cv):
    assert leap(system, support) == lp
    assert cover(system, support) == cv


def test_leap_agrees_with_brute_force_on_random_systems():
    rng = np.random.default_rng(0)
    support = range(5)
    subsets = [set(u) for k in range(1, 6) for u in itertools.combinations(support, k)]
    for _ in range(60):
        pick = rng.choice(len(subsets), size=rng.integers(1, 5), replace=False)
        system = [subsets[i] for i in pick]
        assert leap(system, support) == _leap_brute_force(system, support), system


@pytest.mark.parametrize("system, support, match", [
    ([{1, 4}], {1, 2}, "lie in the support"),
    ([set()], {1, 2}, "empty set"),
    ([{1}], set(), "non-empty"),
])
def test_bad_systems(system, support, match):
    for fn in (leap, cover):
        with pytest.raises(ValueError, match=match):
            fn(system, support)
