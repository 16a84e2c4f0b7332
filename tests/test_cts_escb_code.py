"""The model of the authors' ESCB as written: its sums, choices and updates against an independent
one-run model of the same code (cts.escb_replay.ESCBOneRun), run by run on shared rewards (cts.escb_code)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.cts import escb_code as ec
from neurips24.cts.escb_replay import ESCBOneRun
from neurips24.cts.policies import f_bonus


@pytest.mark.parametrize("m", [2, 5, 13])
def test_model_matches_the_one_run_model_on_shared_rewards(m):
    R, T = 40, 400
    rng = np.random.default_rng(m)
    runs = [ESCBOneRun(m) for _ in range(R)]
    mu01, N01, played = ec.initial_state(R)
    mus = np.r_[np.full(m, 0.7), np.full(m, 0.9)]
    for t in range(1, T + 1):
        X = (rng.random((R, 2 * m)) < mus).astype(float)
        k = ec.choose_as_written(mu01, N01, t, m)
        for r, run in enumerate(runs):
            vec = run.choose()
            assert run.decision == k[r]
            run.observe(vec, X[r])
        ec.update_as_written(mu01, N01, played, k, X[:, :2])
    np.testing.assert_array_equal(N01, [run.N[:2] for run in runs])
    np.testing.assert_array_equal(mu01, [run.mu[:2] for run in runs])
    assert played[:, 0].all()                                  # round 1 always plays A_1 (an exact tie)


def test_the_index_reads_arms_0_and_1_only():
    m = 4
    idx = ec.code_decision(0, m)
    assert idx.dtype == np.int64 and idx.tolist() == [1, 1, 1, 1, 0, 0, 0, 0]
    mu = np.arange(8.0)                                        # A_1's true sum would be 0+1+2+3 = 6
    assert np.sum(mu[idx]) == 4 * 1 + 4 * 0                    # the code reads arm 1 four times, arm 0 four times
    mu01, N01 = np.array([[0.0, 1.0]]), np.ones((1, 2))
    mean, inv = ec.code_sums(mu01, N01, m)
    np.testing.assert_array_equal(mean, [[4.0, 4.0]])          # both decisions: the same numbers
    np.testing.assert_array_equal(inv, [[8.0, 8.0]])


def test_sums_are_the_code_s_pairwise_sums_bit_for_bit():
    rng = np.random.default_rng(0)
    for m in (5, 25, 45, 65):
        mu01, N01 = rng.random((64, 2)), rng.integers(1, 500, (64, 2)).astype(float)
        mean, inv = ec.code_sums(mu01, N01, m)
        for k in (0, 1):
            idx = ec.code_decision(k, m)
            np.testing.assert_array_equal(mean[:, k], [np.sum(row[idx]) for row in mu01])
            np.testing.assert_array_equal(inv[:, k], [np.sum(1 / row[idx]) for row in N01])


def test_the_f_ordered_pitfall_is_real():
    # why code_sums builds C-contiguous rows: a fancy-indexed (R, 2m) array is F-ordered, and NumPy then sums its
    # rows left to right instead of pairwise — other roundings, hence other ESCB choices
    rng = np.random.default_rng(1)
    mu01 = rng.random((200, 2))
    gathered = mu01[:, ec.code_decision(0, 25)]
    assert gathered.flags.f_contiguous and not gathered.flags.c_contiguous
    pairwise = np.array([np.sum(row) for row in gathered])
    assert np.any(gathered.sum(axis=1) != pairwise)
    np.testing.assert_array_equal(ec.code_sums(mu01, np.ones((200, 2)), 25)[0][:, 0], pairwise)


def test_update_hand_case():
    mu01, N01, played = ec.initial_state(3)
    # round 1: all runs play A_1 (first play): N -> 1 then the phantom pull -> 2; μ̂ = (0 · 1 + x) / 2
    ec.update_as_written(mu01, N01, played, np.array([0, 0, 0]), np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 0.0]]))
    np.testing.assert_array_equal(N01, [[2, 2]] * 3)
    np.testing.assert_array_equal(mu01, [[0.5, 0.0], [0.5, 0.5], [0.0, 0.0]])
    # round 2: run 0 plays A* (first play: phantom pulls on arms 0 and 1, μ̂ unchanged), run 1 plays A_1 again
    ec.update_as_written(mu01, N01, played, np.array([1, 0, 1]), np.array([[1.0, 1.0], [1.0, 0.0], [1.0, 1.0]]))
    np.testing.assert_array_equal(N01, [[3, 3], [3, 3], [3, 3]])
    np.testing.assert_allclose(mu01, [[0.5, 0.0], [(0.5 * 2 + 1) / 3, (0.5 * 2 + 0) / 3], [0.0, 0.0]])
    # round 3: run 0 plays A* again: nothing moves
    ec.update_as_written(mu01, N01, played, np.array([1, 1, 1]), np.ones((3, 2)))
    np.testing.assert_array_equal(N01[0], [3, 3])


def test_first_round_is_a_tie_that_goes_to_a1():
    mu01, N01, _ = ec.initial_state(5)
    assert ec.choose_as_written(mu01, N01, 1, 7).tolist() == [0] * 5


def test_f_code_is_twice_f():
    for t in (1, 2, 3, 50, 10_000):
        for m in (2, 65):
            assert ec.f_code(t, m) == pytest.approx(2 * f_bonus(t, m), rel=1e-14)
            assert ec.f_code(t, m, 1.0) == pytest.approx(2 * f_bonus(t, m, 1.0), rel=1e-14)


@pytest.mark.parametrize(("call", "msg"), [
    (lambda: ec.code_decision(2, 5), "k must be 0"), (lambda: ec.code_decision(True, 5), "k must be 0"),
    (lambda: ec.code_decision(0, 1), "m must be an integer >= 2"),
    (lambda: ec.code_sums(np.zeros((1, 2)), np.ones((1, 2)), 1), "m must be an integer >= 2"),
    (lambda: ec.index_as_written(np.zeros((1, 2)), np.ones((1, 2)), 3, 1, 5), "k must be 0"),
    (lambda: ec.f_code(0, 5), "^t must"), (lambda: ec.f_code(5, 5, -1.0), "lam"),
    (lambda: ec.initial_state(0), "R must be"),
    (lambda: ec.code_sums(np.zeros((3, 3)), np.ones((3, 2)), 5), r"mu01 must be an \(R, 2\)"),
    (lambda: ec.code_sums(np.zeros((3, 2)), np.ones((4, 2)), 5), "same number of runs"),
    (lambda: ec.update_as_written(*ec.initial_state(2), np.array([0, 2]), np.ones((2, 2))), "k must be an"),
    (lambda: ec.update_as_written(*ec.initial_state(2), np.array([0, 1]), np.ones((2, 3))), "X01 must be"),
])
def test_bad_input(call, msg):
    with pytest.raises(ValueError, match=msg):
        call()
