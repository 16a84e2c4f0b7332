"""The FNO chapter's executable exercise: right answer passes, wrong answers fail, the scaffold is 'not attempted'."""
import numpy as np
import pytest

from neurips24.fno import exercises


def by_direct_sum(C, K):   # an independent right answer: the DFT sum of eq. (fno-lowpass), no FFT
    N = len(C)
    r = np.arange(N)
    k = np.arange(-(K - 1), K)
    C_hat = np.exp(-2j * np.pi * np.outer(k, r) / N) @ C
    return (np.exp(2j * np.pi * np.outer(r, k) / N) @ C_hat).real / N


def off_by_one(C, K):      # the control: keeps |k| <= K
    C_hat = np.fft.rfft(C)
    C_hat[K + 1:] = 0.0
    return np.fft.irfft(C_hat, n=len(C))


def scaffold(C, K):
    raise NotImplementedError("fill in the low-pass filter")


def test_right_answer_passes(capsys):
    assert exercises.check_low_pass(by_direct_sum) is True
    assert "Right" in capsys.readouterr().out


def test_wrong_answers_fail(capsys):
    assert exercises.check_low_pass(off_by_one) is False
    assert "differs" in capsys.readouterr().out
    assert exercises.check_low_pass(lambda C, K: C) is False
    assert exercises.check_low_pass(lambda C, K: C[:2]) is False


def test_scaffold_is_not_attempted(capsys):
    assert exercises.check_low_pass(scaffold) is False
    assert "not attempted" in capsys.readouterr().out


def test_non_callable_raises():
    with pytest.raises(TypeError, match="answer"):
        exercises.check_low_pass(np.zeros(3))
