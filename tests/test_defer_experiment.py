"""Experiment helpers and, marked slow, the fast-scale realizable run with the chapter's reproduction rules
(defer.experiment)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.defer import experiment as ex


def _sweep(values: dict) -> ex.Sweep:
    res = ex.Sweep(tuple(values), ("linear",), (0, 1, 2))
    for lab, accs in values.items():
        for s, a in zip(res.seeds, accs, strict=True):
            res.metrics[(lab, "linear", s)] = {"system_acc": a}
    return res


def test_gap_to_best_baseline_by_hand():
    res = _sweep({"CE": [0.70, 0.72, 0.74], "OvA": [0.60, 0.62, 0.64], "general": [0.71, 0.71, 0.71],
                  "X": [0.69, 0.70, 0.71]})
    g = ex.gap_to_best_baseline(res, "X", "linear")
    assert g["best"] == "CE" and g["gap"] == pytest.approx(-0.02) and g["spread"] == pytest.approx(0.02)
    np.testing.assert_allclose(ex.paired_gaps(res, "X", "linear"), [-0.01, -0.02, -0.03])
    assert ex.not_worse_than_baselines({"linear gap": -0.02, "linear spread": 0.02})
    assert not ex.not_worse_than_baselines({"linear gap": -0.03, "linear spread": 0.02, "MLP gap": 0.1,
                                            "MLP spread": 0.0})
    with pytest.raises(ValueError, match="not among"):
        ex.gap_to_best_baseline(res, "Y", "linear")
    with pytest.raises(ValueError, match="gap"):
        ex.not_worse_than_baselines({"x": 1.0})


def test_config_and_bad_scale():
    assert set(ex.CONFIG) == {"fast", "full"}
    for cfg in ex.CONFIG.values():
        assert cfg["n_seeds"] >= 3 and cfg["digits_n_seeds"] >= 3 and max(cfg["n_values"]) >= 4000
        assert "seeds" not in cfg and "digits_seeds" not in cfg         # resolved through neurips24.seeding
    for run in (ex.run_realizable, ex.run_digits, ex.run_tradeoff, ex.run_pointwise):
        with pytest.raises(ValueError, match="run scale"):
            run("medium")


@pytest.mark.slow
def test_fast_realizable_run_meets_the_chapters_rules():
    res = ex.run_realizable("fast")
    n = max(res.keys)
    rl, ce, rs = (res.acc(lab, n) for lab in ("RL2D q=1", "CE", "RS (Ψ=−log)"))
    assert rl.min() >= 0.95 and ce.min() < 0.95                  # the claim and its control
    assert (rl - ce).min() >= 0.05 and (rl - rs).min() < 0.05
