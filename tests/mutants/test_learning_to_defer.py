"""Planted bugs in the learning-to-defer chapter: each must make one of its claims fail.

Small size: the realizable mixture at N = 4000 only (the chapter's 2000 test points) with CE, L_RS and
RL2D q = 1 — the surrogates its two claims compare — and the digits on the linear set only with L_RS and RL2D q = 1 (the
plateau guard), 3 seeds, the chapter's steps and learning rate. The comparisons with the baselines on the
digits are left out (their runs are too slow for a mutant).
"""
from __future__ import annotations

import pytest
import torch

from neurips24.defer import experiment, kernels, reproduction, train
from neurips24.defer.train import Spec

from .harness import assert_caught, outcomes

CHAPTER = "learning_to_defer"
SPECS = (Spec("CE", "ce"), Spec("RS (Ψ=−log)", "rs"), Spec("RL2D q=1", "rl2d", q=1.0))
REAL = dict(n_values=(4000,))
DIGITS = dict(digits_sets=("linear",))


def run_small():
    torch.set_num_threads(1)
    real = experiment.run_realizable("fast", specs=SPECS, overrides=REAL)
    dig = experiment.run_digits("fast", specs=SPECS[1:], overrides=DIGITS)
    return reproduction.checks(real, dig)


@pytest.fixture(scope="module")
def base():
    return outcomes(run_small())


def test_log_gradient_for_psi_q(monkeypatch, base):
    real = kernels._psi_slope

    def log_slope(u, q):
        value, _ = real(u, q)
        return value, torch.ones_like(u)          # the slope of −log whatever q: Ψ_q's value, −log's gradient

    monkeypatch.setattr(kernels, "_psi_slope", log_slope)
    assert_caught(CHAPTER, "log_gradient_for_psi_q", "the Ψ_q members are trained with the gradient of Ψ = −log "
                  "(the loss value is Ψ_q's, the slope t^q is dropped)", outcomes(run_small()), base)


def test_deferral_rule_inequality(monkeypatch, base):
    def wrong_decide(logits):
        h = torch.as_tensor(logits)
        n = h.shape[-1] - 1
        best = h[..., :-1].argmax(-1)
        defer = h[..., -1] <= h[..., :-1].amax(-1)       # should be >=: defer when the defer score is largest
        return torch.where(defer, torch.full_like(best, n), best)

    monkeypatch.setattr(train, "decide", wrong_decide)
    assert_caught(CHAPTER, "deferral_rule_inequality", "the system defers when the defer score is at most the "
                  "best class score (the inequality reversed)", outcomes(run_small()), base)


def test_expert_term_dropped(monkeypatch, base):
    real = kernels._fused

    def without_expert(h, e_y, w, log_w, joint, q, scale):
        jm = joint.view(-1, 1)
        return real(h, e_y, torch.where(jm, torch.zeros_like(w), w),
                    torch.where(jm, torch.full_like(log_w, -torch.inf), log_w), joint, q, scale)

    monkeypatch.setattr(kernels, "_fused", without_expert)
    assert_caught(CHAPTER, "expert_term_dropped", "the family's loss drops the expert term: t = s_y instead of "
                  "s_y + (1 − c) s_⊥", outcomes(run_small()), base)


def test_cost_not_complemented(monkeypatch, base):
    real = kernels.prepare

    def credit_when_wrong(y, cost, n_out, dtype=torch.float32):
        return real(y, 1.0 - cost, n_out, dtype)                  # w = c instead of 1 − c

    monkeypatch.setattr(train, "prepare", credit_when_wrong)
    assert_caught(CHAPTER, "cost_not_complemented", "the defer output earns credit c where the expert is wrong "
                  "instead of 1 − c where it is right", outcomes(run_small()), base)
