"""The abrupt-learning chapter's executable exercise (abrupt_learning.exercises): a right SVT passes, thresholding
the entries instead of the singular values (the control) fails, the scaffold is 'not attempted', a non-callable
is a TypeError."""
import numpy as np
import pytest

from neurips24.abrupt_learning import exercises


def _svt(Y, tau):
    U, s, Vt = np.linalg.svd(Y)
    return U @ (np.maximum(s - tau, 0)[..., None] * Vt)


def _scaffold(Y, tau):
    raise NotImplementedError("fill in")


def test_the_right_answer_passes(capsys):
    assert exercises.check_svt(_svt) is True
    assert "Right" in capsys.readouterr().out


@pytest.mark.parametrize("wrong", [
    lambda Y, tau: np.sign(Y) * np.maximum(np.abs(Y) - tau, 0),     # soft-thresholds the entries
    lambda Y, tau: _svt(Y, tau / 2),                                # the wrong threshold
    lambda Y, tau: _svt(Y, tau)[0],                                 # one matrix instead of the batch
])
def test_wrong_answers_fail(wrong, capsys):
    assert exercises.check_svt(wrong) is False
    assert "Not yet" in capsys.readouterr().out


def test_the_unfilled_scaffold_returns_false(capsys):
    assert exercises.check_svt(_scaffold) is False
    assert "not attempted yet" in capsys.readouterr().out


def test_a_non_callable_is_a_type_error():
    with pytest.raises(TypeError, match="answer"):
        exercises.check_svt(np.eye(3))
