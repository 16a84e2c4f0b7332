"""Node features for the PLM-based paradigm: node text, plus the text of incident edges, plus neighbours.

TEG-DB's PLM-based paradigm (Li et al. 2024, as the authors' blog post writes it) gives node u the input
h_u⁰ = PLM(T_u) + Σ_{v ∈ N(u)} PLM(T_{e_vu})                                                       (teg-plm)
and a classifier on top. We keep the two parts side by side (concatenated) rather than summed, and average the
edge vectors over the edges that carry text (a mean, not a sum, so that a hub's vector is not larger):
x_u = [PLM(T_u), mean_{e ∋ u, T_e ≠ ∅} PLM(T_e)]. The aggregation is a sparse matrix product (SciPy).
:func:`summed_edge_input` is the literal form of (teg-plm), for comparison.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def incidence_mean(edge_index: np.ndarray, edge_x: np.ndarray, num_nodes: int, weight=None) -> np.ndarray:
    """Mean of the edge vectors incident to each node (both directions), over edges with weight 1.

    m_u = Σ_{e ∋ u} w_e edge_x[e] / max(1, Σ_{e ∋ u} w_e).

    Parameters
    ----------
    edge_index : (2, E) int64 in 0..num_nodes-1.
    edge_x : (E, d) float, one vector per edge.
    num_nodes : N >= 1.
    weight : (E,) 0/1 array (default: all ones), e.g. which edges carry text.

    Returns
    -------
    (N, d) float32; a zero row for a node with no weighted incident edge.

    Raises
    ------
    ValueError on shapes that do not match, node ids outside 0..N-1, or non-finite edge_x.
    """
    ei, x = _check(edge_index, edge_x, num_nodes)
    w = np.ones(ei.shape[1]) if weight is None else np.asarray(weight, dtype=float)
    if w.shape != (ei.shape[1],):
        raise ValueError(f"weight must have shape ({ei.shape[1]},), got {w.shape}")
    rows = np.concatenate([ei[0], ei[1]])
    cols = np.concatenate([np.arange(ei.shape[1])] * 2)
    inc = sp.csr_matrix((np.concatenate([w, w]), (rows, cols)), shape=(num_nodes, ei.shape[1]))
    deg = np.asarray(inc.sum(axis=1)).ravel()
    return (inc @ x / np.maximum(deg, 1)[:, None]).astype(np.float32)


def neighbour_mean(edge_index: np.ndarray, node_x: np.ndarray) -> np.ndarray:
    """Mean of the neighbours' vectors (both directions, each neighbour once per edge).

    Parameters
    ----------
    edge_index : (2, E) int64 in 0..N-1.
    node_x : (N, d) float.

    Returns
    -------
    (N, d) float32; a zero row for an isolated node.
    """
    ei, x = _check(edge_index, node_x, None)
    n = x.shape[0]
    adj = sp.csr_matrix((np.ones(2 * ei.shape[1]), (np.concatenate([ei[0], ei[1]]), np.concatenate([ei[1], ei[0]]))),
                        shape=(n, n))
    deg = np.asarray(adj.sum(axis=1)).ravel()
    return (adj @ x / np.maximum(deg, 1)[:, None]).astype(np.float32)


def plm_features(node_x, edge_x, edge_index, has_text, variant: str) -> np.ndarray:
    """The inputs of the PLM-based paradigm (teg-plm), one of four variants.

    Parameters
    ----------
    node_x : (N, d) PLM(T_u). edge_x : (E, d) PLM(T_e). edge_index : (2, E). has_text : (E,) bool.
    variant : 'node' ([PLM(T_u)]), 'node+edge' ([PLM(T_u), edge mean]), 'node+nbr' ([PLM(T_u), neighbour mean])
        or 'node+nbr+edge' (all three).

    Returns
    -------
    (N, k d) float32.

    Raises
    ------
    ValueError for an unknown variant.
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    parts = [np.asarray(node_x, dtype=np.float32)]
    if "nbr" in variant:
        parts.append(neighbour_mean(edge_index, node_x))
    if variant.endswith("edge"):
        parts.append(incidence_mean(edge_index, edge_x, len(node_x), has_text))
    return np.concatenate(parts, axis=1)


VARIANTS = ("node", "node+edge", "node+nbr", "node+nbr+edge")


def summed_edge_input(node_x, edge_x, edge_index, has_text) -> np.ndarray:
    """The literal PLM-based input (teg-plm): h_u = PLM(T_u) + Σ_{v ∈ N(u)} PLM(T_{e_vu}).

    The sum runs over the edges e_vu that point **at** u (row 1 of ``edge_index`` is the target) and carry text;
    a node no such edge points at keeps PLM(T_u).

    Parameters
    ----------
    node_x : (N, d) float. edge_x : (E, d) float, the same d. edge_index : (2, E) int64. has_text : (E,) bool.

    Returns
    -------
    (N, d) float32.

    Raises
    ------
    ValueError on mismatched shapes, node ids outside 0..N-1 or non-finite vectors.
    """
    ei, x = _check(edge_index, edge_x, len(node_x))
    nx = np.asarray(node_x, dtype=float)
    if nx.ndim != 2 or nx.shape[1] != x.shape[1] or not np.all(np.isfinite(nx)):
        raise ValueError(f"node_x must be finite (N, {x.shape[1]}), got shape {nx.shape}")
    w = np.asarray(has_text, dtype=float)
    if w.shape != (ei.shape[1],):
        raise ValueError(f"has_text must have shape ({ei.shape[1]},), got {w.shape}")
    inc = sp.csr_matrix((w, (ei[1], np.arange(ei.shape[1]))), shape=(len(nx), ei.shape[1]))
    return (nx + inc @ x).astype(np.float32)


def _check(edge_index, x, num_nodes):
    ei = np.asarray(edge_index)
    x = np.asarray(x, dtype=float)
    if ei.ndim != 2 or ei.shape[0] != 2:
        raise ValueError(f"edge_index must have shape (2, E), got {ei.shape}")
    if x.ndim != 2:
        raise ValueError(f"features must be 2-d, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("features must be finite (no NaN or inf)")
    n = x.shape[0] if num_nodes is None else num_nodes
    if num_nodes is not None and x.shape[0] != ei.shape[1]:
        raise ValueError(f"edge_x has {x.shape[0]} rows but edge_index has {ei.shape[1]} edges")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"num_nodes must be an integer >= 1, got {n!r}")
    if ei.size and (ei.min() < 0 or ei.max() >= n):
        raise ValueError(f"edge_index points at a missing node: ids must be in 0..{n - 1}")
    return ei.astype(np.int64), x
