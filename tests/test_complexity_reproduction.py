"""The chapter's claim rules (complexity.reproduction) on hand-made analyses: scale-free importance, per-seed
correlations, intervals labelled as ranges below 5 seeds, the magnitude confound, and bad inputs; the digits
checkpoints' cache and rescore."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from neurips24 import claims
from neurips24.complexity import experiment as ex
from neurips24.complexity import reproduction as Re


def _analysis(K, gamma, Z):
    return SimpleNamespace(K=np.asarray(K, float), gamma=np.asarray(gamma, float), Z=np.asarray(Z, float))


def test_scale_free_importance_removes_a_pure_magnitude_effect():
    rng = np.random.default_rng(0)
    K = np.linspace(0, 1, 12)
    scale = 1 + 10 * (1 - K)                     # simple features are the large ones
    Z = rng.random((200, 12)) * scale
    gamma = np.abs(Z).mean(0) * 0.3              # a head that weighs every feature alike: Γ = 0.3 E|z|
    a = _analysis(K, gamma, Z)
    by = Re.per_seed_rho({0: a, 1: a, 2: a}, y="gamma")
    assert all(v < -0.9 for v in by.values())                       # the paper's Γ: "complex = less important"
    sf = Re.per_seed_rho({0: a}, y="gamma/sd")[0]
    assert abs(sf) < 0.7 and sf > by[0] + 0.3                       # per unit of spread, much weaker
    assert Re.per_seed_rho({0: a}, y="sd")[0] < -0.9


def test_summary_is_a_range_below_five_seeds_and_a_t_interval_from_five():
    assert Re.summary([0.1, 0.3, 0.2]) == {"mean": 0.2, "low": 0.1, "high": 0.3}
    five = [0.1, 0.3, 0.2, 0.25, 0.15]
    half = 2.776 * np.std(five, ddof=1) / np.sqrt(5)                # Student-t, 4 degrees of freedom
    assert Re.summary(five) == pytest.approx({"mean": 0.2, "low": round(0.2 - half, 3), "high": round(0.2 + half, 3)})
    assert claims.t_interval([0.1, 0.3, 0.2]).level is None and claims.t_interval(five).level == 0.95


def _digits(n=5, rho_sign=-1.0):
    rng = np.random.default_rng(1)
    trained, early = {}, {}
    for s in range(n):
        K = rng.random(10)
        Z = rng.random((50, 10)) + 0.1
        trained[s] = _analysis(K, np.exp(rho_sign * K * 5) + 0.01 * rng.random(10), Z)
        early[s] = _analysis(K, rng.random(10), Z)
    return SimpleNamespace(trained=trained, early=early)


def test_epoch1_claim_reads_the_early_checkpoints():
    kw = Re.checks(None, _digits(), only=("complexity.no_relation_at_epoch1",))["complexity.no_relation_at_epoch1"]
    assert set(kw["per_seed"]) == set(range(5)) and kw["interval"].level == 0.95
    assert claims.outcome("complexity.no_relation_at_epoch1", **kw) == "unexpected pass"   # random Γ at epoch 1


def test_checks_refuse_fewer_than_three_seeds():
    with pytest.raises(ValueError, match="at least 3 seeds"):
        Re.checks(None, _digits(n=2), only=("complexity.importance",))
    with pytest.raises(ValueError, match="at least 3 seeds"):
        ex.run_digits("fast", seeds=(0, 1))
    with pytest.raises(ValueError, match="seeds"):
        ex.run_digits("fast", seeds=(0, 1, -2))


def test_cached_training_round_trips_and_rescore_is_the_analysis(tmp_path, monkeypatch):
    monkeypatch.setattr(ex, "_cache_path", lambda name: tmp_path / name)
    torch.set_num_threads(1)
    x, y = ex.digits_tensors()
    perm = np.random.default_rng(0).permutation(len(y))
    run = ex.cached_training(x, y, perm[:600], perm[600:900], 3, 2, 8, 1)
    again = ex.cached_training(x, y, perm[:600], perm[600:900], 3, 2, 8, 1)       # read from the cache
    assert again.test_accuracy == run.test_accuracy
    assert all(torch.equal(run.checkpoints[-1][k], again.checkpoints[-1][k]) for k in run.checkpoints[-1])
    a = ex.digits_analysis(again, x[:400], k=4, seed=3, n_blocks=1, n_draws=0)
    assert a.sensitivity is None
    b = ex.rescore(a)
    np.testing.assert_allclose(b.K, a.K, atol=1e-12)
    np.testing.assert_allclose(b.gamma, a.gamma, atol=1e-12)
