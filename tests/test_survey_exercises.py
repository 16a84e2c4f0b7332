"""The chapter's executable exercise: right answer, wrong answer (the control), scaffold, non-callable."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.survey import exercises


def right(P, orders):
    out = np.zeros(P.shape[1])
    for j in range(len(P)):
        out[orders[j]] += P[j]
    return out / len(P)


def wrong(P, orders):          # the positional distribution, not mapped back to the choices
    return P.mean(axis=0)


def scaffold(P, orders):
    raise NotImplementedError("fill in the adjusted response")


def test_right_answer_passes_wrong_fails_scaffold_not_attempted(capsys):
    assert exercises.check_adjusted(right)
    assert not exercises.check_adjusted(wrong)
    assert not exercises.check_adjusted(scaffold)
    assert "not attempted yet" in capsys.readouterr().out


def test_non_callable_raises():
    with pytest.raises(TypeError):
        exercises.check_adjusted([0.5, 0.5])
