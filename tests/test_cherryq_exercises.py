"""The CherryQ chapter's executable exercise (cherryq.exercises): the half-integer grid passes, a grid with a zero
level (the control) does not, the unfilled scaffold is 'not attempted', a non-callable is a TypeError."""
import numpy as np
import pytest

from neurips24.cherryq import exercises


def _right(w, bits):
    half = 2.0 ** (bits - 1)
    s = (np.abs(w).max() + 1e-6) / half
    return (np.round(np.clip(w / s, -(half - 0.01), half - 0.01) - 0.5) + 0.5) * s


def _zero_level(w, bits):
    half = 2.0 ** (bits - 1)
    s = (np.abs(w).max() + 1e-6) / (half - 1)
    return np.clip(np.round(w / s), -(half - 1), half - 1) * s


def _scaffold(w, bits):
    raise NotImplementedError("fill in")


def test_the_right_answer_passes_and_the_row_is_hand_worked(capsys):
    assert exercises.check_quantize_group(_right) is True
    assert "Right" in capsys.readouterr().out
    s = 0.900001 / 2   # the chapter's solution: levels (1, -1, 0, -2) -> values (1.5, -0.5, 0.5, -1.5) s
    np.testing.assert_allclose(_right(np.array([0.9, -0.3, 0.1, -0.6]), 2), np.array([1.5, -0.5, 0.5, -1.5]) * s)


@pytest.mark.parametrize("wrong", [_zero_level, lambda w, bits: w, lambda w, bits: _right(w, bits)[:-1]])
def test_wrong_answers_fail(wrong, capsys):
    assert exercises.check_quantize_group(wrong) is False
    assert "Not yet" in capsys.readouterr().out


def test_the_unfilled_scaffold_returns_false(capsys):
    assert exercises.check_quantize_group(_scaffold) is False
    assert "not attempted yet" in capsys.readouterr().out


def test_a_non_callable_is_a_type_error():
    with pytest.raises(TypeError, match="answer"):
        exercises.check_quantize_group("quantize")
