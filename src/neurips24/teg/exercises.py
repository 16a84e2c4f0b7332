"""Executable exercises of the textual-edge graphs chapter (neurips24.exercise)."""
from __future__ import annotations

import numpy as np

from ..exercise import check_cases
from .features import incidence_mean

TITLE = "Where the gain comes from"
RTOL, ATOL = 1e-5, 1e-6     # the package returns float32


def incoming_mean_reference(edge_index: np.ndarray, edge_x: np.ndarray, num_nodes: int) -> np.ndarray:
    """Mean of the vectors of the edges pointing **at** each node (target = ``edge_index[1]``), (N, d) float32.

    Built on :func:`neurips24.teg.incidence_mean`: an edge listed as (target, target) is incident to its target
    only (twice, which the mean divides out), so the all-edges mean of that graph is the incoming mean.

    Raises
    ------
    ValueError as :func:`neurips24.teg.incidence_mean`.
    """
    ei = np.asarray(edge_index)
    return incidence_mean(np.stack([ei[1], ei[1]]), edge_x, num_nodes)


def _cases() -> list[tuple[np.ndarray, np.ndarray, int]]:
    rng = np.random.default_rng(0)
    out = []
    for N, E, d in ((6, 9, 2), (40, 150, 5)):
        ei = rng.integers(0, N - 2, (2, E))                   # the last two nodes receive no edge: zero rows
        out.append((ei.astype(np.int64), rng.standard_normal((E, d)), N))
    return out


def check_incoming_mean(answer) -> bool:
    """Say whether ``answer(edge_index, edge_x, num_nodes)`` averages, for each node u, only the vectors of the
    edges pointing at u, with a zero row where no edge points at u (exercise 'Where the gain comes from').

    Compared with :func:`incoming_mean_reference` (the package's tested :func:`neurips24.teg.incidence_mean` on
    the edges re-listed as (target, target)) to rtol 1e-5, atol 1e-6 (the package works in float32) on two
    random directed graphs (6 nodes, 9 edges; 40 nodes, 150 edges; seed 0) with nodes no edge points at.

    Parameters
    ----------
    answer : callable, ``answer(edge_index: (2, E) int array, edge_x: (E, d) float array, num_nodes: int)
        -> (num_nodes, d) float array``; row 0 of edge_index holds the sources, row 1 the targets.

    Returns
    -------
    bool, True when every case matches; prints the verdict ("not attempted yet" for the scaffold).

    Raises
    ------
    TypeError if ``answer`` is not callable. Errors raised by ``answer`` itself propagate.
    """
    cases = _cases()
    return check_cases(
        TITLE, answer, cases, incoming_mean_reference, rtol=RTOL, atol=ATOL,
        describe=lambda i, case, got, want: f"on the graph with {case[2]} nodes and {case[0].shape[1]} edges your "
                                            "means differ from the mean over the edges whose target (row 1) is the "
                                            "node.",
        summary=f"matches the incoming mean on {len(cases)} directed graphs.")
