"""Experiment helpers and, marked slow, the fast-scale runs with the chapter's reproduction rules (teg.experiment)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24 import claims
from neurips24.teg import experiment as ex


def test_paired_gain_and_rule_by_hand():
    m = ex.paired_gain([0.83, 0.82, 0.84, 0.85, 0.83], [0.80, 0.80, 0.81, 0.82, 0.80])
    assert m["gain"] == pytest.approx(0.028)
    assert 0.02 <= m["low"] <= m["gain"] <= m["high"] <= 0.03
    assert ex.clear_gain(m)
    assert not ex.clear_gain({"gain": 0.019, "low": 0.01})
    assert not ex.clear_gain({"gain": 0.05, "low": -0.01})


def test_config_and_bad_scale():
    assert set(ex.CONFIG) == {"fast", "full"}
    for cfg in ex.CONFIG.values():
        assert cfg["splits"] == 5 and "GINE" in cfg["node_kinds"] and "GINE" in cfg["link_kinds"]
    for run in (ex.run_plm_features, ex.run_gnn_nodes, ex.run_gnn_links):
        with pytest.raises(ValueError, match="run scale"):
            run("medium")
    with pytest.raises(ValueError, match="keep_fraction"):
        ex.explore_edge_text(1.5)


@pytest.mark.slow
def test_fast_plm_claims():
    res = ex.run_plm_features("fast")
    for enc, expect in (("minilm", "not reproduced"), ("tfidf", "holds")):
        node, edge = res.get(enc, "node"), res.get(enc, "node+edge")
        shuffled = res.get(enc, "node+edge (shuffled edge text)")
        claims.check(f"textual_edge_graphs.edge_text_nodes_{enc}", claim="edge text helps (test)",
                     measured=ex.paired_gain(edge, node), paper="helps", test=ex.clear_gain, expect=expect,
                     control={"name": "shuffled", "measured": ex.paired_gain(shuffled, node)})
    claims.check("textual_edge_graphs.encoder", claim="MiniLM beats TF-IDF (test)",
                 measured=ex.paired_gain(res.get("minilm", "node"), res.get("tfidf", "node")), paper="helps",
                 test=ex.clear_gain,
                 control={"name": "shuffled labels",
                          "measured": ex.paired_gain(res.get("minilm", "node", "shuffled labels"),
                                                     res.get("tfidf", "node", "shuffled labels"))})
    assert np.all(res.get("minilm", "node", "shuffled labels") < 0.3)


@pytest.mark.slow
def test_fast_gnn_claims_not_reproduced():
    pytest.importorskip("torch_geometric")
    nodes = ex.run_gnn_nodes("fast")
    gine = {t: nodes.get("minilm", "GINE", t) for t in ("real", "none", "shuffled")}
    claims.check("textual_edge_graphs.gine_nodes", claim="GINE gains from edge text (test)",
                 measured=ex.paired_gain(gine["real"], gine["none"]), paper="helps", test=ex.clear_gain,
                 expect="not reproduced",
                 control={"name": "shuffled", "measured": ex.paired_gain(gine["shuffled"], gine["none"])})
    assert nodes.get("minilm", "SAGE", "none").mean() > nodes.get("minilm", "MLP", "none").mean()
