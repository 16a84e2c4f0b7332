"""The EDL chapter's executable exercise (edl.exercises): the mutual information passes, the total uncertainty
(the control: it forgets the expected entropy) does not, the unfilled scaffold is 'not attempted', a non-callable
is a TypeError."""
import numpy as np
import pytest
from scipy.special import digamma

from neurips24.edl import exercises


def _right(alpha):
    a0 = alpha.sum(-1, keepdims=True)
    mean = alpha / a0
    return -(mean * np.log(mean)).sum(-1) + (mean * (digamma(alpha + 1) - digamma(a0 + 1))).sum(-1)


def _scaffold(alpha):
    raise NotImplementedError("fill in")


def test_the_right_answer_passes_and_a_hand_worked_value(capsys):
    assert exercises.check_mutual_information(_right) is True
    assert "Right" in capsys.readouterr().out
    # Dir(1, 1): ln 2 - E H(Beta(1,1)) = ln 2 - 1/2 nats
    assert _right(np.array([[1.0, 1.0]]))[0] == pytest.approx(np.log(2) - 0.5)


@pytest.mark.parametrize("wrong", [
    lambda a: -((a / a.sum(-1, keepdims=True)) * np.log(a / a.sum(-1, keepdims=True))).sum(-1),   # total only
    lambda a: _right(a)[:, None],                                                                     # wrong shape
    lambda a: _right(a) * np.log2(np.e),                                                              # in bits
])
def test_wrong_answers_fail(wrong, capsys):
    assert exercises.check_mutual_information(wrong) is False
    assert "Not yet" in capsys.readouterr().out


def test_the_unfilled_scaffold_returns_false(capsys):
    assert exercises.check_mutual_information(_scaffold) is False
    assert "not attempted yet" in capsys.readouterr().out


def test_a_non_callable_is_a_type_error():
    with pytest.raises(TypeError, match="answer"):
        exercises.check_mutual_information(np.ones((2, 3)))
