"""The chapter's executable exercise: right answer passes, wrong answer (control) fails, scaffold, non-callable."""
from __future__ import annotations

import pytest

from neurips24.vlm_classification import exercises


def right(caption_tokens, name_tokens):
    k = len(name_tokens)
    return sum(any(cap[i:i + k] == list(name_tokens) for i in range(len(cap) - k + 1)) for cap in caption_tokens)


def counts_every_occurrence(caption_tokens, name_tokens):      # a common slip: occurrences, not captions
    k = len(name_tokens)
    return sum(cap[i:i + k] == list(name_tokens) for cap in caption_tokens for i in range(len(cap) - k + 1))


def scaffold(caption_tokens, name_tokens):
    raise NotImplementedError("fill in the count")


def test_right_answer_passes():
    assert exercises.check_count_mentions(right)


def test_wrong_answer_fails(capsys):
    assert not exercises.check_count_mentions(counts_every_occurrence)
    assert "the count is" in capsys.readouterr().out


def test_scaffold_is_not_attempted(capsys):
    assert exercises.check_count_mentions(scaffold) is False
    assert "not attempted" in capsys.readouterr().out


def test_non_callable_raises():
    with pytest.raises(TypeError):
        exercises.check_count_mentions(3)
