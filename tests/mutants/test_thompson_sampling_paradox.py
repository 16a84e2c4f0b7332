"""Planted bugs in the CTS chapter (neurips24.cts): each must make one of the chapter's claims fail.

The claims run at a small size: the arm-level sweep at m ∈ {5, 45}, T = 1000, 60 runs, three seeds (the paradox,
stuck-run and small-m claims; about 6 s of CPU per sweep). The claims on the paper's decision-level set-up need
T = 10⁴ at four m and three seeds (about 10 s of CPU per run), too long for the mutant budget. The replay of the
authors' ESCB class (cts.escb_replay) runs at m = 5, T = 200, 12 runs, three seeds (about 1 s).
"""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.cts import bandit, escb_code, experiment, policies, reproduction
from neurips24.cts.escb_code import initial_state, update_as_written

from .harness import assert_caught, outcomes

CHAPTER = "thompson_sampling_paradox"
SMALL = dict(m_values=(5, 45), T=1000, runs=60, n_seeds=3, checkpoints=5, curve=dict(m=45, T=1000, runs=60))


def sweep_checks(res) -> dict:
    return {"cts.paradox_ratio": reproduction.paradox_ratio(res), "cts.stuck_runs": reproduction.stuck_runs(res),
            "cts.small_m": reproduction.small_m(res)}


def run_sweep(monkeypatch):
    monkeypatch.setitem(experiment.CONFIG, "fast", SMALL)
    return experiment.run_regret_vs_m("fast")


@pytest.fixture(scope="module")
def sweep():
    mp = pytest.MonkeyPatch()
    try:
        res = run_sweep(mp)
    finally:
        mp.undo()
    return res


@pytest.fixture(scope="module")
def base(sweep):
    return outcomes(sweep_checks(sweep))


def test_beta_posterior_swapped(monkeypatch, base):
    real = policies.beta_posterior
    monkeypatch.setattr(policies, "beta_posterior", lambda N, S, prior: real(N, S, prior)[::-1])
    assert_caught(CHAPTER, "beta_posterior_swapped", "B-CTS's Beta posterior with α and β swapped (failures "
                  "counted as successes)", outcomes(sweep_checks(run_sweep(monkeypatch))), base)


def test_oracle_takes_the_smallest(monkeypatch, base):
    def bottom_m(self, theta):
        R = theta.shape[0]
        order = np.argsort(theta, axis=1, kind="stable")             # ascending: the m smallest samples
        mask = np.zeros((R, self.d))
        mask[np.arange(R)[:, None], order[:, : self.m]] = 1.0
        return mask, None

    monkeypatch.setattr(bandit.SemiBandit, "oracle", bottom_m)
    assert_caught(CHAPTER, "oracle_bottom_m", "the top-m oracle sorts ascending and plays the m smallest samples",
                  outcomes(sweep_checks(run_sweep(monkeypatch))), base)


def test_stuck_rule_with_the_per_arm_gap(monkeypatch, sweep, base):
    def stuck(self, m, label):
        final = self.pooled(m, label)
        linear = self.runs[(m, self.seeds_at(m)[0])].linear / m        # Δ T per arm instead of per decision
        return int((final > 0.5 * linear).sum()), int(final.size)

    monkeypatch.setattr(experiment.RegretVsM, "stuck", stuck)
    assert_caught(CHAPTER, "stuck_per_arm_gap", "a run is called stuck at half of the per-arm gap times T "
                  "(0.2 T) instead of half the decision's linear regret (0.2 m T)", outcomes(sweep_checks(sweep)),
                  base)


REPLAY = dict(m_values=(5,), T=200, runs=12, n_seeds=3)


def replay_checks(monkeypatch) -> dict:
    monkeypatch.setitem(experiment.ESCB_REPLAY, "fast", REPLAY)
    return {"cts.escb_replay": reproduction.escb_replay(experiment.run_escb_replay("fast"))}


def test_escb_without_phantom_pulls(monkeypatch):
    """The ESCB bug model without its phantom pulls: Fig. 1b's four values cannot tell it from the model (both fit
    the paper's ESCB curve about equally, see the chapter); the claim cts.escb_replay, which replays an independent
    one-run model of the authors' code against the vectorised model run by run, catches it."""
    def no_phantom(mu01, N01, played, k, X01):
        a1 = k == 0
        N01[:] = np.where(a1[:, None], np.where(N01 < 0.5, 1.0, N01 + 1.0), N01)
        mu01[:] = np.where(a1[:, None], (mu01 * (N01 - 1) + X01) / N01, mu01)
        played[np.arange(k.size), k] = True

    mu01, N01, played = initial_state(2)
    update_as_written(mu01, N01, played, np.array([0, 0]), np.ones((2, 2)))
    assert N01.tolist() == [[2.0, 2.0]] * 2                           # the real model adds the phantom pull
    base = outcomes(replay_checks(monkeypatch))
    monkeypatch.setattr(escb_code, "update_as_written", no_phantom)
    assert_caught(CHAPTER, "escb_no_phantom_pulls", "the model of the authors' ESCB without its phantom pulls (the "
                  "first play of a decision adds no pull to arms 0 and 1)", outcomes(replay_checks(monkeypatch)),
                  base)
