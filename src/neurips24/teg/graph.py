"""A textual-edge graph (TEG): text on every node, text on (some) edges, and the shipped docstring graph.

TEG-DB (Li et al., NeurIPS 2024) defines a textual-edge graph as G = (V, E, T_V, T_E): each node u carries a
text T_u and each edge e_vu a text T_{e_vu} (a review, a citation's context, a reply). The graph this chapter
ships is built offline from library documentation (see :mod:`neurips24.teg.build_docgraph`): nodes are the public
callables of NumPy, SciPy and scikit-learn with their numpydoc summary, edges are "See Also" entries with the
entry's description as edge text, and the label of a node is its module.
"""
from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

DOCGRAPH = Path(__file__).with_name("data") / "docgraph.json.gz"


@dataclass(frozen=True)
class TextualEdgeGraph:
    """A directed graph with text on its nodes and edges (TEG-DB, G = (V, E, T_V, T_E)).

    Attributes
    ----------
    node_text : tuple of N non-empty str, T_u.
    edge_index : (2, E) int64, edge e = (edge_index[0, e] -> edge_index[1, e]), source -> target.
    edge_text : tuple of E entries, each a non-empty str T_e or None (an edge without text).
    labels : (N,) int64, class of each node in 0..C-1, or -1 for an unlabelled node.
    label_names : tuple of C str.
    node_names : tuple of N str (for display).
    meta : dict, where the graph came from (library versions for the docstring graph).

    Build it with :func:`make_graph`, which validates the parts.
    """

    node_text: tuple
    edge_index: np.ndarray
    edge_text: tuple
    labels: np.ndarray
    label_names: tuple
    node_names: tuple
    meta: dict = field(default_factory=dict)

    @property
    def num_nodes(self) -> int:
        return len(self.node_text)

    @property
    def num_edges(self) -> int:
        return self.edge_index.shape[1]

    @property
    def has_text(self) -> np.ndarray:
        """(E,) bool, whether each edge carries text."""
        return np.array([t is not None for t in self.edge_text], dtype=bool)


def make_graph(node_text, edge_index, edge_text, labels, label_names=None, node_names=None,
               meta=None) -> TextualEdgeGraph:
    """Validate the parts of a textual-edge graph and assemble a :class:`TextualEdgeGraph`.

    Parameters
    ----------
    node_text : sequence of N non-empty str.
    edge_index : (2, E) array-like of integers in 0..N-1 (source row, target row).
    edge_text : sequence of E entries, each a non-empty str or None (no text on that edge).
    labels : (N,) array-like of integers in -1..C-1 (-1: unlabelled).
    label_names : sequence of C str (default: '0', '1', ...).
    node_names : sequence of N str (default: 'node 0', ...).
    meta : dict of provenance.

    Raises
    ------
    TypeError if a text is not a str (or None for an edge), or edge_index/labels are not integers.
    ValueError if N = 0, a node text is empty, an edge text is an empty string (use None), edge_index is not
    (2, E), an edge points at a missing node (outside 0..N-1), or the lengths of edge_text, labels,
    label_names or node_names do not match.
    """
    node_text = tuple(node_text)
    if not node_text:
        raise ValueError("node_text must hold at least one node")
    for i, t in enumerate(node_text):
        if not isinstance(t, str):
            raise TypeError(f"node_text[{i}] must be a str, got {type(t).__name__}")
        if not t.strip():
            raise ValueError(f"node_text[{i}] is empty: every node needs a text")
    n = len(node_text)
    ei = np.asarray(edge_index)
    if ei.ndim != 2 or ei.shape[0] != 2:
        raise ValueError(f"edge_index must have shape (2, E), got {ei.shape}")
    if ei.size and not np.issubdtype(ei.dtype, np.integer):
        raise TypeError(f"edge_index must hold integers, got dtype {ei.dtype}")
    ei = ei.astype(np.int64)
    if ei.size and (ei.min() < 0 or ei.max() >= n):
        bad = int(np.flatnonzero((ei < 0).any(0) | (ei >= n).any(0))[0])
        raise ValueError(f"edge_index: edge {bad} ({ei[0, bad]} -> {ei[1, bad]}) points at a missing node; "
                         f"node ids must be in 0..{n - 1}")
    edge_text = tuple(edge_text)
    if len(edge_text) != ei.shape[1]:
        raise ValueError(f"edge_text has {len(edge_text)} entries but edge_index has {ei.shape[1]} edges")
    for e, t in enumerate(edge_text):
        if t is not None and not isinstance(t, str):
            raise TypeError(f"edge_text[{e}] must be a str or None, got {type(t).__name__}")
        if t is not None and not t.strip():
            raise ValueError(f"edge_text[{e}] is an empty string: use None for an edge without text")
    y = np.asarray(labels)
    if y.shape != (n,):
        raise ValueError(f"labels must have shape ({n},), got {y.shape}")
    if not np.issubdtype(y.dtype, np.integer):
        raise TypeError(f"labels must be integers, got dtype {y.dtype}")
    n_classes = int(y.max()) + 1 if y.size else 0
    label_names = tuple(label_names) if label_names is not None else tuple(str(c) for c in range(n_classes))
    if y.min() < -1 or y.max() >= len(label_names):
        raise ValueError(f"labels must be in -1..{len(label_names) - 1} (-1: unlabelled)")
    node_names = tuple(node_names) if node_names is not None else tuple(f"node {i}" for i in range(n))
    if len(node_names) != n:
        raise ValueError(f"node_names has {len(node_names)} entries, expected {n}")
    return TextualEdgeGraph(node_text, ei, edge_text, y.astype(np.int64), label_names, node_names, dict(meta or {}))


