"""Text encoders: all-MiniLM-L6-v2 (the PLM) and TF-IDF + truncated SVD (the cheap baseline), with a cache.

TEG-DB embeds node and edge texts with a pre-trained language model (bert-base/large CLS embeddings or
Llama-3-8B, official ``data_preprocess/generate_llm_emb.py``) and feeds the vectors to a GNN. Here the PLM is
all-MiniLM-L6-v2 (384-d, unit norm), loaded offline by :func:`neurips24.assets.load_minilm`
(sentence-transformers computes it); the baseline is scikit-learn's ``TfidfVectorizer`` followed by
``TruncatedSVD`` (latent semantic analysis). Each encoder maps the graph's unique texts once, then indexes.

MiniLM's embeddings of the shipped docstring graph ship in ``data/docgraph_minilm.npz`` (float16, beside the
texts they embed); rebuild them with ``python -m neurips24.teg.encoders`` (about 1 minute on 2 idle cores,
3 minutes when the machine is loaded). A text the file lacks is encoded when it is needed.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .graph import TextualEdgeGraph

MINILM_CACHE = Path(__file__).with_name("data") / "docgraph_minilm.npz"
MAX_SEQ_LENGTH = 64    # word pieces; the docstring summaries are short (mean ~10 words)
ENCODERS = ("minilm", "tfidf")


@dataclass(frozen=True)
class Embeddings:
    """Vectors of a graph's texts.

    Attributes
    ----------
    node_x : (N, d) float32, PLM(T_u).
    edge_x : (E, d) float32, PLM(T_e); a zero row for an edge without text.
    encoder : 'minilm' or 'tfidf'.
    """

    node_x: np.ndarray
    edge_x: np.ndarray
    encoder: str


def unique_texts(graph: TextualEdgeGraph) -> list[str]:
    """The graph's distinct texts (nodes and edges), sorted: what an encoder has to embed once."""
    return sorted(set(graph.node_text) | {t for t in graph.edge_text if t is not None})


def tfidf_svd(texts, dim: int = 128, seed: int = 0) -> np.ndarray:
    """TF-IDF vectors of ``texts`` reduced by truncated SVD to ``dim`` dimensions, rows L2-normalised.

    scikit-learn computes it: ``TfidfVectorizer(sublinear_tf=True, ngram_range=(1, 2), min_df=2)`` then
    ``TruncatedSVD(dim, random_state=seed)`` (randomized SVD), then ``normalize``.

    Parameters
    ----------
    texts : sequence of M non-empty str.
    dim : output dimension, 2 <= dim < vocabulary size.
    seed : int, seeds the randomized SVD.

    Returns
    -------
    (M, dim) float32, unit-norm rows (cosine similarity = dot product).

    Raises
    ------
    ValueError if a text is empty or not a str, or dim is not an integer >= 2.
    """
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.preprocessing import normalize

    texts = _check_texts(texts)
    if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)) or dim < 2:
        raise ValueError(f"dim must be an integer >= 2, got {dim!r}")
    tfidf = TfidfVectorizer(sublinear_tf=True, ngram_range=(1, 2), min_df=2).fit_transform(texts)
    if dim >= tfidf.shape[1]:
        raise ValueError(f"dim must be below the vocabulary size {tfidf.shape[1]}, got {dim}")
    z = TruncatedSVD(int(dim), random_state=seed).fit_transform(tfidf)
    return normalize(z).astype(np.float32)


def minilm_encode(texts, batch_size: int = 128) -> np.ndarray:
    """all-MiniLM-L6-v2 sentence embeddings of ``texts`` (mean-pooled, unit norm), at most 64 word pieces each.

    Parameters
    ----------
    texts : sequence of M non-empty str.

    Returns
    -------
    (M, 384) float32.

    Raises
    ------
    ValueError on an empty or non-str text; MissingPackageError (ImportError) without the 'text' extra.
    """
    from neurips24.assets import load_minilm

    texts = _check_texts(texts)
    model = load_minilm("cpu", max_seq_length=MAX_SEQ_LENGTH)
    return np.asarray(model.encode(texts, batch_size=batch_size, convert_to_numpy=True,
                                   show_progress_bar=False), dtype=np.float32)


