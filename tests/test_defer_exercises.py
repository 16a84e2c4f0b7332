"""The learning-to-defer chapter's executable exercise (defer.exercises): the RL2D loss passes, one that gives the
expert's output credit where it is wrong (the control) does not, the unfilled scaffold is 'not attempted', a
non-callable is a TypeError."""
import numpy as np
import pytest
from scipy.special import softmax

from neurips24.defer import exercises


def _loss(logits, y, cost, q, weight=lambda c: 1 - c):
    s = softmax(logits, axis=-1)
    t = s[np.arange(len(y)), y] + weight(cost) * s[:, -1]
    return (1 - t**q) / q


def _scaffold(logits, y, cost, q):
    raise NotImplementedError("fill in")


def test_the_right_answer_passes_and_the_plateau_is_the_experts_error_over_q(capsys):
    assert exercises.check_rl2d_loss(_loss) is True
    assert "Right" in capsys.readouterr().out
    y, wrong = np.array([0, 1, 2, 0]), np.array([1.0, 0.0, 0.0, 1.0])
    defer_all = np.zeros((4, 4))
    defer_all[:, -1] = 40.0
    assert _loss(defer_all, y, wrong, 0.5).mean() == pytest.approx(wrong.mean() / 0.5)   # the chapter's c̄ / q


@pytest.mark.parametrize("wrong", [
    lambda logits, y, cost, q: _loss(logits, y, cost, q, weight=lambda c: c),       # credit where the expert errs
    lambda logits, y, cost, q: -np.log(_loss(logits, y, cost, 1.0) * -1 + 1),       # Ψ = −log, not Ψ_q
    lambda logits, y, cost, q: _loss(logits, y, cost, q).mean(),                    # the mean, not per point
])
def test_wrong_answers_fail(wrong, capsys):
    assert exercises.check_rl2d_loss(wrong) is False
    assert "Not yet" in capsys.readouterr().out


def test_the_unfilled_scaffold_returns_false(capsys):
    assert exercises.check_rl2d_loss(_scaffold) is False
    assert "not attempted yet" in capsys.readouterr().out


def test_a_non_callable_is_a_type_error():
    with pytest.raises(TypeError, match="answer"):
        exercises.check_rl2d_loss(np.zeros(3))
