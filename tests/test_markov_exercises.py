"""The Markov chapter's executable exercise (markov.exercises): the energy passes (with any constant on each side
of w = 0), a wrong sign of the log term (the control) does not, the unfilled scaffold is 'not attempted', a
non-callable is a TypeError."""
import numpy as np
import pytest

from neurips24.markov import exercises


def _right(e, w):
    return e**2 - w**2 - np.sign(w) * np.log(np.abs(w))


def _scaffold(e, w):
    raise NotImplementedError("fill in")


@pytest.mark.parametrize("answer", [_right, lambda e, w: _right(e, w) + 3.0 + (w > 0)])   # constants per side
def test_the_right_answer_passes(answer, capsys):
    assert exercises.check_energy(answer) is True
    assert "Right" in capsys.readouterr().out


@pytest.mark.parametrize("wrong", [
    lambda e, w: e**2 - w**2 + np.sign(w) * np.log(np.abs(w)),      # the log term with the wrong sign
    lambda e, w: e**2 - w**2 - np.log(np.abs(w)),                   # forgets sign(w): wrong for w < 0
    lambda e, w: _right(e, w)[:-1],
])
def test_wrong_answers_fail(wrong, capsys):
    assert exercises.check_energy(wrong) is False
    assert "Not yet" in capsys.readouterr().out


def test_the_unfilled_scaffold_returns_false(capsys):
    assert exercises.check_energy(_scaffold) is False
    assert "not attempted yet" in capsys.readouterr().out


def test_a_non_callable_is_a_type_error():
    with pytest.raises(TypeError, match="answer"):
        exercises.check_energy(None)
