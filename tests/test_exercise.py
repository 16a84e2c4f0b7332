"""The shared exercise helpers (neurips24.exercise): an unfilled scaffold is 'not attempted' and never raises,
a right answer is reported right, a wrong one not, and a non-callable answer is a TypeError."""
from __future__ import annotations

import pytest

from neurips24.exercise import NOT_ATTEMPTED, attempt, verdict


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
