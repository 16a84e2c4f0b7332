"""The GNNs of the benchmark, from torch-geometric: MLP, GCN and SAGE ignore edge text, GINE and GAT read it.

As in the official ``GNN/model/GNN_library.py`` (TEG-Benchmark): a stack of ``num_layers`` convolutions, ReLU
(ELU for GAT) and dropout between them; GINE's inner network is one Linear layer (``GINEConv(Linear(...),
edge_dim=...)``), GAT has ``heads`` attention heads, ``edge_dim`` and no added self-loops. torch-geometric computes
the message passing (``GCNConv``, ``SAGEConv``, ``GINEConv``, ``GATConv``); an edge-aware layer gets the edge
features ``edge_attr`` (E, d_e):

- GINE (Hu et al. 2020):  h_u' = W ((1 + ε) h_u + Σ_{v → u} ReLU(h_v + W_e e_vu))                     (teg-gine)
- GAT with edge features:  α_vu ∝ exp(LeakyReLU(aᵀ [W h_u ‖ W h_v ‖ W_e e_vu])),  h_u' = Σ_v α_vu W h_v
"""
from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

KINDS = ("MLP", "GCN", "SAGE", "GINE", "GAT")
EDGE_AWARE = ("GINE", "GAT")
TEXT_MODES = ("real", "none", "shuffled")


class GNN(nn.Module):
    """A ``num_layers``-layer encoder of one kind.

    Parameters
    ----------
    kind : one of 'MLP', 'GCN', 'SAGE', 'GINE', 'GAT'.
    in_dim : node feature size d. edge_dim : edge feature size d_e (used by GINE and GAT only).
    hidden : hidden and output size. num_layers : >= 1. dropout : in [0, 1). heads : GAT's heads.

    ``forward(x (N, d), edge_index (2, E) long, edge_attr (E, d_e) or None) -> (N, hidden)``.

    Raises
    ------
    ValueError for an unknown kind, sizes < 1, or dropout outside [0, 1).
    """

    def __init__(self, kind: str, in_dim: int, edge_dim: int, hidden: int = 64, num_layers: int = 2,
                 dropout: float = 0.0, heads: int = 2):
        super().__init__()
        from torch_geometric.nn import GATConv, GCNConv, GINEConv, SAGEConv

        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        for name, v in (("in_dim", in_dim), ("edge_dim", edge_dim), ("hidden", hidden), ("num_layers", num_layers),
                        ("heads", heads)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {v!r}")
        if not 0 <= dropout < 1:
            raise ValueError(f"dropout must be in [0, 1), got {dropout!r}")
        self.kind, self.dropout = kind, float(dropout)
        dims = [in_dim] + [hidden] * num_layers
        layers = []
        for i, (a, b) in enumerate(zip(dims[:-1], dims[1:], strict=True)):
            last = i == num_layers - 1
            if kind == "MLP":
                layers.append(nn.Linear(a, b))
            elif kind == "GCN":
                layers.append(GCNConv(a, b))
            elif kind == "SAGE":
                layers.append(SAGEConv(a, b))
            elif kind == "GINE":
                layers.append(GINEConv(nn.Linear(a, b), edge_dim=edge_dim))
            else:   # GAT: heads concatenated inside, averaged at the last layer (as the official GAT)
                a_in = a if i == 0 else hidden * heads
                layers.append(GATConv(a_in, b, heads=heads, concat=not last, edge_dim=edge_dim,
                                      add_self_loops=False))
        self.layers = nn.ModuleList(layers)

    def forward(self, x, edge_index, edge_attr=None):
        for i, layer in enumerate(self.layers):
            if self.kind == "MLP":
                x = layer(x)
            elif self.kind in EDGE_AWARE:
                x = layer(x, edge_index, edge_attr)
            else:
                x = layer(x, edge_index)
            if i < len(self.layers) - 1:
                x = F.elu(x) if self.kind == "GAT" else F.relu(x)
                x = F.dropout(x, self.dropout, self.training)
        return x


class LinkPredictor(nn.Module):
    """σ(MLP(h_u ⊙ h_v)): the official link predictor (``GNN_Link_HitsK.py``), symmetric in u and v.

    ``forward(h_u (B, k), h_v (B, k)) -> (B,) logits`` (the sigmoid is left to the loss).
    """

    def __init__(self, hidden: int, num_layers: int = 2):
        super().__init__()
        dims = [hidden] * num_layers + [1]
        self.lins = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:], strict=True))

    def forward(self, h_u, h_v):
        z = h_u * h_v
        for lin in self.lins[:-1]:
            z = F.relu(lin(z))
        return self.lins[-1](z).squeeze(-1)


def edge_text_vectors(edge_x, has_text, text: str = "real", seed: int = 0) -> np.ndarray:
    """The edge-text part of an edge-aware GNN's input, real, removed, or shuffled (the control).

    Parameters
    ----------
    edge_x : (E, d) float, the text vectors of the (directed) edges, zero rows for edges without text.
    has_text : (E,) bool.
    text : 'real'; 'none' (all vectors zero: the same model without edge text); 'shuffled' (the vectors permuted
        among the edges that carry text, so that a text no longer belongs to its edge: same vectors, same
        counts, same graph).
    seed : seeds the permutation ('shuffled' only).

    Returns
    -------
    (E, d) float32.

    Raises
    ------
    ValueError for an unknown ``text`` or shapes that do not match.
    """
    x = np.array(edge_x, dtype=np.float32)
    has = np.asarray(has_text, dtype=bool)
    if x.ndim != 2 or has.shape != (x.shape[0],):
        raise ValueError(f"edge_x must be (E, d) and has_text (E,), got {x.shape} and {has.shape}")
    if text not in TEXT_MODES:
        raise ValueError(f"text must be one of {TEXT_MODES}, got {text!r}")
    if text == "none":
        x[:] = 0.0
    elif text == "shuffled":
        rows = np.flatnonzero(has)
        x[rows] = x[np.random.default_rng(seed).permutation(rows)]
    return x


def message_graph(edge_index, edge_vectors, has_text):
    """Both directions of the given edges with features [text vector, has-text flag, reverse flag].

    Reciprocal pairs are not merged (:func:`neurips24.teg.graph.undirected`).

    Returns
    -------
    (edge_index (2, 2E) long tensor, edge_attr (2E, d + 2) float32 tensor).
    """
    from .graph import undirected

    attr = np.concatenate([np.asarray(edge_vectors, dtype=np.float32),
                           np.asarray(has_text, dtype=np.float32)[:, None]], axis=1)
    ei, attr, reverse = undirected(edge_index, attr)
    attr = np.concatenate([attr, reverse[:, None].astype(np.float32)], axis=1)
    return torch.from_numpy(ei.astype(np.int64)), torch.from_numpy(attr)
