"""Planted bugs in the textual-edge graphs chapter: each must make one of its claims fail.

Small size: the PLM-based experiment with TF-IDF vectors on 3 seeded splits (the claim that holds at this size,
edge_text_nodes_tfidf, with its shuffled-text control); the GNN claims are left out (too slow for a mutant).
"""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.teg import experiment, features, models, reproduction

from .harness import assert_caught, outcomes

CHAPTER = "textual_edge_graphs"


_EMBEDDINGS: dict = {}


def _cached_embed(graph, encoder="minilm", **kw):
    """The TF-IDF fit is deterministic and not under test: computed once per module."""
    key = (encoder, tuple(sorted(kw.items())))
    if key not in _EMBEDDINGS:
        _EMBEDDINGS[key] = _REAL_EMBED(graph, encoder, **kw)
    return _EMBEDDINGS[key]


_REAL_EMBED = experiment.embed_graph


def run_small():
    return reproduction.checks(experiment.run_plm_features("fast", encoders=("tfidf",), n_splits=3), None, None)


@pytest.fixture(scope="module")
def base():
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(experiment, "embed_graph", _cached_embed)
        yield outcomes(run_small())


@pytest.fixture(autouse=True)
def _embeddings_once(monkeypatch):
    monkeypatch.setattr(experiment, "embed_graph", _cached_embed)


def test_edge_text_dropped(monkeypatch, base):
    real = features.incidence_mean
    monkeypatch.setattr(features, "incidence_mean", lambda ei, x, n, w=None: np.zeros_like(real(ei, x, n, w)))
    assert_caught(CHAPTER, "edge_text_dropped", "the edge-text part of the node input is all zeros (the text "
                  "is dropped before it reaches the classifier)", outcomes(run_small()), base)


def test_wrong_endpoint(monkeypatch, base):
    real = features.incidence_mean

    def to_target_only(edge_index, edge_x, num_nodes, weight=None):
        ei = np.asarray(edge_index)
        return real(np.stack([ei[1], ei[1]]), edge_x, num_nodes, weight)

    monkeypatch.setattr(features, "incidence_mean", to_target_only)
    assert_caught(CHAPTER, "wrong_endpoint", "each edge's text is credited to its target only (the source, "
                  "which wrote it, never sees it)", outcomes(run_small()), base)


def test_shuffle_that_does_not_shuffle(monkeypatch, base):
    real = models.edge_text_vectors

    def no_shuffle(edge_x, has_text, text="real", seed=0):
        return real(edge_x, has_text, "real" if text == "shuffled" else text, seed)

    monkeypatch.setattr(experiment, "edge_text_vectors", no_shuffle)
    assert_caught(CHAPTER, "shuffle_not_shuffled", "the shuffled-text control returns the real texts (a "
                  "permutation that is never applied)", outcomes(run_small()), base)



def test_baseline_sees_edge_text(monkeypatch, base):
    real = experiment.plm_features

    def leaky(node_x, edge_x, edge_index, has_text, variant):
        return real(node_x, edge_x, edge_index, has_text, "node+edge" if variant == "node" else variant)

    monkeypatch.setattr(experiment, "plm_features", leaky)
    assert_caught(CHAPTER, "baseline_sees_edge_text", "the node-text baseline is built with the edge texts too (a "
                  "variant that falls through to 'node+edge'), so edge text is compared with itself",
                  outcomes(run_small()), base)