def load_docgraph(path=None) -> TextualEdgeGraph:
    """The shipped docstring graph of NumPy, SciPy and scikit-learn (see :mod:`neurips24.teg.build_docgraph`).

    Parameters
    ----------
    path : a ``.json.gz`` written by ``build_docgraph`` (default: the file shipped in the package).

    Returns
    -------
    TextualEdgeGraph whose ``meta`` holds the library versions the docstrings came from, 'source' and
    'min_class_size'.
    """
    with gzip.open(path or DOCGRAPH, "rt", encoding="utf-8") as fh:
        raw = json.load(fh)
    edges = raw["edges"]
    edge_index = np.array([[e[0] for e in edges], [e[1] for e in edges]], dtype=np.int64).reshape(2, -1)
    meta = {k: raw[k] for k in ("source", "versions", "min_class_size")}
    return make_graph([nd["text"] for nd in raw["nodes"]], edge_index, [e[2] for e in edges], raw["labels"],
                      raw["label_names"], [nd["name"] for nd in raw["nodes"]], meta)


def undirected(edge_index: np.ndarray, edge_attr: np.ndarray | None = None):
    """Both directions of every edge, *without* merging reciprocal pairs.

    Edge e = (u -> v) gives (u -> v) and (v -> u), both with e's attributes. A pair that appears in both
    directions in the input (u -> v and v -> u, two See Also entries with two texts) stays two pairs of
    parallel edges, each with its own text. The official code builds a ``SparseTensor`` and calls
    ``to_symmetric()``, which *sums* the two texts' embeddings into one entry; we do not.

    Parameters
    ----------
    edge_index : (2, E) int64.
    edge_attr : (E, d) float array or None.

    Returns
    -------
    (edge_index (2, 2E) int64, edge_attr (2E, d) or None, reverse (2E,) bool: True for the added direction).
    """
    ei = np.asarray(edge_index)
    if ei.ndim != 2 or ei.shape[0] != 2:
        raise ValueError(f"edge_index must have shape (2, E), got {ei.shape}")
    both = np.concatenate([ei, ei[::-1]], axis=1)
    reverse = np.repeat([False, True], ei.shape[1])
    if edge_attr is None:
        return both, None, reverse
    attr = np.asarray(edge_attr)
    if attr.ndim != 2 or attr.shape[0] != ei.shape[1]:
        raise ValueError(f"edge_attr must have shape ({ei.shape[1]}, d), got {attr.shape}")
    return both, np.concatenate([attr, attr], axis=0), reverse
