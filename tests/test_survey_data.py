"""The ACS questions and the census table shipped in the package: content, sources, bad keys."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24 import survey
from neurips24.survey import census

# the official plot_utils.acs_categories: number of choices per question (read in the official repository)
PAPER_K = {"SEX": 2, "AGER": 7, "HISPR": 2, "RAC1PR": 6, "NATIVITY": 2, "CIT": 5, "SCH": 3, "SCHLR": 5, "LANX": 2,
           "ENG": 4, "HICOV": 2, "DEAR": 2, "DEYE": 2, "MAR": 5, "FER": 2, "GCL": 2, "MIL": 4, "WRK": 2, "ESR": 6,
           "JWTRNS": 12, "WKL": 3, "WKWN": 5, "WKHPR": 6, "COWR": 9, "PINCPR": 5}


def test_twenty_five_questions_in_the_forms_order_with_the_papers_k():
    qs = survey.questions()
    assert list(qs) == list(PAPER_K)
    assert {k: q.k for k, q in qs.items()} == PAPER_K
    assert survey.get_question("MIL").codes == (4, 3, 1, 2)          # the form's codes for MIL
    assert survey.get_question("HICOV").choices == ("Yes", "No")
    assert all(len(q.codes) == q.k and len(set(q.codes)) == q.k for q in qs.values())
    src = survey.questionnaire.question_source()
    assert "quest19.pdf" in src["questionnaire"] and "2cd2d4c" in src["selection"]


def test_unknown_question_codes_raise():
    with pytest.raises(KeyError, match="unknown question code"):
        survey.get_question("AGEP")
    with pytest.raises(TypeError):
        survey.get_question(3)
    with pytest.raises(KeyError, match="unknown question code"):
        survey.census_distribution("XYZ")


def test_census_values_by_hand():
    # HICOV: 9.2 % uninsured (P60-271); LANX: 67.8 M vs 241 M (ACS 2019); HISPR: 60,572,237 / 328,239,523
    np.testing.assert_allclose(survey.census_distribution("HICOV"), [0.908, 0.092], atol=1e-12)
    np.testing.assert_allclose(survey.census_distribution("LANX"), [67.8 / 308.8, 241 / 308.8], atol=1e-4)
    np.testing.assert_allclose(survey.census_distribution("HISPR")[0], 60572237 / 328239523, atol=1e-4)
    np.testing.assert_allclose(survey.census_distribution("HICOV", "Texas"), [0.816, 0.184], atol=1e-12)
    np.testing.assert_allclose(survey.census_distribution("HICOV", "Massachusetts"), [0.97, 0.03], atol=1e-12)


def test_every_value_has_a_known_source_and_sums_to_one():
    sources = survey.census_sources()
    for key in survey.covered_questions():
        for geo in survey.geographies(key):
            q = survey.census_distribution(key, geo)
            assert q.shape == (survey.get_question(key).k,) and abs(q.sum() - 1) < 1e-12 and (q > 0).all()
            assert census.census_source(key, geo) in sources
    assert set(survey.covered_questions()) == {"HICOV", "LANX", "HISPR"}
    assert len(survey.geographies("HICOV")) == 42                     # US + 40 states + DC


def test_nothing_is_guessed_uncovered_questions_and_states_raise():
    with pytest.raises(KeyError, match="no sourced 2019 census value"):
        survey.census_distribution("SEX")
    with pytest.raises(KeyError, match="no sourced 2019 census value"):
        survey.census_distribution("HICOV", "Ohio")                       # not found in a source: absent
    with pytest.raises(TypeError):
        survey.census_distribution("HICOV", 39)
