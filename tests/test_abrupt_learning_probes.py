"""Probes (abrupt_learning.probes) on hand-built attention maps and predictions with known answers."""
import numpy as np
import pytest

from neurips24.abrupt_learning import probes


def test_row_column_mask_by_hand():
    M = probes.row_column_mask(2, 2)       # positions 0=(0,0) 1=(0,1) 2=(1,0) 3=(1,1)
    assert M.astype(int).tolist() == [[0, 1, 1, 0], [1, 0, 0, 1], [1, 0, 0, 1], [0, 1, 1, 0]]
    assert probes.row_column_mask(7, 7).sum(1).tolist() == [12] * 49


def test_row_column_score_uniform_and_structured():
    m, n = 4, 5
    T = m * n
    uniform = np.full((2, 3, T, T), 1 / T)
    assert np.allclose(probes.row_column_score(uniform, m, n), (m + n - 2) / T)
    structured = probes.row_column_mask(m, n) / probes.row_column_mask(m, n).sum(1, keepdims=True)
    assert np.allclose(probes.row_column_score(structured[None, None], m, n), 1.0)
    self_only = np.eye(T)[None, None]
    assert np.allclose(probes.row_column_score(self_only, m, n), 0.0)
    q = np.zeros((1, T), dtype=bool)
    q[0, 3] = True
    mixed = np.concatenate([structured[None, None], uniform[:1, :1]], axis=1)
    assert np.allclose(probes.row_column_score(mixed, m, n, queries=q), [1.0, (m + n - 2) / T])


def test_entropy_by_hand():
    T = 9
    assert np.allclose(probes.attention_entropy(np.full((1, 1, T, T), 1 / T)), np.log(T))
    assert np.allclose(probes.attention_entropy(np.eye(T)[None, None]), 0.0)


def test_copy_compute_score():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (50, 3, 3))
    observed = rng.random((50, 3, 3)) > 0.3
    const = probes.copy_compute_score(np.zeros((50, 9)), X, observed)
    assert const["corr"] == 0.0 and const["spread"] == 0.0 and const["r2"] <= 0.0 + 1e-2
    exact = probes.copy_compute_score(X.reshape(50, 9), X, observed)
    assert exact["r2"] == pytest.approx(1.0) and exact["corr"] == pytest.approx(1.0)


def test_linear_probe_finds_a_linear_code_and_not_noise():
    rng = np.random.default_rng(1)
    H = rng.normal(size=(400, 16))
    assert probes.linear_probe_r2(H, H @ rng.normal(size=16)) > 0.99
    assert probes.linear_probe_r2(H, rng.normal(size=400)) < 0.1


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="shape"):
        probes.row_column_score(np.full((1, 1, 4, 4), 0.25), 3, 3)
    with pytest.raises(ValueError, match="sum to 1"):
        probes.row_column_score(np.full((1, 1, 4, 4), 0.3), 2, 2)
    with pytest.raises(ValueError, match="finite"):
        probes.linear_probe_r2(np.full((4, 2), np.nan), np.zeros(4))
    with pytest.raises(ValueError, match="train_frac"):
        probes.linear_probe_r2(np.zeros((4, 2)), np.zeros(4), train_frac=1.0)


def test_row_column_mass_per_query_matches_the_score():
    rng = np.random.default_rng(2)
    A = rng.random((3, 2, 9, 9))
    A /= A.sum(-1, keepdims=True)
    mass = probes.row_column_mass(A, 3, 3)
    assert mass.shape == (3, 2, 9)
    assert np.allclose(mass.mean(axis=(0, 2)), probes.row_column_score(A, 3, 3))
    assert np.isclose(mass[0, 0, 0], A[0, 0, 0, [1, 2, 3, 6]].sum())     # query (0,0): row 1, 2 and column 3, 6


def test_rectangle_shown_by_hand_and_by_brute_force():
    O = np.array([[[False, True], [True, True]], [[False, True], [True, False]]])
    assert probes.rectangle_shown(O).tolist() == [[[True, False], [False, False]], [[False, False], [False, False]]]
    rng = np.random.default_rng(3)
    O = rng.random((40, 4, 5)) > 0.4
    want = np.zeros_like(O)
    for b in range(40):
        for i in range(4):
            for j in range(5):
                want[b, i, j] = not O[b, i, j] and any(O[b, i, l] and O[b, k, j] and O[b, k, l]
                                                       for k in range(4) for l in range(5) if k != i and l != j)
    assert np.array_equal(probes.rectangle_shown(O), want)
