"""The two tasks of the benchmark: node classification and link prediction, on shuffled splits.

Protocols follow the official scripts (TEG-Benchmark ``GNN/GNN_Node.py``, ``GNN/GNN_Link_HitsK.py``,
``GNN/GNN_Link_AUC.py``), with the faults the chapter lists fixed: splits are shuffled (the official node split is
a sequential slice), a held-out edge's text never reaches the model (neither at test time nor for the positive
edges of a training step), both directions of a node pair are held out together, and reciprocal edges keep their
own features (no ``to_symmetric()`` sum).

- Node classification: cross-entropy on the training nodes, accuracy on the test nodes; the PLM-based
  paradigm is scored with scikit-learn's multinomial ``LogisticRegression``.
- Link prediction: positives are held-out node pairs, negatives uniform random pairs that are not edges; the
  predictor σ(MLP(h_u ⊙ h_v)) is trained with −log σ(s⁺) − log(1 − σ(s⁻)) against as many uniform negatives;
  Hits@K (OGB's definition: the share of positives scored above the K-th best negative) and ROC AUC
  (``sklearn.metrics.roc_auc_score``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from .models import GNN, LinkPredictor


def node_splits(labels, n_splits: int = 5, test_size: float = 0.3, seed: int = 0):
    """Shuffled, stratified train/test splits of the labelled nodes (scikit-learn ``StratifiedShuffleSplit``).

    Parameters
    ----------
    labels : (N,) int, -1 for unlabelled nodes (left out of both parts).
    n_splits : >= 1. test_size : in (0, 1). seed : int.

    Returns
    -------
    list of (train_nodes, test_nodes), int64 node ids.
    """
    from sklearn.model_selection import StratifiedShuffleSplit

    y = np.asarray(labels)
    if not 0 < test_size < 1:
        raise ValueError(f"test_size must be in (0, 1), got {test_size!r}")
    if isinstance(n_splits, bool) or not isinstance(n_splits, int) or n_splits < 1:
        raise ValueError(f"n_splits must be an integer >= 1, got {n_splits!r}")
    nodes = np.flatnonzero(y >= 0)
    sss = StratifiedShuffleSplit(n_splits, test_size=test_size, random_state=seed)
    return [(nodes[tr], nodes[te]) for tr, te in sss.split(nodes, y[nodes])]


def logreg_accuracy(X, labels, train, test, C: float = 10.0) -> float:
    """Test accuracy of a multinomial logistic regression (scikit-learn, lbfgs, one BLAS thread).

    Parameters
    ----------
    X : (N, k) float features. labels : (N,) int. train, test : int node ids. C : inverse L2 strength, > 0.

    Returns
    -------
    float in [0, 1].
    """
    from sklearn.linear_model import LogisticRegression
    from threadpoolctl import threadpool_limits

    X = np.asarray(X)
    if not np.all(np.isfinite(X)):
        raise ValueError("X must be finite (no NaN or inf)")
    y = np.asarray(labels)
    with threadpool_limits(1):   # on 2 shared cores, one BLAS thread is several times faster
        clf = LogisticRegression(C=C, max_iter=300, tol=1e-3).fit(X[train], y[train])
        return float(clf.score(X[test], y[test]))


def train_node_gnn(kind, x, edge_index, edge_attr, labels, train, test, *, hidden=64, num_layers=2, epochs=100,
                   lr=0.01, dropout=0.2, seed=0) -> float:
    """Train a GNN + linear head on the training nodes (full batch, Adam) and return the test accuracy.

    Parameters
    ----------
    kind : a :data:`neurips24.teg.models.KINDS` entry. x : (N, d) float32 tensor. edge_index : (2, E') long tensor
    (both directions). edge_attr : (E', d_e) float32 tensor or None. labels : (N,) long tensor. train, test :
    node ids. hidden, num_layers, epochs, lr, dropout : the model and optimiser. seed : seeds the initialisation.

    Returns
    -------
    float, the accuracy on ``test`` after the last epoch (no early stopping).

    Raises
    ------
    TypeError if x is not a 2-d float tensor; ValueError for non-finite x or edge features, edges pointing at
    missing nodes, edge features with another number of rows than edges, or labels not of shape (N,).
    """
    _check_gnn_inputs(x, edge_index, edge_attr)
    if labels.shape != (x.shape[0],):
        raise ValueError(f"labels must have shape ({x.shape[0]},) like x's rows, got {tuple(labels.shape)}")
    torch.manual_seed(seed)
    n_classes = int(labels.max()) + 1
    gnn = GNN(kind, x.shape[1], edge_attr.shape[1] if edge_attr is not None else 1, hidden, num_layers, dropout)
    head = torch.nn.Linear(hidden, n_classes)
    params = list(gnn.parameters()) + list(head.parameters())
    opt = torch.optim.Adam(params, lr=lr)
    train, test = torch.as_tensor(train), torch.as_tensor(test)
    for _ in range(epochs):
        gnn.train()
        opt.zero_grad()
        h = F.dropout(F.relu(gnn(x, edge_index, edge_attr)), dropout, True)
        F.cross_entropy(head(h)[train], labels[train]).backward()
        opt.step()
    gnn.eval()
    with torch.no_grad():
        pred = head(F.relu(gnn(x, edge_index, edge_attr))).argmax(1)
    return float((pred[test] == labels[test]).float().mean())


@dataclass(frozen=True)
class LinkSplit:
    """A link-prediction split of a directed edge list into node pairs.

    Attributes
    ----------
    train_edges : (E_tr,) int64 ids of the directed edges whose pair is in training.
    train_pair : (E_tr,) int64, the pair id of each training edge (0..P_tr-1).
    test_pos : (P_te, 2) int64 held-out pairs (u < v). test_neg : (M, 2) int64 non-edges.
    """

    train_edges: np.ndarray
    train_pair: np.ndarray
    test_pos: np.ndarray
    test_neg: np.ndarray


def link_split(edge_index, num_nodes: int, test_ratio: float = 0.08, num_negatives: int = 10000,
               seed: int = 0) -> LinkSplit:
    """Hold out a shuffled ``test_ratio`` of the node pairs {u, v} (both directions together) and draw negatives.

    Negatives are uniform pairs u != v that are not edges in either direction (the official code leaves
    this filter as a TODO).

    Raises
    ------
    ValueError if test_ratio is outside (0, 1), num_negatives < 1, or there are too few pairs.
    """
    ei = np.asarray(edge_index, dtype=np.int64)
    if not 0 < test_ratio < 1:
        raise ValueError(f"test_ratio must be in (0, 1), got {test_ratio!r}")
    if isinstance(num_negatives, bool) or not isinstance(num_negatives, int) or num_negatives < 1:
        raise ValueError(f"num_negatives must be an integer >= 1, got {num_negatives!r}")
    lo, hi = np.minimum(ei[0], ei[1]), np.maximum(ei[0], ei[1])
    pairs, pair_of_edge = np.unique(lo * num_nodes + hi, return_inverse=True)
    n_test = int(round(len(pairs) * test_ratio))
    if n_test < 1 or n_test >= len(pairs):
        raise ValueError(f"{len(pairs)} node pairs cannot be split with test_ratio={test_ratio}")
    rng = np.random.default_rng(seed)
    test = np.zeros(len(pairs), dtype=bool)
    test[rng.permutation(len(pairs))[:n_test]] = True
    train_edges = np.flatnonzero(~test[pair_of_edge])
    _, train_pair = np.unique(pair_of_edge[train_edges], return_inverse=True)
    test_pos = np.stack([pairs[test] // num_nodes, pairs[test] % num_nodes], axis=1)
    known = set(pairs.tolist())
    neg = []
    while len(neg) < num_negatives:
        u, v = rng.integers(0, num_nodes, 2)
        if u != v and min(u, v) * num_nodes + max(u, v) not in known:
            neg.append((u, v))
    return LinkSplit(train_edges, train_pair.astype(np.int64), test_pos, np.array(neg, dtype=np.int64))


def hits_at_k(pos_scores, neg_scores, k: int) -> float:
    """Share of positive scores strictly above the k-th highest negative score (OGB's Hits@K).

    Raises
    ------
    ValueError if k < 1, there are fewer than k negatives, or a score is NaN or infinite (a NaN compares
    False with everything and would read as a miss).
    """
    pos = np.asarray(pos_scores, dtype=float)
    neg = np.asarray(neg_scores, dtype=float)
    if not (np.all(np.isfinite(pos)) and np.all(np.isfinite(neg))):
        raise ValueError("pos_scores and neg_scores must be finite (no NaN or inf)")
    if pos.size == 0:
        raise ValueError("pos_scores must hold at least one score")
    neg = np.sort(neg)[::-1]
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= len(neg):
        raise ValueError(f"k must be an integer in 1..{len(neg)}, got {k!r}")
    return float(np.mean(pos > neg[k - 1]))


def train_link_gnn(kind, x, edge_index, edge_vectors, has_text, split: LinkSplit, *, hidden=64, num_layers=2,
                   epochs=100, lr=0.01, supervision_ratio=0.3, seed=0, ks=(10, 50, 100)) -> dict:
    """Train a GNN + link predictor on the training pairs and score the held-out pairs against the negatives.

    Each epoch a random ``supervision_ratio`` of the training pairs are the positives and are *removed* from
    the message-passing graph (with their texts), so that, as at test time, a positive's own edge and text are
    never seen by the encoder; the remaining training edges (both directions, features [text vector, has-text,
    reverse]) carry the messages. At test time all training edges carry messages.

    Parameters
    ----------
    kind : GNN kind. x : (N, d) float32 tensor. edge_index : (2, E) int64 directed edges. edge_vectors : (E, d_t)
    text vectors (real, zero or shuffled: :func:`neurips24.teg.models.edge_text_vectors`). has_text : (E,) bool.
    split : :class:`LinkSplit`. hidden, num_layers, epochs, lr : model and Adam. supervision_ratio : in (0, 1).
    seed : seeds the initialisation and the sampling. ks : the K of Hits@K.

    Returns
    -------
    dict with 'hits@K' for each K and 'auc'.

    Raises
    ------
    ValueError for supervision_ratio outside (0, 1), and the input errors of :func:`train_node_gnn`.
    """
    from sklearn.metrics import roc_auc_score

    from .models import message_graph

    if not 0 < supervision_ratio < 1:
        raise ValueError(f"supervision_ratio must be in (0, 1), got {supervision_ratio!r}")
    ei_all = torch.as_tensor(np.asarray(edge_index, dtype=np.int64))
    _check_gnn_inputs(x, ei_all, torch.as_tensor(np.asarray(edge_vectors, dtype=np.float32)))
    if np.asarray(has_text).shape != (ei_all.shape[1],):
        raise ValueError(f"has_text must have shape ({ei_all.shape[1]},), got {np.asarray(has_text).shape}")
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    ei = np.asarray(edge_index, dtype=np.int64)[:, split.train_edges]
    vec, has = np.asarray(edge_vectors)[split.train_edges], np.asarray(has_text)[split.train_edges]
    full_ei, full_attr = message_graph(ei, vec, has)
    n_pairs = int(split.train_pair.max()) + 1
    gnn = GNN(kind, x.shape[1], full_attr.shape[1], hidden, num_layers)
    pred = LinkPredictor(hidden, 2)
    opt = torch.optim.Adam(list(gnn.parameters()) + list(pred.parameters()), lr=lr)
    n = x.shape[0]
    for _ in range(epochs):
        gnn.train()
        pred.train()
        supervised = rng.random(n_pairs) < supervision_ratio
        keep = ~supervised[split.train_pair]
        mp = torch.from_numpy(np.concatenate([keep, keep]))
        pos_edges = torch.from_numpy(ei[:, ~keep])
        neg_edges = torch.from_numpy(rng.integers(0, n, pos_edges.shape))
        opt.zero_grad()
        h = gnn(x, full_ei[:, mp], full_attr[mp])
        s_pos, s_neg = pred(h[pos_edges[0]], h[pos_edges[1]]), pred(h[neg_edges[0]], h[neg_edges[1]])
        loss = F.softplus(-s_pos).mean() + F.softplus(s_neg).mean()   # −log σ(s⁺) − log(1 − σ(s⁻))
        loss.backward()
        opt.step()
    gnn.eval()
    pred.eval()
    with torch.no_grad():
        h = gnn(x, full_ei, full_attr)
        pos, neg = (pred(h[torch.from_numpy(p[:, 0])], h[torch.from_numpy(p[:, 1])]).numpy()
                    for p in (split.test_pos, split.test_neg))
    out = {f"hits@{k}": hits_at_k(pos, neg, k) for k in ks}
    out["auc"] = float(roc_auc_score(np.r_[np.ones(len(pos)), np.zeros(len(neg))], np.r_[pos, neg]))
    return out


def _check_gnn_inputs(x, edge_index, edge_attr) -> None:
    """x (N, d) finite float tensor; edge_index (2, E) ids in 0..N-1; edge_attr None or (E, d_e) finite."""
    if not isinstance(x, torch.Tensor) or x.ndim != 2 or not x.is_floating_point():
        raise TypeError("x must be a 2-d float tensor (N, d)")
    if not torch.isfinite(x).all():
        raise ValueError("x must be finite (no NaN or inf)")
    if edge_index.ndim != 2 or edge_index.shape[0] != 2:
        raise ValueError(f"edge_index must have shape (2, E), got {tuple(edge_index.shape)}")
    if edge_index.numel() and (int(edge_index.min()) < 0 or int(edge_index.max()) >= x.shape[0]):
        raise ValueError(f"edge_index points at a missing node: ids must be in 0..{x.shape[0] - 1}")
    if edge_attr is not None:
        if edge_attr.ndim != 2 or edge_attr.shape[0] != edge_index.shape[1]:
            raise ValueError(f"edge features must have one row per edge ({edge_index.shape[1]}), "
                             f"got shape {tuple(edge_attr.shape)}")
        if not torch.isfinite(edge_attr).all():
            raise ValueError("edge features must be finite (no NaN or inf)")
