"""The CTS chapter's executable exercise (cts.exercises): the exact Irwin–Hall tail passes, the Chernoff
approximation (the control) does not, the unfilled scaffold is 'not attempted', a non-callable is a TypeError."""
import math
from fractions import Fraction

import pytest

from neurips24.cts import exercises, switch_probability


def _exact(m):
    y = m - Fraction(7, 10) * m
    return float(sum((-1) ** k * math.comb(m, k) * (y - k) ** m for k in range(math.floor(y) + 1))
                 / math.factorial(m))


def _scaffold(m):
    raise NotImplementedError("fill in")


def test_the_exact_tail_passes(capsys):
    assert exercises.check_switch_probability(_exact) is True
    assert "Right" in capsys.readouterr().out


def test_hand_worked_values():
    assert _exact(1) == pytest.approx(0.3) and _exact(2) == pytest.approx(0.18)   # P(U1+U2 > 1.4) = 0.6²/2


@pytest.mark.parametrize("wrong", [lambda m: switch_probability(m)["uniform_chernoff"],   # a bound, not p_m
                                   lambda m: 1 - _exact(m),                                  # the wrong tail
                                   lambda m: "0.3"])
def test_wrong_answers_fail(wrong, capsys):
    assert exercises.check_switch_probability(wrong) is False
    assert "Not yet" in capsys.readouterr().out


def test_the_unfilled_scaffold_returns_false(capsys):
    assert exercises.check_switch_probability(_scaffold) is False
    assert "not attempted yet" in capsys.readouterr().out


def test_a_non_callable_is_a_type_error():
    with pytest.raises(TypeError, match="answer"):
        exercises.check_switch_probability(0.3)
