"""Planted bugs in the LLM survey responses chapter: each must make one of its claims fail.

Small size: no language model. A synthetic responder stands in for SmolLM2 (90 % positional bias, 10 % content
preference, like a model whose answers are mostly the letter), asked every question under the `fast` orders;
the chapter's own functions build the responses, the HICOV states, the synthetic states and the checks.
"""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.survey import adjust, experiment, metrics, reproduction, subgroups
from neurips24.survey.questionnaire import questions
from neurips24.survey.responders import content_P, decaying_positions, positional_P

from .harness import assert_caught, caught_by, outcomes

CHAPTER = "llm_survey_responses"


def run_small() -> dict:
    rng = np.random.default_rng(5)
    per_q, naive = {}, {}
    for key, q in questions().items():
        orders = experiment.orders_for(q.k, "fast")
        P = 0.9 * positional_P(orders, decaying_positions(q.k)) + 0.1 * content_P(orders, rng.dirichlet(np.ones(q.k)))
        choice_p, p_adj = reproduction.adjusted_response(P, orders)
        naive[key] = adjust.naive_response(P, orders)
        per_q[key] = experiment.Responses(orders, P, np.ones(len(P)), naive[key], choice_p, p_adj)
    result = experiment.SurveyResult("fast", {"plain": per_q}, {"plain": naive}, {}, 0)
    states = experiment.run_hicov_states(per_q["HICOV"].p_adj)
    synthetic = experiment.run_synthetic_states(result, "fast")
    return reproduction.checks(result, states, synthetic)


@pytest.fixture(scope="module")
def base():
    return outcomes(run_small())


def test_official_sigma_mapping(monkeypatch, base):
    def sigma(P, orders):
        P, orders = np.asarray(P, dtype=float), np.asarray(orders)
        return P.mean(axis=0), adjust.adjusted_response_sigma(P, orders)

    monkeypatch.setattr(reproduction, "adjusted_response", sigma)
    assert_caught(CHAPTER, "sigma_not_inverse", "the adjusted response maps each position back through sigma "
                  "instead of sigma^-1 (the official process_adjusted)", outcomes(run_small()), base)


def test_a_bias_reads_second_position(monkeypatch, base):
    monkeypatch.setattr(reproduction, "a_bias", lambda choice_p: np.asarray(choice_p)[..., 1] - 1 / len(choice_p))
    assert_caught(CHAPTER, "a_bias_off_by_one", "the A-bias reads the second position (B) instead of the first",
                  outcomes(run_small()), base)


def test_closer_comparison_reversed(monkeypatch, base):
    real = experiment.census_comparison

    def reversed_rule(result, fmt="plain", which="p_adj"):
        out = real(result, fmt, which)
        return {k: dict(v, closer=v["kl_uniform"] <= v["kl_census"]) for k, v in out.items()}

    monkeypatch.setattr(reproduction, "census_comparison", reversed_rule)
    assert_caught(CHAPTER, "closer_reversed", "'closer to the census' tested as KL(p||U) <= KL(p||census)",
                  outcomes(run_small()), base)


def test_kl_direction_swapped_is_a_known_blind_spot(monkeypatch, base):
    """KL(q||p) for KL(p||q) ranks the states the same way on these data; the subgroup claim says so in its
    text. This test keeps that statement true: if a claim starts to catch the swap, update the claim's text."""
    monkeypatch.setattr(subgroups, "kl_bits", lambda p, q: metrics.kl_bits(q, p))
    assert caught_by(outcomes(run_small()), base) == []
