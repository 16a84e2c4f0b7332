"""The one-run model of the authors' ESCB as their code runs it, the replay of the package's models against it, and the
claim built on the replay (cts.escb_replay, cts.experiment.run_escb_replay, cts.reproduction.escb_replay)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24 import claims
from neurips24.cts import escb_code, experiment
from neurips24.cts import escb_replay as el
from neurips24.cts import reproduction as rp
from neurips24.cts.policies import f_bonus


def test_one_run_model_hand_case_phantom_pulls():
    run = el.ESCBOneRun(3)
    assert run.N.tolist() == [1e-8] * 6 and run.t == 1
    vec = run.choose()
    assert run.decision == 0 and vec.tolist() == [1, 1, 1, 0, 0, 0]    # round 1: an exact tie, to A_1
    run.observe(vec, np.array([1.0, 0.0, 1.0, 1.0, 1.0, 1.0]))
    # played arms: N 1e-8 -> 1, then the int-array index adds one pull to elements 0 and 1 (phantom pulls)
    np.testing.assert_array_equal(run.N, [2, 2, 1, 1e-8, 1e-8, 1e-8])
    np.testing.assert_array_equal(run.mu, [0.5, 0.0, 1.0, 0, 0, 0])
    run.observe(np.array([0, 0, 0, 1, 1, 1]), np.ones(6))                  # A*'s first play: phantoms on 0 and 1
    np.testing.assert_array_equal(run.N, [3, 3, 1, 1, 1, 1])
    np.testing.assert_array_equal(run.mu[:3], [0.5, 0.0, 1.0])
    run.observe(np.array([0, 0, 0, 1, 1, 1]), np.zeros(6))                 # later plays: real pulls only
    np.testing.assert_array_equal(run.N, [3, 3, 1, 2, 2, 2])
    assert run.t == 4


def test_bonus_reads_elements_0_and_1_and_f_is_twice_f_bonus():
    mu, N = np.arange(6.0), np.ones(6)
    ind = np.array([0, 0, 0, 1, 1, 1])
    f = el.exploration(1, 3)
    assert el.index_as_run(1, mu, N, ind, 0.5) == pytest.approx(3 * 0 + 3 * 1 + 0.5 * np.sqrt(f * 6))
    for t in (1, 2, 50, 10_000):
        assert el.exploration(t, 7) == pytest.approx(2 * f_bonus(t, 7), rel=1e-14)
        assert el.exploration(t, 7, 1.0) == pytest.approx(2 * f_bonus(t, 7, 1.0), rel=1e-14)


def test_replay_model_matches_intended_does_not():
    r = el.replay(5, 200, 12, seed=3)
    assert (r.m, r.T, r.R, r.seed) == (5, 200, 12, 3)
    assert r.identical["as written"].all() and r.differ("as written") == 0
    assert (r.first_divergence["as written"] == 201).all()
    assert r.differ("intended") == 12                         # ESCB as intended explores: it leaves the class
    assert (r.first_divergence["intended"] <= 200).all()
    assert ((r.star_rounds >= 0) & (r.star_rounds <= 200)).all()


def test_replay_catches_a_model_without_phantom_pulls(monkeypatch):
    def no_phantom(mu01, N01, played, k, X01):
        a1 = k == 0
        N01[:] = np.where(a1[:, None], np.where(N01 < 0.5, 1.0, N01 + 1.0), N01)
        mu01[:] = np.where(a1[:, None], (mu01 * (N01 - 1) + X01) / N01, mu01)
        played[np.arange(k.size), k] = True

    monkeypatch.setattr(escb_code, "update_as_written", no_phantom)
    assert el.replay(5, 200, 12, seed=3, models=("as written",)).differ("as written") > 0


def _small_replay(monkeypatch):
    monkeypatch.setitem(experiment.ESCB_REPLAY, "fast", dict(m_values=(5,), T=150, runs=8, n_seeds=3))
    return experiment.run_escb_replay("fast")


def test_claim_passes_on_the_real_replay_and_records_per_seed(monkeypatch):
    rep = _small_replay(monkeypatch)
    assert len(rep) == 3 and all(list(by_m) == [5] for by_m in rep.values())
    kw = rp.escb_replay(rep)
    assert claims.outcome("cts.escb_replay", **kw) == "pass"
    assert kw["measured"] == {"runs": 24, "runs that differ": 0, "share identical": 1.0}
    assert kw["control"]["measured"]["runs that differ"] == 24
    assert set(kw["per_seed"].values()) == {1.0} and len(kw["per_seed"]) == 3
    assert kw["interval"].estimate == 1.0 and kw["interval"].low < 1.0


def test_claim_fails_when_one_run_differs(monkeypatch):
    rep = _small_replay(monkeypatch)
    first = next(iter(next(iter(rep.values())).values()))
    first.identical["as written"][0] = False
    kw = rp.escb_replay(rep)
    assert kw["measured"]["runs that differ"] == 1
    assert claims.outcome("cts.escb_replay", **kw) == "fail"


def test_claim_fails_when_the_control_matches_too(monkeypatch):
    rep = _small_replay(monkeypatch)
    for by_m in rep.values():
        for r in by_m.values():
            r.identical["intended"][:] = True
    assert claims.outcome("cts.escb_replay", **rp.escb_replay(rep)) == "control holds"


@pytest.mark.parametrize(("call", "msg"), [
    (lambda: el.ESCBOneRun(1), "m must be an integer >= 2"),
    (lambda: el.ESCBOneRun(5, sigma=0.0), "sigma must be"),
    (lambda: el.ESCBOneRun(5, lam=-1.0), "lam must be"),
    (lambda: el.ESCBOneRun(5).observe(np.ones(9, dtype=int), np.ones(10)), r"vector must be a \(10,\)"),
    (lambda: el.ESCBOneRun(5).observe(np.ones(10), np.ones(10)), "vector must be"),        # floats, not ints
    (lambda: el.ESCBOneRun(5).observe(np.ones(10, dtype=int), np.ones(4)), r"rewards must be a \(10,\)"),
    (lambda: el.replay(1, 10, 2, 0), "m must be an integer >= 2"),
    (lambda: el.replay(5, 0, 2, 0), "T must be"),
    (lambda: el.replay(5, 10, 0, 0), "R must be"),
    (lambda: el.replay(5, 10, 2, -1), "seed must be"),
    (lambda: el.replay(5, 10, 2, 0, models=("bogus",)), "models must be"),
    (lambda: el.replay(5, 10, 2, 0, models="as written"), "models must be"),
    (lambda: el.replay(5, 10, 2, 0, mu_low=0.9, mu_high=0.7), "mu_low < mu_high"),
    (lambda: el.replay(5, 10, 2, 0).differ("bogus"), "model must be one of"),
    (lambda: rp.escb_replay({}), "replay must be a non-empty dict"),
    (lambda: rp.escb_replay({0: {5: el.replay(5, 5, 2, 0, models=("as written",))}}), "missing"),
    (lambda: experiment.run_escb_replay("huge"), "scale"),
])
def test_bad_input(call, msg):
    with pytest.raises(ValueError, match=msg):
        call()


def test_one_run_model_rejects_a_non_integer_m():
    with pytest.raises((TypeError, ValueError), match="m"):
        el.ESCBOneRun(2.5)
