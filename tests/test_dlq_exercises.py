"""The sparse-function queries chapter's executable exercise (dlq.exercises): the Huber derivative passes, the
residual with the wrong sign or unclipped (the controls) does not, the unfilled scaffold is 'not attempted', a
non-callable is a TypeError."""
import numpy as np
import pytest

from neurips24 import dlq
from neurips24.dlq import exercises


def _right(u, y, delta):
    return np.clip(u - y, -delta, delta)


def _scaffold(u, y, delta):
    raise NotImplementedError("fill in")


def test_the_right_answer_passes_and_the_blind_spot_is_at_delta_1(capsys):
    assert exercises.check_huber_derivative(_right) is True
    assert "Right" in capsys.readouterr().out
    junta = dlq.make_junta(32, (0, 1, 2), "gaussian", 0.2)
    at = {d: dlq.exact_correlation(junta, lambda y, d=d: _right(0.0, y, d), (0,)) for d in (0.5, 1.0, 2.0)}
    assert abs(at[1.0]) < 1e-12 and abs(at[0.5]) > 1e-3 and abs(at[2.0]) > 1e-3   # the chapter's blind spot


@pytest.mark.parametrize("wrong", [
    lambda u, y, delta: np.clip(y - u, -delta, delta),     # the sign of the residual
    lambda u, y, delta: u - y,                             # the squared loss's derivative
    lambda u, y, delta: np.sign(u - y) * delta,            # the l1 loss's, scaled
])
def test_wrong_answers_fail(wrong, capsys):
    assert exercises.check_huber_derivative(wrong) is False
    assert "Not yet" in capsys.readouterr().out


def test_the_unfilled_scaffold_returns_false(capsys):
    assert exercises.check_huber_derivative(_scaffold) is False
    assert "not attempted yet" in capsys.readouterr().out


def test_a_non_callable_is_a_type_error():
    with pytest.raises(TypeError, match="answer"):
        exercises.check_huber_derivative(1.0)
