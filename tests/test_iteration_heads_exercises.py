"""The iteration heads chapter's executable exercise (iteration_heads.exercises): the right layout passes, a
chain of thought without the +1 (the control) does not, the unfilled scaffold is 'not attempted', a non-callable
is a TypeError."""
import pytest

from neurips24.iteration_heads import TOKENS, exercises


def _sequence(x, plus=1):
    s = [x[0]]
    for x_t in x[1:]:
        s.append((s[-1] * x_t + plus) % 11)
    return [TOKENS["polynomial"], *x, TOKENS["EoI"], *s, TOKENS["EoS"]]


def _scaffold(x):
    raise NotImplementedError("fill in")


def test_the_right_answer_passes_and_the_chapters_example(capsys):
    assert exercises.check_cot_sequence(_sequence) is True
    assert "Right" in capsys.readouterr().out
    assert _sequence([3, 4, 5]) == [58, 3, 4, 5, 62, 3, 2, 0, 63]   # the chapter's solution, worked by hand


@pytest.mark.parametrize("wrong", [
    lambda x: _sequence(x, plus=0),                                  # s_t = s_{t-1} x_t: no +1
    lambda x: _sequence(x)[:-1],                                     # no EoS
    lambda x: [TOKENS["parity"]] + _sequence(x)[1:],                 # the wrong task token
])
def test_wrong_answers_fail(wrong, capsys):
    assert exercises.check_cot_sequence(wrong) is False
    assert "Not yet" in capsys.readouterr().out


def test_the_unfilled_scaffold_returns_false(capsys):
    assert exercises.check_cot_sequence(_scaffold) is False
    assert "not attempted yet" in capsys.readouterr().out


def test_a_non_callable_is_a_type_error():
    with pytest.raises(TypeError, match="answer"):
        exercises.check_cot_sequence([58, 3])