def embed_graph(graph: TextualEdgeGraph, encoder: str = "minilm", *, dim: int = 128,
                cache: Path | None = MINILM_CACHE) -> Embeddings:
    """Embed every node text and edge text of ``graph`` with one encoder.

    Parameters
    ----------
    graph : the TEG.
    encoder : 'minilm' (cached vectors when ``cache`` holds the same texts, else encoded now) or 'tfidf'
        (:func:`tfidf_svd` with ``dim`` dimensions, fitted on the graph's unique texts).
    cache : the MiniLM cache file, or None to always encode.

    Returns
    -------
    Embeddings with node_x (N, d) and edge_x (E, d), float32; zero rows for edges without text.

    Raises
    ------
    ValueError for an unknown encoder.
    """
    if encoder not in ENCODERS:
        raise ValueError(f"encoder must be one of {ENCODERS}, got {encoder!r}")
    texts = unique_texts(graph)
    if encoder == "tfidf":
        z = tfidf_svd(texts, dim)
    else:
        z = _cached_minilm(texts, cache)
    row = {t: i for i, t in enumerate(texts)}
    node_x = z[[row[t] for t in graph.node_text]]
    edge_x = np.zeros((graph.num_edges, z.shape[1]), dtype=np.float32)
    has = graph.has_text
    edge_x[has] = z[[row[t] for t in graph.edge_text if t is not None]]
    return Embeddings(node_x.astype(np.float32), edge_x, encoder)


def _cached_minilm(texts, cache) -> np.ndarray:
    """Rows of the cache for ``texts``; texts the cache lacks are encoded now (which imports sentence-transformers)."""
    z = np.zeros((len(texts), 384), dtype=np.float32)
    missing = list(range(len(texts)))
    if cache is not None and Path(cache).is_file():
        with np.load(cache, allow_pickle=False) as f:
            row = {t: i for i, t in enumerate(f["texts"].tolist())}
            stored = f["z"]
            found = [i for i, t in enumerate(texts) if t in row]
            z[found] = stored[[row[texts[i]] for i in found]]
            missing = [i for i, t in enumerate(texts) if t not in row]
    if missing:
        z[missing] = minilm_encode([texts[i] for i in missing])
    return z


def write_minilm_cache(graph: TextualEdgeGraph, path: Path = MINILM_CACHE, reuse: Path | None = None) -> Path:
    """Save MiniLM vectors of the graph's unique texts as float16, beside the texts (``np.savez_compressed``).

    Parameters
    ----------
    graph : the TEG. path : the output file. reuse : an older cache whose vectors are kept for the texts it
        holds (only the other texts are encoded); None encodes every text.
    """
    texts = unique_texts(graph)
    z = _cached_minilm(texts, reuse)
    np.savez_compressed(path, z=z.astype(np.float16), texts=np.array(texts))
    return Path(path)


def _check_texts(texts) -> list[str]:
    texts = list(texts)
    if not texts:
        raise ValueError("texts must hold at least one text")
    for i, t in enumerate(texts):
        if not isinstance(t, str) or not t.strip():
            raise ValueError(f"texts[{i}] must be a non-empty str, got {t!r}")
    return texts


if __name__ == "__main__":   # python -m neurips24.teg.encoders [--reuse]: rebuild the shipped MiniLM cache
    import sys
    import time

    import torch

    from .graph import load_docgraph

    torch.set_num_threads(2)
    t0 = time.perf_counter()
    out = write_minilm_cache(load_docgraph(), reuse=MINILM_CACHE if "--reuse" in sys.argv else None)
    print(f"{out} ({out.stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - t0:.0f} s")
