"""The MTS chapter's executable exercise (mts.exercises): the right count of places passes, an off-by-one cap
(the control) does not, the unfilled scaffold is 'not attempted', a non-callable is a TypeError."""
import numpy as np
import pytest

from neurips24.mts import exercises


def _right(p, k_max):
    return [k for k in range(1, k_max + 1) if np.floor(2 * k * np.asarray(p)).sum() < k]


def _scaffold(p, k_max):
    raise NotImplementedError("fill in")


def test_the_right_answer_passes_and_the_uniform_state_is_hand_worked(capsys):
    assert exercises.check_short_of_places(_right) is True
    assert "Right" in capsys.readouterr().out
    # uniform on 8 points: 8 * floor(k / 4) places, fewer than k exactly for k = 1, 2, 3
    assert exercises.short_of_places(np.full(8, 1 / 8), 8) == [1, 2, 3]


@pytest.mark.parametrize("wrong", [
    lambda p, k_max: [k for k in range(1, k_max + 1) if np.floor(k * np.asarray(p)).sum() < k],   # cap k p
    lambda p, k_max: [k for k in range(1, k_max + 1) if np.ceil(2 * k * np.asarray(p)).sum() < k],  # ceil
    lambda p, k_max: None,
])
def test_wrong_answers_fail(wrong, capsys):
    assert exercises.check_short_of_places(wrong) is False
    assert "Not yet" in capsys.readouterr().out


def test_the_unfilled_scaffold_returns_false(capsys):
    assert exercises.check_short_of_places(_scaffold) is False
    assert "not attempted yet" in capsys.readouterr().out


def test_a_non_callable_is_a_type_error():
    with pytest.raises(TypeError, match="answer"):
        exercises.check_short_of_places([1, 2, 3])
