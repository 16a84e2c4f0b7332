"""The textual-edge graph: validation of bad input, the shipped docstring graph, both directions without sums,
and the rebuild script's See Also resolution (teg.graph, teg.build_docgraph)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.teg import build_docgraph, graph


def _tiny(**over):
    parts = dict(node_text=["a b", "c d", "e f"], edge_index=[[0, 1], [1, 2]], edge_text=["x y", None],
                 labels=[0, 1, -1], label_names=["m0", "m1"])
    parts.update(over)
    return graph.make_graph(**parts)


def test_make_graph_ok():
    g = _tiny()
    assert g.num_nodes == 3 and g.num_edges == 2
    np.testing.assert_array_equal(g.has_text, [True, False])
    assert g.edge_index.dtype == np.int64 and g.labels.dtype == np.int64


@pytest.mark.parametrize("over, err, match", [
    ({"edge_index": [[0, 1], [1, 3]]}, ValueError, "missing node"),
    ({"edge_index": [[0, -1], [1, 2]]}, ValueError, "missing node"),
    ({"edge_index": [[0, 1, 2], [1, 2, 0]]}, ValueError, "edge_text has 2"),
    ({"edge_index": [0, 1]}, ValueError, r"\(2, E\)"),
    ({"edge_index": [[0.0, 1.0], [1.0, 2.0]]}, TypeError, "integers"),
    ({"node_text": ["a", " ", "b"]}, ValueError, r"node_text\[1\] is empty"),
    ({"node_text": ["a", 3, "b"]}, TypeError, r"node_text\[1\]"),
    ({"node_text": []}, ValueError, "at least one"),
    ({"edge_text": ["x", ""]}, ValueError, "use None"),
    ({"edge_text": ["x", 5]}, TypeError, r"edge_text\[1\]"),
    ({"labels": [0, 1]}, ValueError, "labels must have shape"),
    ({"labels": [0, 2, 1]}, ValueError, r"-1\.\.1"),
    ({"labels": [0.0, 1.0, 1.0]}, TypeError, "integers"),
])
def test_make_graph_bad_input(over, err, match):
    with pytest.raises(err, match=match):
        _tiny(**over)


def test_undirected_keeps_reciprocal_edges_apart():
    # u->v and v->u with different texts: four directed edges, each text twice, nothing summed
    ei = np.array([[0, 1], [1, 0]])
    attr = np.array([[1.0, 0.0], [0.0, 1.0]])
    both, a, rev = graph.undirected(ei, attr)
    np.testing.assert_array_equal(both, [[0, 1, 1, 0], [1, 0, 0, 1]])
    np.testing.assert_array_equal(a, [[1, 0], [0, 1], [1, 0], [0, 1]])
    np.testing.assert_array_equal(rev, [False, False, True, True])
    assert not np.any(a.sum(1) > 1)   # a to_symmetric() sum would give [1, 1] on the merged pair
    with pytest.raises(ValueError, match="edge_attr"):
        graph.undirected(ei, attr[:1])


def test_shipped_docgraph():
    g = graph.load_docgraph()
    assert g.num_nodes > 2000 and g.num_edges > 4000 and g.has_text.sum() > 2000
    assert set(g.meta["versions"]) >= {"numpy", "scipy", "scikit-learn"}
    counts = np.bincount(g.labels[g.labels >= 0])
    assert len(g.label_names) == len(counts) and counts.min() >= g.meta["min_class_size"]
    # the label is the module the node's name starts with
    for i in np.flatnonzero(g.labels >= 0)[::97]:
        assert g.node_names[i].rsplit(".", 1)[0] == g.label_names[g.labels[i]]
    assert not np.any(g.edge_index[0] == g.edge_index[1])
    pairs = set(map(tuple, g.edge_index.T.tolist()))
    assert len(pairs) == g.num_edges   # no duplicate directed edge


def test_resolve_by_hand():
    nodes = {"numpy.sum": {"module": "numpy"}, "numpy.linalg.norm": {"module": "numpy.linalg"},
             "scipy.linalg.norm": {"module": "scipy.linalg"}, "numpy.linalg.cond": {"module": "numpy.linalg"},
             "scipy.stats.zscore": {"module": "scipy.stats"}}
    by_short = {}
    for n in nodes:
        by_short.setdefault(n.rsplit(".", 1)[1], []).append(n)
    r = build_docgraph.resolve
    assert r("norm", "numpy.linalg.cond", nodes, by_short) == "numpy.linalg.norm"   # same module
    assert r("numpy.sum", "numpy.linalg.cond", nodes, by_short) == "numpy.sum"     # exact
    assert r("sum", "numpy.linalg.cond", nodes, by_short) == "numpy.sum"           # same library
    assert r(":func:`~scipy.stats.zscore`", "numpy.sum", nodes, by_short) == "scipy.stats.zscore"
    assert r("zscore", "numpy.sum", nodes, by_short) == "scipy.stats.zscore"       # unique short name
    assert r("missing", "numpy.sum", nodes, by_short) is None


def test_rebuild_matches_shipped_file_for_the_same_versions(tmp_path):
    import numpy
    import scipy
    import sklearn

    shipped = graph.load_docgraph()
    installed = {"numpy": numpy.__version__, "scipy": scipy.__version__, "scikit-learn": sklearn.__version__}
    if any(shipped.meta["versions"][k] != v for k, v in installed.items()):
        pytest.skip(f"installed {installed} differ from the shipped graph's {shipped.meta['versions']}")
    out = tmp_path / "g.json.gz"
    build_docgraph.main(["--out", str(out)])
    rebuilt = graph.load_docgraph(out)
    assert rebuilt.node_names == shipped.node_names and rebuilt.edge_text == shipped.edge_text
    np.testing.assert_array_equal(rebuilt.edge_index, shipped.edge_index)
    np.testing.assert_array_equal(rebuilt.labels, shipped.labels)
