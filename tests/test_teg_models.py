"""GNNs and edge features: GINE against its formula written out, edge-text modes, message graph (teg.models)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.teg import models

pytest.importorskip("torch_geometric")


def _graph():
    torch.manual_seed(0)
    x = torch.randn(5, 4)
    ei = torch.tensor([[0, 1, 2, 3, 4, 0], [1, 2, 3, 4, 0, 2]])
    attr = torch.randn(6, 3)
    return x, ei, attr


@pytest.mark.parametrize("kind", models.KINDS)
def test_gnn_shapes_and_backward(kind):
    x, ei, attr = _graph()
    net = models.GNN(kind, 4, 3, hidden=8, num_layers=2)
    out = net(x, ei, attr)
    assert out.shape == (5, 8)
    out.sum().backward()
    assert all(p.grad is not None for p in net.parameters() if p.requires_grad)


def test_gine_layer_matches_its_formula():
    # h_u' = W((1 + eps) h_u + sum_{v -> u} ReLU(h_v + W_e e_vu)), eps = 0, one layer
    x, ei, attr = _graph()
    net = models.GNN("GINE", 4, 3, hidden=6, num_layers=1)
    conv = net.layers[0]
    agg = torch.zeros(5, 4)
    for k in range(ei.shape[1]):
        s, t = ei[:, k]
        agg[t] += torch.relu(x[s] + conv.lin(attr[k]))
    want = conv.nn(x + agg)
    torch.testing.assert_close(net(x, ei, attr), want, rtol=1e-5, atol=1e-5)


def test_edge_text_changes_gine_but_not_sage():
    x, ei, attr = _graph()
    for kind, changes in (("GINE", True), ("SAGE", False)):
        net = models.GNN(kind, 4, 3, hidden=8)
        a, b = net(x, ei, attr), net(x, ei, torch.zeros_like(attr))
        assert (not torch.allclose(a, b)) == changes


def test_edge_text_vectors_modes():
    rng = np.random.default_rng(0)
    ex = rng.normal(size=(10, 3)).astype(np.float32)
    has = np.array([1, 1, 0, 1, 1, 0, 1, 1, 1, 0], bool)
    ex[~has] = 0
    np.testing.assert_array_equal(models.edge_text_vectors(ex, has, "real"), ex)
    assert not models.edge_text_vectors(ex, has, "none").any()
    sh = models.edge_text_vectors(ex, has, "shuffled", seed=3)
    np.testing.assert_array_equal(sh[~has], 0)
    # the same multiset of text vectors, moved among the edges with text
    np.testing.assert_allclose(np.sort(sh[has], axis=0), np.sort(ex[has], axis=0))
    assert not np.allclose(sh, ex)
    with pytest.raises(ValueError, match="text must be"):
        models.edge_text_vectors(ex, has, "random")
    with pytest.raises(ValueError, match="has_text"):
        models.edge_text_vectors(ex, has[:5])


def test_message_graph_both_directions():
    ei, attr = models.message_graph(np.array([[0, 1], [1, 2]]), np.array([[1.0, 2.0], [0.0, 0.0]]),
                                    np.array([True, False]))
    np.testing.assert_array_equal(ei.numpy(), [[0, 1, 1, 2], [1, 2, 0, 1]])
    np.testing.assert_array_equal(attr.numpy(), [[1, 2, 1, 0], [0, 0, 0, 0], [1, 2, 1, 1], [0, 0, 0, 1]])


def test_gnn_bad_arguments():
    with pytest.raises(ValueError, match="kind"):
        models.GNN("GIN", 4, 3)
    with pytest.raises(ValueError, match="hidden"):
        models.GNN("GCN", 4, 3, hidden=0)
    with pytest.raises(ValueError, match="dropout"):
        models.GNN("GCN", 4, 3, dropout=1.0)


def test_link_predictor_is_symmetric():
    torch.manual_seed(0)
    p = models.LinkPredictor(6)
    a, b = torch.randn(4, 6), torch.randn(4, 6)
    torch.testing.assert_close(p(a, b), p(b, a))
