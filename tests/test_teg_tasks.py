"""Task protocols: Hits@K by hand, link splits that hold pairs out in both directions, node splits, and the
training loops on small graphs they must solve (teg.tasks)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.teg import tasks


def test_hits_at_k_by_hand():
    neg = [0.9, 0.8, 0.1, 0.5]
    pos = [0.95, 0.85, 0.6, 0.2]
    assert tasks.hits_at_k(pos, neg, 1) == 0.25   # above 0.9
    assert tasks.hits_at_k(pos, neg, 2) == 0.5    # above 0.8
    assert tasks.hits_at_k(pos, neg, 3) == 0.75   # above 0.5
    assert tasks.hits_at_k([0.8], neg, 2) == 0.0  # a tie does not count
    with pytest.raises(ValueError, match="k must be"):
        tasks.hits_at_k(pos, neg, 5)


def test_link_split_holds_pairs_out_in_both_directions():
    rng = np.random.default_rng(0)
    n = 60
    ei = rng.integers(0, n, (2, 300))
    ei = ei[:, ei[0] != ei[1]]
    ei = np.concatenate([ei, ei[::-1, :40]], axis=1)   # 40 reciprocal pairs
    sp = tasks.link_split(ei, n, test_ratio=0.1, num_negatives=200, seed=1)
    train_pairs = {(min(u, v), max(u, v)) for u, v in ei[:, sp.train_edges].T}
    test_pairs = set(map(tuple, sp.test_pos.tolist()))
    all_pairs = {(min(u, v), max(u, v)) for u, v in ei.T}
    assert not train_pairs & test_pairs and train_pairs | test_pairs == all_pairs
    assert len(test_pairs) == round(0.1 * len(all_pairs))
    assert all((min(u, v), max(u, v)) not in all_pairs and u != v for u, v in sp.test_neg)
    assert len(sp.test_neg) == 200 and sp.train_pair.max() + 1 == len(train_pairs)
    with pytest.raises(ValueError, match="test_ratio"):
        tasks.link_split(ei, n, test_ratio=1.5)
    with pytest.raises(ValueError, match="num_negatives"):
        tasks.link_split(ei, n, num_negatives=0)


def test_node_splits_shuffled_stratified_disjoint():
    labels = np.array([0] * 30 + [1] * 20 + [-1] * 10)
    splits = tasks.node_splits(labels, 3, test_size=0.3, seed=0)
    assert len(splits) == 3
    for tr, te in splits:
        assert not set(tr) & set(te) and (labels[np.r_[tr, te]] >= 0).all() and len(tr) + len(te) == 50
        assert abs(np.mean(labels[te] == 0) - 0.6) < 0.1
    assert not np.array_equal(splits[0][1], splits[1][1])
    assert not np.array_equal(np.sort(splits[0][1]), np.arange(35, 50))   # not a sequential slice
    with pytest.raises(ValueError, match="test_size"):
        tasks.node_splits(labels, 2, test_size=0)


def test_logreg_accuracy_separable_and_bad_input():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 40)
    X = np.eye(3)[y] * 3 + rng.normal(0, 0.3, (120, 3))
    tr, te = np.arange(0, 120, 2), np.arange(1, 120, 2)
    assert tasks.logreg_accuracy(X, y, tr, te) == 1.0
    X[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        tasks.logreg_accuracy(X, y, tr, te)


def _two_communities(n=40, seed=0):
    """Two cliques-ish communities joined by one edge; node features are noise plus a weak class signal."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    edges = [(u, v) for u in range(n) for v in range(u + 1, n) if y[u] == y[v] and rng.random() < 0.3]
    edges.append((0, n - 1))
    ei = np.array(edges).T
    x = rng.normal(0, 1, (n, 8)).astype(np.float32)
    x[:, 0] += np.where(y == 1, 0.5, -0.5)
    return x, ei, y


def test_train_node_gnn_uses_the_graph():
    pytest.importorskip("torch_geometric")
    torch.manual_seed(0)
    from neurips24.teg.models import message_graph

    x, ei, y = _two_communities()
    mg, attr = message_graph(ei, np.zeros((ei.shape[1], 2), np.float32), np.zeros(ei.shape[1], bool))
    tr, te = np.arange(0, 40, 4), np.setdiff1d(np.arange(40), np.arange(0, 40, 4))
    kw = dict(hidden=16, epochs=60, lr=0.02, dropout=0.0)
    sage = tasks.train_node_gnn("SAGE", torch.from_numpy(x), mg, attr, torch.from_numpy(y), tr, te, **kw)
    assert sage >= 0.9   # neighbours' features average out the noise


def test_train_link_gnn_beats_chance_on_communities():
    pytest.importorskip("torch_geometric")
    x, ei, y = _two_communities(60, seed=1)
    sp = tasks.link_split(ei, 60, test_ratio=0.2, num_negatives=300, seed=0)
    has = np.zeros(ei.shape[1], bool)
    out = tasks.train_link_gnn("SAGE", torch.from_numpy(x), ei, np.zeros((ei.shape[1], 2), np.float32), has, sp,
                               hidden=16, epochs=80, lr=0.02, ks=(10,))
    assert set(out) == {"hits@10", "auc"}
    assert out["auc"] > 0.75   # half the negatives cross communities, the positives never do
    with pytest.raises(ValueError, match="supervision_ratio"):
        tasks.train_link_gnn("SAGE", torch.from_numpy(x), ei, np.zeros((ei.shape[1], 2)), has, sp,
                             supervision_ratio=1.0)


def test_gnn_training_bad_input():
    x, ei, y = _two_communities()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    ei_t = torch.from_numpy(ei)
    attr = torch.zeros(ei.shape[1], 3)
    tr, te = np.arange(10), np.arange(10, 40)
    with pytest.raises(ValueError, match="missing node"):
        tasks.train_node_gnn("MLP", xt, ei_t + 100, attr, yt, tr, te, epochs=1)
    with pytest.raises(ValueError, match="one row per edge"):
        tasks.train_node_gnn("MLP", xt, ei_t, attr[:-1], yt, tr, te, epochs=1)
    with pytest.raises(ValueError, match="labels"):
        tasks.train_node_gnn("MLP", xt, ei_t, attr, yt[:-1], tr, te, epochs=1)
    bad = xt.clone()
    bad[0, 0] = float("nan")
    with pytest.raises(ValueError, match="finite"):
        tasks.train_node_gnn("MLP", bad, ei_t, attr, yt, tr, te, epochs=1)
    with pytest.raises(TypeError, match="float tensor"):
        tasks.train_node_gnn("MLP", x, ei_t, attr, yt, tr, te, epochs=1)
    sp = tasks.link_split(ei, 40, num_negatives=20)
    with pytest.raises(ValueError, match="one row per edge"):
        tasks.train_link_gnn("MLP", xt, ei, np.zeros((3, 2)), np.zeros(ei.shape[1], bool), sp, epochs=1)
    with pytest.raises(ValueError, match="has_text"):
        tasks.train_link_gnn("MLP", xt, ei, np.zeros((ei.shape[1], 2)), np.zeros(3, bool), sp, epochs=1)
