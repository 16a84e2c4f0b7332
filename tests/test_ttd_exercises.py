"""The TTD chapter's executable exercise (ttd.exercises): relative dominability passes, the softmax of −γℓ (Table
4's 'neg' form, the control) does not, the unfilled scaffold is 'not attempted', a non-callable is a TypeError."""
import numpy as np
import pytest
from scipy.special import softmax

from neurips24.ttd import exercises


def _right(loss, gamma):
    return loss.shape[0] * softmax(np.exp(-gamma * loss), axis=0)   # SciPy's softmax over the sources


def _scaffold(loss, gamma):
    raise NotImplementedError("fill in")


def test_the_right_answer_passes_and_the_m2_range(capsys):
    assert exercises.check_rd_weights(_right) is True
    assert "Right" in capsys.readouterr().out
    w = _right(np.array([[[0.0]], [[1e6]]]), 1.0)     # one source perfect, the other hopeless: 2e/(1 + e)
    assert w[0, 0, 0] == pytest.approx(2 * np.e / (1 + np.e))


@pytest.mark.parametrize("wrong", [
    lambda loss, gamma: loss.shape[0] * softmax(-gamma * loss, axis=0),    # the 'neg' form of Table 4
    lambda loss, gamma: softmax(np.exp(-gamma * loss), axis=0),            # not scaled to sum to M
    lambda loss, gamma: loss.shape[0] * softmax(np.exp(-loss), axis=0),    # ignores γ
])
def test_wrong_answers_fail(wrong, capsys):
    assert exercises.check_rd_weights(wrong) is False
    assert "Not yet" in capsys.readouterr().out


def test_the_unfilled_scaffold_returns_false(capsys):
    assert exercises.check_rd_weights(_scaffold) is False
    assert "not attempted yet" in capsys.readouterr().out


def test_a_non_callable_is_a_type_error():
    with pytest.raises(TypeError, match="answer"):
        exercises.check_rd_weights(np.ones((2, 2, 2)))
