"""The chapter's experiments: node classification and link prediction, with and without edge text.

``run_plm_features(scale)``: the PLM-based paradigm (teg-plm) scored by logistic regression, per encoder and
feature variant, on shuffled splits, with two controls (edge texts shuffled among edges; node labels shuffled).
``run_gnn_nodes(scale)`` and ``run_gnn_links(scale)``: the GNNs of ``models`` on the same graph, edge-aware ones
with real, absent ('none') and shuffled edge text. Everything runs on the shipped docstring graph.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch

from .. import seeding
from .encoders import embed_graph
from .features import plm_features, summed_edge_input
from .graph import TextualEdgeGraph, load_docgraph
from .models import EDGE_AWARE, edge_text_vectors, message_graph
from .tasks import link_split, logreg_accuracy, node_splits, train_link_gnn, train_node_gnn

# Learning rates: at `fast`, 0.03 lets the node-text MLP reach the logistic regression's accuracy in 40 epochs;
# for links GINE (sum aggregation) diverges at 0.03 with or without edge text, so links use 0.01.
CONFIG = {
    "fast": {"splits": 5, "gnn_encoders": ("minilm",), "reduce_dim": 64, "node_kinds": ("MLP", "SAGE", "GINE"),
             "link_kinds": ("MLP", "SAGE", "GINE"), "hidden": 64, "node_epochs": 40, "link_epochs": 40,
             "node_lr": 0.03, "link_lr": 0.01, "tfidf_dim": 128},
    "full": {"splits": 5, "gnn_encoders": ("minilm", "tfidf"), "reduce_dim": None,
             "node_kinds": ("MLP", "GCN", "SAGE", "GINE", "GAT"), "link_kinds": ("MLP", "GCN", "SAGE", "GINE", "GAT"),
             "hidden": 256, "node_epochs": 200, "link_epochs": 200, "node_lr": 0.01, "link_lr": 0.003,
             "tfidf_dim": 384},
}


@dataclass
class Results:
    """Per-split values of an experiment.

    Attributes
    ----------
    values : dict mapping a key tuple (e.g. ('minilm', 'GINE', 'real')) to a (splits,) float array (or, for
        link prediction, a dict metric -> (splits,) array).
    info : the configuration and the graph's provenance.
    """

    values: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)

    def get(self, *key, metric=None) -> np.ndarray:
        v = self.values[key]
        return np.asarray(v[metric] if metric is not None else v, dtype=float)

    def mean_std(self, *key, metric=None) -> tuple[float, float]:
        v = self.get(*key, metric=metric)
        return float(v.mean()), float(v.std(ddof=1)) if v.size > 1 else 0.0


def config(scale: str) -> dict:
    if scale not in CONFIG:
        raise ValueError(f"run scale must be one of {tuple(CONFIG)}, got {scale!r}")
    return dict(CONFIG[scale])


def split_seeds(n_splits: int) -> tuple[int, ...]:
    """The seeds of the ``n_splits`` splits (through :mod:`neurips24.seeding`, so ``make reseed`` moves them)."""
    return seeding.seeds(n_splits)


def seeded_node_splits(labels, n_splits: int) -> list:
    """One shuffled stratified 70/30 split of the labelled nodes per seed of :func:`split_seeds`."""
    return [node_splits(labels, 1, seed=s)[0] for s in split_seeds(n_splits)]


def run_plm_features(scale: str = "fast", graph: TextualEdgeGraph | None = None,
                     encoders: tuple = ("minilm", "tfidf"), n_splits: int | None = None) -> Results:
    """Logistic regression on the PLM-based inputs (teg-plm), per encoder and variant, on shuffled splits.

    Keys: (encoder, variant) for variant in 'node', 'node+edge', 'node+nbr', 'node+nbr+edge',
    'node+edge (shuffled edge text)' (the edge vectors permuted among the edges that carry text),
    'node+edge (sum)' (the literal sum of (teg-plm): :func:`~neurips24.teg.features.summed_edge_input`),
    'node+edge (shuffled edge text, second draw)' (another permutation: the control of the text claims), and
    (encoder, 'node', 'shuffled labels') (node labels permuted among the labelled nodes: the encoder control).
    Each value is (splits,), one split per seed of :func:`split_seeds` (``info['seeds']``); ``encoders`` and
    ``n_splits`` (default: the scale's) narrow the run (the mutant tests use one encoder and 3 splits).

    Raises
    ------
    ValueError for an unknown scale or encoder, or n_splits < 1.
    """
    cfg = config(scale)
    g = graph or load_docgraph()
    n_splits = cfg["splits"] if n_splits is None else n_splits
    if isinstance(n_splits, bool) or not isinstance(n_splits, int) or n_splits < 1:
        raise ValueError(f"n_splits must be an integer >= 1, got {n_splits!r}")
    if not encoders or any(e not in ("minilm", "tfidf") for e in encoders):
        raise ValueError(f"encoders must be a non-empty tuple of 'minilm' / 'tfidf', got {encoders!r}")
    splits = seeded_node_splits(g.labels, n_splits)
    res = Results(info={"config": cfg, "meta": g.meta, "n_labelled": int((g.labels >= 0).sum()),
                        "test_size": 0.3, "seeds": split_seeds(n_splits), "encoders": tuple(encoders)})
    labelled = np.flatnonzero(g.labels >= 0)
    shuffled_labels = g.labels.copy()
    shuffled_labels[labelled] = g.labels[np.random.default_rng(seeding.seed(0)).permutation(labelled)]
    for enc in encoders:
        emb = embed_graph(g, enc, dim=cfg["tfidf_dim"])
        feats = {v: plm_features(emb.node_x, emb.edge_x, g.edge_index, g.has_text, v)
                 for v in ("node", "node+edge", "node+nbr", "node+nbr+edge")}
        shuffled = edge_text_vectors(emb.edge_x, g.has_text, "shuffled", seed=seeding.seed(0))
        feats["node+edge (shuffled edge text)"] = plm_features(emb.node_x, shuffled, g.edge_index, g.has_text,
                                                               "node+edge")
        feats["node+edge (sum)"] = summed_edge_input(emb.node_x, emb.edge_x, g.edge_index, g.has_text)
        second = edge_text_vectors(emb.edge_x, g.has_text, "shuffled", seed=seeding.seed(1))
        feats["node+edge (shuffled edge text, second draw)"] = plm_features(emb.node_x, second, g.edge_index,
                                                                            g.has_text, "node+edge")
        for v, X in feats.items():
            res.values[(enc, v)] = np.array([logreg_accuracy(X, g.labels, tr, te) for tr, te in splits])
        res.values[(enc, "node", "shuffled labels")] = np.array(
            [logreg_accuracy(feats["node"], shuffled_labels, tr, te) for tr, te in splits])
    return res


def gnn_inputs(g: TextualEdgeGraph, encoder: str, reduce_dim: int | None, tfidf_dim: int = 128,
               fit_edges=None):
    """Node and edge text vectors for the GNNs; with ``reduce_dim``, both projected by one PCA (scikit-learn).

    The PCA is unsupervised and fitted per split: on every node vector and on the text vectors of the edges in
    ``fit_edges`` ((E,) bool, default all edges; link prediction passes its training edges, so that no
    held-out pair's text shapes the projection).

    Returns
    -------
    node_x : (N, d') float32.   edge_x : (E, d') float32, zero rows for edges without text.
    """
    emb = embed_graph(g, encoder, dim=tfidf_dim)
    node_x, edge_x = emb.node_x, emb.edge_x
    if reduce_dim is not None and reduce_dim < node_x.shape[1]:
        from sklearn.decomposition import PCA

        fit = g.has_text if fit_edges is None else g.has_text & np.asarray(fit_edges, dtype=bool)
        pca = PCA(reduce_dim, random_state=0).fit(np.concatenate([node_x, edge_x[fit]]))
        node_x = pca.transform(node_x).astype(np.float32)
        reduced = np.zeros((g.num_edges, reduce_dim), dtype=np.float32)
        reduced[g.has_text] = pca.transform(edge_x[g.has_text])
        edge_x = reduced
    return node_x, edge_x


def _variants(kind):
    return ("real", "none", "shuffled") if kind in EDGE_AWARE else ("none",)


def run_gnn_nodes(scale: str = "fast", graph: TextualEdgeGraph | None = None) -> Results:
    """Node classification with the GNNs; keys (encoder, kind, text) with text 'real', 'none' or 'shuffled'."""
    cfg = config(scale)
    g = graph or load_docgraph()
    seeds = split_seeds(cfg["splits"])
    splits = seeded_node_splits(g.labels, cfg["splits"])
    res = Results(info={"config": cfg, "meta": g.meta, "seeds": seeds})
    y = torch.from_numpy(g.labels)
    for enc in cfg["gnn_encoders"]:
        node_x, edge_x = gnn_inputs(g, enc, cfg["reduce_dim"], cfg["tfidf_dim"])
        x = torch.from_numpy(node_x)
        for kind in cfg["node_kinds"]:
            for text in _variants(kind):
                accs = []
                for s, (tr, te) in zip(seeds, splits, strict=True):
                    ei, attr = message_graph(g.edge_index, edge_text_vectors(edge_x, g.has_text, text, seed=s),
                                             g.has_text)
                    accs.append(train_node_gnn(kind, x, ei, attr, y, tr, te, hidden=cfg["hidden"],
                                               epochs=cfg["node_epochs"], lr=cfg["node_lr"], seed=s))
                res.values[(enc, kind, text)] = np.array(accs)
    return res


def run_gnn_links(scale: str = "fast", graph: TextualEdgeGraph | None = None) -> Results:
    """Link prediction with the GNNs (node text as input); keys (encoder, kind, text), values dict
    metric -> (splits,) array for 'hits@10', 'hits@50', 'hits@100', 'auc'."""
    cfg = config(scale)
    g = graph or load_docgraph()
    seeds = split_seeds(cfg["splits"])
    res = Results(info={"config": cfg, "meta": g.meta, "seeds": seeds})
    split_list = [link_split(g.edge_index, g.num_nodes, seed=s) for s in seeds]
    res.info.update(test_pairs=len(split_list[0].test_pos), negatives=len(split_list[0].test_neg))
    for enc in cfg["gnn_encoders"]:
        inputs = []
        for sp in split_list:                  # PCA per split: fitted without the held-out pairs' texts
            train = np.zeros(g.num_edges, dtype=bool)
            train[sp.train_edges] = True
            inputs.append(gnn_inputs(g, enc, cfg["reduce_dim"], cfg["tfidf_dim"], fit_edges=train))
        for kind in cfg["link_kinds"]:
            for text in _variants(kind):
                runs = [train_link_gnn(kind, torch.from_numpy(node_x), g.edge_index,
                                       edge_text_vectors(edge_x, g.has_text, text, seed=s), g.has_text, sp,
                                       hidden=cfg["hidden"], epochs=cfg["link_epochs"], lr=cfg["link_lr"], seed=s)
                        for s, sp, (node_x, edge_x) in zip(seeds, split_list, inputs, strict=True)]
                res.values[(enc, kind, text)] = {m: np.array([r[m] for r in runs]) for m in runs[0]}
    return res


def paired_gain(a, b) -> dict:
    """Mean per-split gain a - b (paired: the same splits) with its Student-t interval (SciPy; the range for
    fewer than 5 splits), through :func:`neurips24.claims.t_interval`.

    Returns
    -------
    dict with 'gain' (mean), 'low', 'high' (interval ends), rounded to 4 decimals.

    Raises
    ------
    ValueError if a and b differ in shape, hold fewer than 2 splits, or a value is not finite.
    """
    from neurips24.claims import t_interval

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"a and b must be 1-d of the same shape, got {a.shape} and {b.shape}")
    iv = t_interval(a - b)
    return {"gain": round(float(iv.estimate), 4), "low": round(iv.low, 4), "high": round(iv.high, 4)}


def clear_gain(measure: dict, threshold: float = 0.02) -> bool:
    """The chapters' rule for "X helps": mean paired gain >= threshold and its interval above zero."""
    return bool(measure["gain"] >= threshold and measure["low"] > 0)


def explore_edge_text(keep_fraction: float = 1.0, encoder: str = "minilm", splits: int = 2,
                      graph: TextualEdgeGraph | None = None) -> dict:
    """Logistic-regression accuracy with node text only and with edge text, when only ``keep_fraction`` of the
    edges keep their text (the others lose it, chosen at random): how much edge text does the gain need?

    Returns
    -------
    dict variant -> (splits,) accuracies, for 'node', 'node+edge', 'node+edge (shuffled edge text)'.

    Raises
    ------
    ValueError if keep_fraction is outside [0, 1] or the encoder is unknown.
    """
    if not 0 <= keep_fraction <= 1:
        raise ValueError(f"keep_fraction must be in [0, 1], got {keep_fraction!r}")
    g = graph or load_docgraph()
    emb = embed_graph(g, encoder)
    keep = g.has_text & (np.random.default_rng(seeding.seed(1)).random(g.num_edges) < keep_fraction)
    edge_x = np.where(keep[:, None], emb.edge_x, 0.0)
    feats = {"node": emb.node_x,
             "node+edge": plm_features(emb.node_x, edge_x, g.edge_index, keep, "node+edge"),
             "node+edge (shuffled edge text)": plm_features(
                 emb.node_x, edge_text_vectors(edge_x, keep, "shuffled", seed=seeding.seed(0)), g.edge_index, keep,
                 "node+edge")}
    split_list = seeded_node_splits(g.labels, splits)
    return {v: np.array([logreg_accuracy(X, g.labels, tr, te) for tr, te in split_list]) for v, X in feats.items()}
