"""Census reference distributions q for the questions that map cleanly onto published 2019 tables (book's own).

The paper computes q from the 2019 ACS 1-year PUMS (person weights PWGTP, all ages, after its recodes), which
folktables downloads at run time. Nothing may be downloaded here, so ``data/census_2019.json`` holds a few shares
typed from published 2019 tables, each row with its source key; ``data/census_sources.json`` gives the full
citation, the table's universe and whether the listing is the Census Bureau's own or a secondary one. Covered:
HICOV (United States and 40 states + DC), LANX (United States) and HISPR (United States). Nothing is guessed:
a question or state without a sourced value is simply absent, and asking for it raises.
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

import numpy as np

from .questionnaire import get_question

SHARE_TOL = 2e-3   # the typed shares are rounded to 0.1 percentage point; a distribution sums to 1 within this


@lru_cache(maxsize=1)
def _rows() -> tuple:
    raw = json.loads(resources.files(__package__).joinpath("data", "census_2019.json").read_text(encoding="utf-8"))
    return tuple(dict(zip(raw["columns"], row, strict=True)) for row in raw["rows"])


def census_sources() -> dict:
    """Source key -> {'cite', 'table', 'kind'} for every source the table uses."""
    raw = resources.files(__package__).joinpath("data", "census_sources.json").read_text(encoding="utf-8")
    return json.loads(raw)


def covered_questions() -> list[str]:
    """PUMS keys of the questions with a sourced national distribution."""
    return sorted({r["question"] for r in _rows() if r["geography"] == "US"})


def geographies(question: str) -> list[str]:
    """The geographies ('US' and state names) with a sourced distribution for ``question``.

    Raises
    ------
    KeyError for an unknown question code (see :func:`~neurips24.survey.questionnaire.get_question`).
    """
    get_question(question)
    return sorted({r["geography"] for r in _rows() if r["question"] == question})


def census_distribution(question: str, geography: str = "US") -> np.ndarray:
    """The census distribution q over the question's choices, in the questionnaire's order.

    Parameters
    ----------
    question : PUMS key, e.g. 'HICOV'.
    geography : 'US' or a state name as in :func:`geographies` (e.g. 'Texas', 'District of Columbia').

    Returns
    -------
    (k,) float64, non-negative, renormalised to sum to 1 (the typed shares are rounded).

    Raises
    ------
    KeyError for an unknown question code, or a question/geography with no sourced value (nothing is guessed);
    ValueError if the stored shares do not cover every choice or do not sum to 1 within :data:`SHARE_TOL`.
    """
    q = get_question(question)
    if not isinstance(geography, str):
        raise TypeError(f"geography must be a str such as 'US' or 'Texas', got {type(geography).__name__}")
    rows = [r for r in _rows() if r["question"] == question and r["geography"] == geography]
    if not rows:
        known = geographies(question)
        raise KeyError(f"no sourced 2019 census value for {question!r} in {geography!r}; "
                       f"available: {known if known else 'none (this question is not covered)'}")
    share = {int(r["code"]): float(r["share"]) for r in rows}
    if set(share) != set(q.codes):
        raise ValueError(f"census table for {question!r}/{geography!r} has codes {sorted(share)}, "
                         f"the question has {sorted(q.codes)}")
    p = np.array([share[c] for c in q.codes], dtype=float)
    if abs(p.sum() - 1.0) > SHARE_TOL:
        raise ValueError(f"census shares for {question!r}/{geography!r} sum to {p.sum():.4f}, not 1")
    return p / p.sum()


def census_source(question: str, geography: str = "US") -> str:
    """The source key of the stored distribution (see :func:`census_sources`); KeyError if there is none."""
    census_distribution(question, geography)
    return next(r["source"] for r in _rows() if r["question"] == question and r["geography"] == geography)
