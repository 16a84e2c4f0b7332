"""The textual-edge graphs chapter's executable exercise (teg.exercises): the incoming mean passes, the outgoing
mean and the all-edges mean (the controls) do not, the unfilled scaffold is 'not attempted', a non-callable is a
TypeError; the reference agrees with a hand-worked graph."""
import numpy as np
import pytest

from neurips24 import teg
from neurips24.teg import exercises


def _mean_over(row):
    def mean(edge_index, edge_x, num_nodes):
        out = np.zeros((num_nodes, edge_x.shape[1]))
        for u in range(num_nodes):
            mine = edge_index[row] == u
            if mine.any():
                out[u] = edge_x[mine].mean(0)
        return out
    return mean


def _scaffold(edge_index, edge_x, num_nodes):
    raise NotImplementedError("fill in")


def test_the_incoming_mean_passes_and_the_reference_is_hand_worked(capsys):
    assert exercises.check_incoming_mean(_mean_over(1)) is True
    assert "Right" in capsys.readouterr().out
    ei, x = np.array([[0, 1, 2], [2, 2, 0]]), np.array([[1.0], [3.0], [10.0]])   # 0→2, 1→2, 2→0
    np.testing.assert_allclose(exercises.incoming_mean_reference(ei, x, 3), [[10.0], [0.0], [2.0]])


@pytest.mark.parametrize("wrong", [
    _mean_over(0),                                                     # the edges leaving u
    lambda ei, x, n: teg.incidence_mean(ei, x, n),                     # all incident edges
    lambda ei, x, n: _mean_over(1)(ei, x, n)[:-1],                     # drops a node
])
def test_wrong_answers_fail(wrong, capsys):
    assert exercises.check_incoming_mean(wrong) is False
    assert "Not yet" in capsys.readouterr().out


def test_the_unfilled_scaffold_returns_false(capsys):
    assert exercises.check_incoming_mean(_scaffold) is False
    assert "not attempted yet" in capsys.readouterr().out


def test_a_non_callable_is_a_type_error():
    with pytest.raises(TypeError, match="answer"):
        exercises.check_incoming_mean(np.zeros((2, 3)))
