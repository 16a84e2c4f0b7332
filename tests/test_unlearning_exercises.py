"""The unlearning chapter's executable exercise (unlearning.exercises): ToW passes, a sum of the gaps and a
forget-set-only score (the controls) do not, the unfilled scaffold is 'not attempted', a non-callable is a
TypeError."""
import pytest

from neurips24.unlearning import exercises


def _right(acc_u, acc_r):
    out = 1.0
    for key in ("forget", "retain", "test"):
        out *= 1 - abs(acc_u[key] - acc_r[key])
    return out


def _scaffold(acc_u, acc_r):
    raise NotImplementedError("fill in")


def test_the_right_answer_passes_and_the_chapters_two_cases(capsys):
    assert exercises.check_tow(_right) is True
    assert "Right" in capsys.readouterr().out
    original = {"forget": 1.0, "retain": 0.98, "test": 0.9}
    assert _right(original, {**original, "forget": 0.0}) == 0.0                      # flipped labels: ToW = 0
    assert _right(original, {**original, "forget": 0.97}) == pytest.approx(0.97)     # typical points: ≈ 1


@pytest.mark.parametrize("wrong", [
    lambda u, r: 1 - sum(abs(u[k] - r[k]) for k in ("forget", "retain", "test")),     # 1 − the sum of the gaps
    lambda u, r: 1 - abs(u["forget"] - r["forget"]),                                 # the forget set only
    lambda u, r: "1.0",
])
def test_wrong_answers_fail(wrong, capsys):
    assert exercises.check_tow(wrong) is False
    assert "Not yet" in capsys.readouterr().out


def test_the_unfilled_scaffold_returns_false(capsys):
    assert exercises.check_tow(_scaffold) is False
    assert "not attempted yet" in capsys.readouterr().out


def test_a_non_callable_is_a_type_error():
    with pytest.raises(TypeError, match="answer"):
        exercises.check_tow({"forget": 1.0})
