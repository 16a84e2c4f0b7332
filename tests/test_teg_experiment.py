"""Experiment helpers and, marked slow, the fast-scale runs with the chapter's reproduction rules (teg.experiment)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24 import claims
from neurips24.teg import experiment as ex


def test_paired_gain_and_rule_by_hand():
    from scipy import stats

    m = ex.paired_gain([0.83, 0.82, 0.84, 0.85, 0.83], [0.80, 0.80, 0.81, 0.82, 0.80])
    d = np.array([0.03, 0.02, 0.03, 0.03, 0.03])
    half = stats.t.ppf(0.975, 4) * d.std(ddof=1) / np.sqrt(5)       # Student-t, 4 degrees of freedom
    assert m["gain"] == pytest.approx(0.028)
    assert m["low"] == pytest.approx(0.028 - half, abs=1e-4) and m["high"] == pytest.approx(0.028 + half, abs=1e-4)
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


def test_hits_at_k_refuses_nan():
    from neurips24.teg.tasks import hits_at_k

    with pytest.raises(ValueError, match="finite"):
        hits_at_k([0.5, np.nan], [0.1, 0.2, 0.3], 1)
    with pytest.raises(ValueError, match="finite"):
        hits_at_k([0.5], [0.1, np.nan, 0.3], 1)
    assert hits_at_k([0.5, 0.15], [0.1, 0.2, 0.3], 2) == 0.5          # above the 2nd best negative (0.2)


def test_summed_edge_input_by_hand():
    from neurips24.teg.features import summed_edge_input

    node_x = np.eye(3)
    edge_x = np.array([[1.0, 0, 0], [0, 2.0, 0], [0, 0, 5.0]])
    ei = np.array([[0, 1, 2], [1, 2, 1]])                            # 0->1, 1->2, 2->1 (the last has no text)
    got = summed_edge_input(node_x, edge_x, ei, np.array([True, True, False]))
    want = np.array([[1, 0, 0], [1, 1, 0], [0, 2, 1]], dtype=float)  # node 1 gets edge 0, node 2 gets edge 1
    np.testing.assert_allclose(got, want)
    with pytest.raises(ValueError, match="has_text"):
        summed_edge_input(node_x, edge_x, ei, np.array([True, False]))


def test_splits_follow_the_seed_offset(monkeypatch):
    labels = np.repeat(np.arange(3), 20)
    monkeypatch.setenv("NEURIPS24_SEED_OFFSET", "0")
    a = ex.seeded_node_splits(labels, 3)
    monkeypatch.setenv("NEURIPS24_SEED_OFFSET", "1000")
    b = ex.seeded_node_splits(labels, 3)
    assert ex.split_seeds(3) == (1000, 1001, 1002)
    assert not all(np.array_equal(x[1], y[1]) for x, y in zip(a, b, strict=True))


@pytest.mark.slow
def test_fast_claims_through_reproduction():
    pytest.importorskip("torch_geometric")
    from neurips24.teg import reproduction

    out = reproduction.checks(ex.run_plm_features("fast"), ex.run_gnn_nodes("fast"), ex.run_gnn_links("fast"))
    for cid, kw in out.items():
        claims.check(cid, **kw)
