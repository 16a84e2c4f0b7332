"""The IMN chapter's executable exercise (imn.exercises): the per-instance linear head passes, one that adds the
bias row as an impact (the control) does not, the unfilled scaffold is 'not attempted', a non-callable is a
TypeError."""
import numpy as np
import pytest

from neurips24.imn import exercises


def _right(x, W):
    impacts = x[:, :, None] * W[:, :-1, :]
    return impacts.sum(axis=1) + W[:, -1, :], impacts


def _scaffold(x, W):
    raise NotImplementedError("fill in")


def test_the_right_answer_passes_and_a_hand_worked_case(capsys):
    assert exercises.check_linear_head(_right) is True
    assert "Right" in capsys.readouterr().out
    logits, impacts = _right(np.array([[2.0, -1.0]]), np.array([[[0.5], [3.0], [0.25]]]))
    assert impacts[0, :, 0].tolist() == [1.0, -3.0] and logits[0, 0] == pytest.approx(-1.75)


@pytest.mark.parametrize("wrong", [
    lambda x, W: (np.einsum("nm,nmk->nk", x, W[:, :-1]), x[:, :, None] * W[:, :-1]),     # forgets the bias
    lambda x, W: (_right(x, W)[0], x[:, :, None] * W[:, 1:]),                            # the rows shifted
    lambda x, W: _right(x, W)[0],                                                        # one output only
])
def test_wrong_answers_fail(wrong, capsys):
    assert exercises.check_linear_head(wrong) is False
    assert "Not yet" in capsys.readouterr().out


def test_the_unfilled_scaffold_returns_false(capsys):
    assert exercises.check_linear_head(_scaffold) is False
    assert "not attempted yet" in capsys.readouterr().out


def test_a_non_callable_is_a_type_error():
    with pytest.raises(TypeError, match="answer"):
        exercises.check_linear_head("W")
