"""The chapter's experiment (abrupt_learning.experiment): checkpoints round-trip without pickle, the probes see
a hand-built copy model as copying, the shipped products are complete, and (slow) the live plateau reproduces."""
import json

import numpy as np
import pytest
import torch

from neurips24.abrupt_learning import experiment, train
from neurips24.abrupt_learning.data import entry_variance


def test_checkpoint_round_trip(tmp_path):
    cfg = train.Config(m=3, n=3, r=1, d=16, layers=1, heads=2, steps=3)
    model, log, states = train.train(cfg, checkpoint_steps=[0, 3])
    assert sorted(states) == [0, 3] and [r["step"] for r in log] == [0, 3]
    experiment.save_checkpoint(tmp_path / "c.npz", cfg, 3, states[3])
    cfg2, step, loaded = experiment.load_checkpoint(tmp_path / "c.npz")
    assert cfg2 == cfg and step == 3
    tokens = experiment.held_out(cfg, 8).tokens
    model.eval()
    with torch.no_grad():
        assert torch.allclose(model(tokens), loaded(tokens))
    with np.load(tmp_path / "c.npz", allow_pickle=False) as z:        # readable without pickle
        assert all(z[k].dtype != object for k in z.files)


def test_training_is_deterministic_from_its_seed():
    cfg = train.Config(m=3, n=3, r=1, d=16, layers=1, heads=2, steps=20, log_every=10)
    a, b = train.train(cfg)[1], train.train(cfg)[1]
    assert [r["masked"] for r in a] == [r["masked"] for r in b]


def test_evaluate_on_an_exact_and_a_copy_prediction():
    cfg = train.Config(m=5, n=5, r=1, d=16, layers=2, heads=2)
    batch = experiment.held_out(cfg, 64)
    model = train.build_model(cfg)
    ev = experiment.evaluate(model, batch)
    assert ev["row_column"].shape == (2, 2) and ev["probe_r2"].shape == (3,)
    assert np.all((ev["row_column"] >= 0) & (ev["row_column"] <= 1))
    # at initialisation the attention is near uniform: the row/column score is near chance (m + n - 2)/(m n)
    assert np.allclose(ev["row_column"], 8 / 25, atol=0.05)


def test_nuclear_baseline_beats_the_copy_level_on_the_official_task():
    cfg = experiment.PLATEAU["fast"]
    nuc = experiment.nuclear_baseline(experiment.held_out(cfg, 32))
    assert nuc["observed"] == 0.0
    assert nuc["masked"] < 0.5 * entry_variance(cfg.r)


def test_shipped_products_are_complete():
    assert experiment.shipped_runs() == ["drop_3x3", "drop_3x3_seed1", "plateau_7x7"]
    seeds = {"drop_3x3": 0, "drop_3x3_seed1": 1, "plateau_7x7": 0}
    for name in experiment.shipped_runs():
        rec = json.loads((experiment.SHIPPED / name / "run.json").read_text())
        assert rec["command"].startswith(f"python scripts/abrupt_learning_train.py out={name} ")
        assert rec["seed"] == seeds[name] and f" seed={seeds[name]} " in rec["command"]
        assert rec["log"][-1]["step"] == rec["config"]["steps"]
        run = experiment.shipped_run(name)
        assert sorted(run["checkpoints"]) == rec["checkpoints"]
        # four checkpoints of a 64-wide, 2-layer model and the log: under 4 MB a run (the wheel stays small)
        assert sum(p.stat().st_size for p in (experiment.SHIPPED / name).rglob("*")) < 4e6
    with pytest.raises(ValueError, match="name"):
        experiment.shipped_run("no such run")
    table = experiment.search_table()
    assert all({"m", "r", "d", "last_step", "drop_step"} <= set(r) for r in table)


@pytest.mark.slow
def test_the_live_plateau_reproduces():
    run = experiment.run_plateau("fast")
    test = experiment.held_out(run.config, 128)
    ev = experiment.evaluate(run.model, test)
    var = entry_variance(run.config.r)
    assert ev["observed"] < 1e-3 and 0.8 <= ev["masked"] / var <= 1.2
    nuc = experiment.nuclear_baseline(test)            # the control: a computing solution is not on the plateau
    assert not (0.8 <= nuc["masked"] / var <= 1.2)


def test_the_shipped_3x3_run_leaves_the_plateau_and_the_7x7_run_does_not():
    small = experiment.shipped_run("drop_3x3")
    cfg = train.Config(**small["record"]["config"])
    batch = experiment.held_out(cfg, 1024, seed=4242)
    steps = sorted(small["checkpoints"])
    plateau, last = (experiment.evaluate(small["checkpoints"][s], batch)["masked"] for s in (steps[0], steps[-1]))
    assert last < 0.8 * plateau                                    # the drop, on matrices it never saw
    big = experiment.shipped_run("plateau_7x7")
    batch7 = experiment.held_out(train.Config(**big["record"]["config"]), 128, seed=4242)
    steps7 = sorted(big["checkpoints"])
    p7, l7 = (experiment.evaluate(big["checkpoints"][s], batch7)["masked"] for s in (steps7[1], steps7[-1]))
    assert l7 > 0.9 * p7                                          # the control: no drop on 7 x 7


def test_drop_measures_by_hand():
    from neurips24.abrupt_learning.reproduction import drop_measures, is_drop
    # a plateau at 0.1 with ±0.001 wiggles from step 500 to 2500, one fall of 0.05 at step 2600, then flat
    masked = [0.5] + [0.1 + (0.001 if k % 2 else -0.001) for k in range(1, 26)] + [0.05] * 5
    log = [{"step": 100 * k, "masked": m} for k, m in enumerate(masked)]
    m = drop_measures(log)
    assert m["removed"] == pytest.approx(0.5, abs=0.02) and m["step of the largest decrease"] == 2600
    assert m["abruptness"] == pytest.approx(0.051 / 0.002, rel=1e-6) and is_drop(m)
    slow = [{"step": 100 * k, "masked": 0.1 - 0.0005 * max(k - 20, 0)} for k in range(80)]   # a steady decline
    g = drop_measures(slow)
    assert g["removed"] > 0.2 and g["abruptness"] == pytest.approx(1.0) and not is_drop(g)
    with pytest.raises(ValueError, match="at least 5 points"):
        drop_measures(log[:6])
