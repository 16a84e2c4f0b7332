"""The 25 American Community Survey 2019 questions of the paper's form, as package data (paper §2, Table 1).

The question wording, the answer choices in the questionnaire's order and their PUMS codes are stored in
``data/acs2019_questions.json``: taken from the Census Bureau's 2019 ACS questionnaire, with the selection, the
recoded choices (age, schooling, hours, income bins) and the codes of the paper's form (official repository
``forms/acs2019.py`` at commit 2cd2d4c, read, typed here). :func:`question_source` returns both citations.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources


@dataclass(frozen=True)
class Question:
    """One multiple-choice question of the form.

    Attributes
    ----------
    key : str, the PUMS variable (or the paper's recode of it), e.g. 'HICOV', 'AGER'.
    text : str, the question as the questionnaire asks it.
    choices : tuple of str, the k answer choices in the questionnaire's order.
    codes : tuple of int, the PUMS code of each choice (1..k except for MIL).
    universe : str, who is asked (the form's skip conditions, in words).
    """

    key: str
    text: str
    choices: tuple
    codes: tuple
    universe: str

    @property
    def k(self) -> int:
        """Number of answer choices k >= 2."""
        return len(self.choices)


@lru_cache(maxsize=1)
def _load() -> dict:
    raw = resources.files(__package__).joinpath("data", "acs2019_questions.json").read_text(encoding="utf-8")
    return json.loads(raw)


def questions() -> dict[str, Question]:
    """All 25 questions, keyed by PUMS variable, in the questionnaire's order.

    Returns
    -------
    dict str -> :class:`Question` (insertion order = the form's order: SEX, AGER, HISPR, ..., PINCPR).
    """
    out = {}
    for q in _load()["questions"]:
        out[q["key"]] = Question(q["key"], q["text"], tuple(q["choices"]), tuple(q["codes"]), q["universe"])
    return out


def get_question(key: str) -> Question:
    """The question with PUMS key ``key`` (e.g. 'HICOV').

    Raises
    ------
    TypeError if ``key`` is not a str; KeyError naming the known keys if it is not one of the 25.
    """
    if not isinstance(key, str):
        raise TypeError(f"key must be a str such as 'HICOV', got {type(key).__name__}")
    qs = questions()
    if key not in qs:
        raise KeyError(f"unknown question code {key!r}; known: {', '.join(qs)}")
    return qs[key]


def question_source() -> dict:
    """Where the questions come from: {'questionnaire': ..., 'selection': ..., 'note': ...}."""
    return dict(_load()["source"])
