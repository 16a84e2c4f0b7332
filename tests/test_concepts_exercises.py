"""The chapter's executable exercise: right answer passes, a wrong one fails, the scaffold is 'not attempted'."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.decomposition import sparse_encode

from neurips24.concepts import exercises


def right(Z, U, alpha):     # an independent solver: scikit-learn's non-negative lasso
    return sparse_encode(Z, U, algorithm="lasso_cd", alpha=alpha, positive=True, max_iter=20000)


def test_right_answer_passes():
    assert exercises.check_vstep(right)


def test_wrong_answers_fail():
    # least squares clipped at zero: non-negative but not the minimiser (ignores alpha and the constraint's coupling)
    assert not exercises.check_vstep(lambda Z, U, a: np.maximum(Z @ np.linalg.pinv(U), 0))
    assert not exercises.check_vstep(lambda Z, U, a: Z @ np.linalg.pinv(U))       # negative entries
    assert not exercises.check_vstep(lambda Z, U, a: np.zeros((3, 3)))           # wrong shape


def test_scaffold_is_not_attempted():
    def scaffold(Z, U, alpha):
        raise NotImplementedError("fill in")

    assert exercises.check_vstep(scaffold) is False


def test_not_callable_raises():
    with pytest.raises(TypeError):
        exercises.check_vstep(3)
