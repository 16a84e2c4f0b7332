"""The MeLLoC chapter's executable exercise (melloc.exercises): the right symbol passes, its complex conjugate
(the sign convention of the other FFT direction, the control) and the real part alone fail, the unfilled scaffold
is 'not attempted', a non-callable is a TypeError."""
import numpy as np
import pytest

from neurips24.melloc import exercises


def _right(m, H, W):
    th = 2 * np.pi * np.arange(H)[:, None] / H
    ph = 2 * np.pi * np.arange(W // 2 + 1)[None, :] / W
    return sum(m[1 + di, 1 + dj] * np.exp(1j * (di * th + dj * ph)) for di in (-1, 0, 1) for dj in (-1, 0, 1))


def _by_fft(m, H, W):            # an independent route: the FFT of the template's correlation kernel
    kern = np.zeros((H, W))
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            kern[(-di) % H, (-dj) % W] += m[1 + di, 1 + dj]
    return np.fft.rfft2(kern)


def _scaffold(m, H, W):
    raise NotImplementedError("fill in")


@pytest.mark.parametrize("answer", [_right, _by_fft])
def test_the_right_answer_passes(answer, capsys):
    assert exercises.check_symbol(answer) is True
    assert "Right" in capsys.readouterr().out


def test_hand_worked_laplacian_value():
    # Δ5 at (θ, φ) = (π, 0): 2cos π + 2cos 0 − 4 = −4
    lam = _right(np.array([[0, 1, 0], [1, -4, 1], [0, 1, 0]]), 2, 4)
    assert lam[1, 0] == pytest.approx(-4.0)


@pytest.mark.parametrize("wrong", [lambda m, H, W: np.conj(_right(m, H, W)),
                                   lambda m, H, W: _right(m, H, W).real,
                                   lambda m, H, W: _right(m, H, W)[:, :-1]])
def test_wrong_answers_fail(wrong, capsys):
    assert exercises.check_symbol(wrong) is False
    assert "Not yet" in capsys.readouterr().out


def test_the_unfilled_scaffold_returns_false(capsys):
    assert exercises.check_symbol(_scaffold) is False
    assert "not attempted yet" in capsys.readouterr().out


def test_a_non_callable_is_a_type_error():
    with pytest.raises(TypeError, match="answer"):
        exercises.check_symbol("symbol")
