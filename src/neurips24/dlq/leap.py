"""Leap and Cover of a system of detectable sets (book's reading of the paper's Definition 1).

Given a system C of subsets of the support S* (the sets a query class can detect, :mod:`.tables`):

- **Leap(C)**: the learner finds coordinates in rounds, each time through a set U ∈ C, and pays for the
  coordinates of U it does not know yet. Leap(C) = min over orders U_1, ..., U_r of sets of C covering S* of
  max_t |U_t \\ (U_1 ∪ ... ∪ U_{t−1})| — the largest number of new coordinates found at once. (∞ if C does
  not cover S*.) Adaptive queries need about d^{Leap} queries.
- **Cover(C)**: without adaptivity, each coordinate i must be caught by a set containing it:
  Cover(C) = max_{i ∈ S*} min {|U| : U ∈ C, i ∈ U}. Non-adaptive queries need about d^{Cover} queries.

The book's simplification: the detectable sets are read once, from scratch, not re-read after each round
given the coordinates already found (for the chapter's target both readings give the same system).
"""
from __future__ import annotations

import math
from collections.abc import Iterable


def _system(system: Iterable, support: Iterable[int]) -> tuple[list[frozenset], frozenset]:
    S = frozenset(int(i) for i in support)
    if not S:
        raise ValueError("support must be a non-empty set of coordinates")
    sets = []
    for u in system:
        u = frozenset(int(i) for i in u)
        if not u:
            raise ValueError("the empty set is not a detectable set")
        if not u <= S:
            raise ValueError(f"every detectable set must lie in the support {sorted(S)}, got {sorted(u)}")
        sets.append(u)
    return sets, S


def leap(system: Iterable, support: Iterable[int]) -> float:
    """Leap of the set system (module docstring): an int in 1..|S*|, or ``math.inf`` if C does not cover S*.

    Exact: Leap(C) <= k iff adding, in any order, every set with at most k unknown coordinates eventually
    covers S* (adding a set never makes another set harder to add), so k = 1, 2, ... is tried in turn.

    Raises
    ------
    ValueError for an empty support, an empty set, or a set outside the support.
    """
    sets, S = _system(system, support)
    for k in range(1, len(S) + 1):
        known: frozenset = frozenset()
        grew = True
        while grew:
            grew = False
            for u in sets:
                if not u <= known and len(u - known) <= k:
                    known = known | u
                    grew = True
        if known == S:
            return k
    return math.inf


def cover(system: Iterable, support: Iterable[int]) -> float:
    """Cover of the set system (module docstring): max over i ∈ S* of the smallest |U| ∋ i; ``math.inf`` if
    some coordinate is in no set.

    Raises
    ------
    ValueError for an empty support, an empty set, or a set outside the support.
    """
    sets, S = _system(system, support)
    worst = 0
    for i in S:
        sizes = [len(u) for u in sets if i in u]
        if not sizes:
            return math.inf
        worst = max(worst, min(sizes))
    return worst
