"""Choice orders, the naive and the permutation-adjusted response, synthetic responders."""
from __future__ import annotations

import math

import numpy as np
import pytest

from neurips24.survey import adjust, responders


def _adjusted_loop(P, orders):
    """Independent reference: walk every order and position, add P to the choice shown there."""
    J, k = P.shape
    out = np.zeros(k)
    for j in range(J):
        for r in range(k):
            out[orders[j][r]] += P[j][r] / J
    return out


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_all_orders_when_k_factorial_fits(k):
    o = adjust.choice_orders(k, max_perms=5000)
    assert o.shape == (math.factorial(k), k) and len({tuple(r) for r in o}) == math.factorial(k)
    assert (o[0] == np.arange(k)).all()


def test_sampled_and_cyclic_orders():
    o = adjust.choice_orders(8, max_perms=100, seed=1)
    assert o.shape == (100, 8) and (o[0] == np.arange(8)).all()
    assert (np.sort(o, axis=1) == np.arange(8)).all()
    c = adjust.choice_orders(6, design="cyclic")
    assert c.shape == (6, 6) and (c[0] == np.arange(6)).all()
    for r in range(6):                       # a Latin square: every choice once at every position
        assert sorted(c[:, r]) == list(range(6))


def test_adjusted_matches_a_loop_and_a_hand_case():
    rng = np.random.default_rng(0)
    for k, design in ((3, "all"), (5, "cyclic"), (9, "all")):
        orders = adjust.choice_orders(k, max_perms=40, design=design, seed=2)
        P = rng.dirichlet(np.ones(k), size=len(orders))
        choice_p, p_adj = adjust.adjusted_response(P, orders)
        np.testing.assert_allclose(p_adj, _adjusted_loop(P, orders), atol=1e-14)
        np.testing.assert_allclose(choice_p, P.mean(axis=0), atol=1e-14)
        np.testing.assert_allclose(adjust.naive_response(P, orders), P[0])
    # k = 2 by hand: order (0, 1) gives A = 0.9; order (1, 0) gives A = 0.8 -> choice 0 got 0.9 and 0.2
    choice_p, p_adj = adjust.adjusted_response([[0.9, 0.1], [0.8, 0.2]], [[0, 1], [1, 0]])
    np.testing.assert_allclose(p_adj, [0.55, 0.45])
    np.testing.assert_allclose(choice_p, [0.85, 0.15])


def test_positional_responder_becomes_exactly_uniform_content_responder_unchanged():
    for k in (2, 4, 7):
        for design in ("all", "cyclic"):
            orders = adjust.choice_orders(k, max_perms=5040, design=design)
            pos = responders.decaying_positions(k)
            choice_p, p_adj = adjust.adjusted_response(responders.positional_P(orders, pos), orders)
            np.testing.assert_allclose(p_adj, np.full(k, 1 / k), atol=1e-12)
            np.testing.assert_allclose(choice_p, pos, atol=1e-12)
            pref = np.random.default_rng(k).dirichlet(np.ones(k))
            choice_p, p_adj = adjust.adjusted_response(responders.content_P(orders, pref), orders)
            np.testing.assert_allclose(p_adj, pref, atol=1e-12)
            np.testing.assert_allclose(choice_p, np.full(k, 1 / k), atol=1e-12)   # no A-bias


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="k must be >= 2"):
        adjust.choice_orders(1)
    with pytest.raises(TypeError):
        adjust.choice_orders(2.0)
    with pytest.raises(ValueError):
        adjust.choice_orders(3, design="latin")
    with pytest.raises(ValueError):
        adjust.choice_orders(3, max_perms=0)
    with pytest.raises(ValueError, match="permutation"):
        adjust.adjusted_response([[0.5, 0.5], [0.5, 0.5]], [[0, 0], [1, 0]])
    with pytest.raises(ValueError, match="sums to 1"):
        adjust.adjusted_response([[0.5, 0.6], [0.5, 0.5]], [[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="shape"):
        adjust.adjusted_response([[0.5, 0.5]], [[0, 1], [1, 0]])
    with pytest.raises(TypeError):
        adjust.adjusted_response([[0.5, 0.5]], [[0.0, 1.0]])
    with pytest.raises(ValueError, match="no row"):
        adjust.naive_response([[0.5, 0.5]], [[1, 0]])
    with pytest.raises(ValueError):
        responders.positional_P([[0, 1]], [0.2, 0.3, 0.5])
    with pytest.raises(ValueError):
        responders.decaying_positions(3, decay=1.5)


def test_official_sigma_mapping_on_a_one_choice_responder():
    """k = 5, all 120 orders, a responder that always picks choice 0: sigma^-1 recovers it (entropy 0), the
    official sigma mapping gives 0.4 to choice 0 and 0.15 to the others (entropy 0.935), by hand:
    choice c gets the share of the 120 orders with sigma(sigma(c)) = 0."""
    from neurips24.survey import adjust, metrics, responders

    orders = adjust.choice_orders(5)
    P = responders.content_P(orders, np.eye(5)[0])
    np.testing.assert_allclose(adjust.adjusted_response(P, orders)[1], np.eye(5)[0], atol=1e-12)
    sig = adjust.adjusted_response_sigma(P, orders)
    want = np.array([sum(o[o[c]] == 0 for o in orders) for c in range(5)]) / 120
    np.testing.assert_allclose(sig, want)
    np.testing.assert_allclose(sig, [0.4, 0.15, 0.15, 0.15, 0.15])
    assert metrics.normalized_entropy(sig) == pytest.approx(0.93498, abs=1e-5)


def test_mappings_agree_on_involutions_only():
    from neurips24.survey import adjust

    rng = np.random.default_rng(0)
    inv = np.array([[1, 0, 2], [0, 2, 1]])                    # each its own inverse
    P = rng.dirichlet(np.ones(3), size=2)
    np.testing.assert_allclose(adjust.adjusted_response(P, inv)[1], adjust.adjusted_response_sigma(P, inv))
    cyc = np.array([[1, 2, 0], [2, 0, 1]])
    assert not np.allclose(adjust.adjusted_response(P, cyc)[1], adjust.adjusted_response_sigma(P, cyc))
