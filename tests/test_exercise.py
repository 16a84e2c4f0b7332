"""The shared exercise helpers (neurips24.exercise): an unfilled scaffold is 'not attempted' and never raises,
a right answer is reported right, a wrong one not, and a non-callable answer is a TypeError; check_cases runs
the same contract over a list of cases against a reference."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.exercise import NOT_ATTEMPTED, attempt, check_cases, verdict


def _scaffold(x):
    raise NotImplementedError("fill in")


def test_an_unfilled_scaffold_is_not_attempted_and_returns_false(capsys):
    result = attempt(_scaffold, 1.0)
    assert result is NOT_ATTEMPTED
    assert verdict("Ex 1", result, ok=True) is False
    assert "not attempted yet" in capsys.readouterr().out


def test_a_right_and_a_wrong_answer(capsys):
    right, wrong = attempt(lambda x: 2 * x, 3), attempt(lambda x: 2 * x + 1, 3)
    assert verdict("Ex 1", right, ok=right == 6, detail="6 expected") is True
    assert verdict("Ex 1", wrong, ok=wrong == 6, detail="6 expected") is False
    out = capsys.readouterr().out
    assert "Ex 1: Right. 6 expected" in out and "Ex 1: Not yet. 6 expected" in out


def test_the_students_own_errors_propagate():
    with pytest.raises(ZeroDivisionError):
        attempt(lambda x: x / 0, 1)


@pytest.mark.parametrize("answer", [None, 3, "f"])
def test_a_non_callable_answer_is_a_type_error(answer):
    with pytest.raises(TypeError, match="answer"):
        attempt(answer)


def test_the_exercise_must_be_named():
    with pytest.raises(ValueError, match="exercise"):
        verdict("", 1, True)


# check_cases: the reference is the cumulative sum, worked by hand on the first case
CASES = [(np.array([1.0, 2.0, 3.0]),), (np.array([0.5, -0.5]),), (np.arange(6.0).reshape(2, 3),)]


def test_cumsum_reference_is_hand_worked():
    np.testing.assert_array_equal(np.cumsum(CASES[0][0]), [1.0, 3.0, 6.0])


def test_check_cases_right_answer_with_the_summary(capsys):
    assert check_cases("Ex 2", lambda x: np.cumsum(x), CASES, np.cumsum, summary="all three.") is True
    assert "Ex 2: Right. all three." in capsys.readouterr().out
    # a list (not an array) of the right numbers, and a round-off within the tolerance, are right too
    assert check_cases("Ex 2", lambda x: np.cumsum(x).tolist(), CASES, np.cumsum) is True
    assert check_cases("Ex 2", lambda x: np.cumsum(x) * (1 + 1e-10), CASES, np.cumsum, rtol=1e-9) is True
    assert "matches on all 3 cases" in capsys.readouterr().out


def test_check_cases_tolerance_is_not_zero_margin():
    off = lambda x: np.cumsum(x) + 1e-6   # noqa: E731
    assert check_cases("Ex 2", off, CASES, np.cumsum, atol=1e-5) is True
    assert check_cases("Ex 2", off, CASES, np.cumsum, atol=1e-7) is False     # the control: same answer, tighter


def test_check_cases_wrong_shape(capsys):
    assert check_cases("Ex 2", lambda x: np.cumsum(x)[None], CASES, np.cumsum) is False
    # the right numbers in the input's shape: differs only on the 2-D case, where np.cumsum flattens
    assert check_cases("Ex 2", lambda x: np.cumsum(x).reshape(x.shape), CASES, np.cumsum) is False
    out = capsys.readouterr().out
    assert "case 1 of 3 differs" in out and "case 3 of 3 differs" in out


def test_check_cases_wrong_values_name_the_first_mismatch(capsys):
    wrong_last = lambda x: np.cumsum(x) if x.ndim == 1 else np.cumsum(x) + 1   # noqa: E731
    seen = []
    describe = lambda i, case, got, want: seen.append((i, want.tolist())) or f"case {i + 1}: want {want.tolist()}"   # noqa: E731
    assert check_cases("Ex 2", wrong_last, CASES, np.cumsum, describe=describe) is False
    assert seen == [(2, [0.0, 1.0, 3.0, 6.0, 10.0, 15.0])]
    assert "Ex 2: Not yet. case 3: want [0.0, 1.0, 3.0, 6.0, 10.0, 15.0]" in capsys.readouterr().out


@pytest.mark.parametrize("odd", [None, "6.0", [1.0, [2.0]], {"a": 1}, np.full(3, np.nan)])
def test_check_cases_odd_answers_are_not_yet_not_errors(odd, capsys):
    # a describe that cannot word an odd answer falls back to the plain message instead of raising
    describe = lambda i, case, got, want: f"you return {np.round(np.ravel(got), 2)}"   # noqa: E731
    assert check_cases("Ex 2", lambda x: odd, CASES, np.cumsum, describe=describe) is False
    assert "Not yet" in capsys.readouterr().out


def test_check_cases_several_outputs_and_complex():
    both = lambda x: (np.cumsum(x), np.sum(x))   # noqa: E731
    assert check_cases("Ex 2", both, CASES, lambda x: (np.cumsum(x), np.sum(x))) is True
    assert check_cases("Ex 2", lambda x: (np.cumsum(x),), CASES, lambda x: (np.cumsum(x), np.sum(x))) is False
    assert check_cases("Ex 2", lambda x: np.cumsum(x) + 0j, CASES, np.cumsum) is True
    assert check_cases("Ex 2", lambda x: np.cumsum(x) + 1j, CASES, np.cumsum, atol=0.5) is False


def test_check_cases_copies_the_arguments():
    def destructive(x):
        out = np.cumsum(x)
        x[...] = 0.0
        return out
    assert check_cases("Ex 2", destructive, CASES, np.cumsum) is True
    assert CASES[0][0].tolist() == [1.0, 2.0, 3.0]


def test_check_cases_unfilled_scaffold_is_not_attempted(capsys):
    assert check_cases("Ex 2", _scaffold, CASES, np.cumsum) is False
    assert "Ex 2: not attempted yet" in capsys.readouterr().out


@pytest.mark.parametrize("answer", [None, 3, "f"])
def test_check_cases_non_callable_answer_is_a_type_error(answer):
    with pytest.raises(TypeError, match="answer"):
        check_cases("Ex 2", answer, CASES, np.cumsum)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"rtol": -1e-9}, ValueError, "rtol"),
    ({"atol": float("nan")}, ValueError, "atol"),
    ({"atol": float("inf")}, ValueError, "atol"),
    ({"rtol": "1e-9"}, TypeError, "rtol"),
    ({"atol": True}, TypeError, "atol"),
    ({"describe": "case"}, TypeError, "describe"),
    ({"summary": 3}, TypeError, "summary"),
])
def test_check_cases_bad_options(kwargs, error, match):
    with pytest.raises(error, match=match):
        check_cases("Ex 2", np.cumsum, CASES, np.cumsum, **kwargs)


@pytest.mark.parametrize(("exercise", "cases", "reference", "error", "match"), [
    ("", CASES, np.cumsum, ValueError, "exercise"),
    ("Ex 2", [], np.cumsum, ValueError, "cases"),
    ("Ex 2", np.array([1.0, 2.0]), np.cumsum, TypeError, "cases"),
    ("Ex 2", [np.array([1.0])], np.cumsum, TypeError, "tuple"),
    ("Ex 2", CASES, "cumsum", TypeError, "reference"),
])
def test_check_cases_bad_arguments(exercise, cases, reference, error, match):
    with pytest.raises(error, match=match):
        check_cases(exercise, np.cumsum, cases, reference)
