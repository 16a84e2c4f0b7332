"""The chapter's reproduction checks, each beside a control measured through the same code path (book's own).

``checks(plm, nodes, links)`` returns claim id -> keyword arguments of :func:`neurips24.claims.check`, so that
the notebook and a plain pytest run (``tests/mutants``) check the same things. Every measurement is a paired
gain over the seeded splits (one split per seed of :func:`~neurips24.teg.experiment.split_seeds`), judged by
:func:`~neurips24.teg.experiment.clear_gain`: a mean gain of at least 0.02 with the interval's lower end above 0.
"""
from __future__ import annotations

import numpy as np

from ..claims import t_interval
from .experiment import Results, clear_gain, paired_gain

SOURCE = "TEG-DB, Sec. 4-5 (qualitative claims)"


def _per_seed(res: Results, a, b) -> dict:
    return {int(s): round(float(x - y), 4) for s, x, y in zip(res.info["seeds"], a, b, strict=True)}


def _gain_check(res: Results, a, b, **kw) -> dict:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return dict(measured=paired_gain(a, b), interval=t_interval(a - b), per_seed=_per_seed(res, a, b),
                test=clear_gain, **kw)


def edge_text_check(plm: Results, encoder: str) -> dict:
    """Claim kwargs: the edges' texts, concatenated as a mean beside the node vector (teg-plm), raise node accuracy
    over node text alone (the paper's comparison: with and without edge text), by the chapter's rule
    (:func:`~neurips24.teg.experiment.clear_gain`). Control: the same edges with their texts shuffled among them
    (which keeps which nodes have described edges, and how many), against node text alone, by the same rule; it
    must not hold if the gain belongs to what the texts say."""
    v = {k: plm.get(encoder, k) for k in ("node", "node+edge", "node+edge (shuffled edge text)", "node+edge (sum)",
                                          "node+edge (shuffled edge text, second draw)")}
    name = {"minilm": "MiniLM", "tfidf": "TF-IDF + SVD"}[encoder]
    shuffled = v["node+edge (shuffled edge text)"]
    out = _gain_check(
        plm, v["node+edge"], v["node"],
        claim=f"the mean text vector of a node's incident edges, concatenated to its node vector, raises node "
              f"accuracy over node text alone by >= 0.02 ({name}, logistic regression, {len(v['node'])} seeded "
              f"splits), and the same edges with their texts shuffled among them do not",
        paper="edge text improves node classification (the PLM-based paradigm)", paper_source=SOURCE,
        control={"name": "the same edges with their texts shuffled among them, against node text alone",
                 "measured": paired_gain(shuffled, v["node"])})
    out["measured"] = dict(out["measured"], **{
        "gain over the shuffled texts": paired_gain(v["node+edge"], shuffled)["gain"],
        "second shuffle over the first": paired_gain(v["node+edge (shuffled edge text, second draw)"],
                                                     shuffled)["gain"],
        "literal sum form over node text alone": paired_gain(v["node+edge (sum)"], v["node"])["gain"]})
    return out


def checks(plm: Results, nodes: Results | None, links: Results | None) -> dict:
    """Claim id -> kwargs of ``claims.check`` for the chapter's five checks (see the notebook's text).

    Checks whose inputs were not run (an encoder missing from ``plm``, ``nodes`` or ``links`` None: the mutant
    tests' small runs) are left out.
    """
    out = {}
    n = len(plm.info["seeds"])
    encoders = plm.info.get("encoders", ("minilm", "tfidf"))
    tried_plm = (f"logistic regression (C = 10) on {n} seeded stratified 70/30 splits; the edge vectors "
                 "concatenated as a mean over the incident edges with text (both directions) and, beside it, "
                 "the paper's literal sum h_u = PLM(T_u) + sum of PLM(T_e_vu) over the edges pointing at u; "
                 "MiniLM and TF-IDF + SVD vectors (the paper's bert/Llama encoders do not run here)")
    if "minilm" in encoders:
        out["textual_edge_graphs.edge_text_nodes_minilm"] = dict(
            edge_text_check(plm, "minilm"), expect="not reproduced", tried=tried_plm,
            fragile="the MiniLM gain over node text alone sits near the 0.02 bar and moves with the splits: 0.015 "
                    "on splits 0-4 (below the bar), 0.029 on splits 1000-1004, where the shuffled texts gain 0.020 "
                    "too, so that seed set fails the claim through its control rather than reproducing it")
    if "tfidf" in encoders:
        out["textual_edge_graphs.edge_text_nodes_tfidf"] = edge_text_check(plm, "tfidf")
    if nodes is None or links is None or len(encoders) < 2:
        return out

    out["textual_edge_graphs.encoder"] = _gain_check(
        plm, plm.get("minilm", "node"), plm.get("tfidf", "node"),
        claim="a sentence encoder (MiniLM) beats a bag of words (TF-IDF + SVD) by >= 0.02 node accuracy "
              "(node text, logistic regression)",
        paper="better text encoders give better node classification", paper_source=SOURCE,
        control={"name": "the same comparison with shuffled node labels",
                 "measured": paired_gain(plm.get("minilm", "node", "shuffled labels"),
                                         plm.get("tfidf", "node", "shuffled labels"))})

    cfg = nodes.info["config"]
    tried_gnn = (f"GINE ({cfg.get('hidden')} hidden units, 2 layers, full-batch Adam, {cfg.get('node_epochs')} "
                 f"epochs, lr {cfg.get('node_lr')} for nodes and {cfg.get('link_lr')} for links, MiniLM vectors "
                 f"reduced by PCA to {cfg.get('reduce_dim') or 384}) on {n} seeded splits, with real, no and "
                 "shuffled edge text; also GINE with the paper's node setting (256 hidden units, lr 1e-3, "
                 "100 epochs, unreduced MiniLM vectors) on the split of seed 0 only (CPU time): accuracy 0.798 "
                 "with edge text, 0.802 without, 0.794 with shuffled texts")
    gine = {t: nodes.get("minilm", "GINE", t) for t in ("real", "none", "shuffled")}
    out["textual_edge_graphs.gine_nodes"] = _gain_check(
        nodes, gine["real"], gine["none"],
        claim="GINE with edge text beats the same GINE without it by >= 0.02 node accuracy",
        paper="edge-aware GNNs gain from edge text", paper_source=SOURCE, expect="not reproduced", tried=tried_gnn,
        control={"name": "GINE with shuffled edge texts", "measured": paired_gain(gine["shuffled"], gine["none"])})
    hits = {t: links.get("minilm", "GINE", t, metric="hits@50") for t in ("real", "none", "shuffled")}
    out["textual_edge_graphs.gine_links"] = _gain_check(
        links, hits["real"], hits["none"],
        claim="GINE with edge text beats the same GINE without it by >= 0.02 Hits@50 on held-out pairs",
        paper="edge text helps link prediction", paper_source=SOURCE, expect="not reproduced", tried=tried_gnn,
        control={"name": "GINE with shuffled edge texts", "measured": paired_gain(hits["shuffled"], hits["none"])})
    return out
