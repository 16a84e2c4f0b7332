"""neurips24.handouts: a one-page handout per session from the chapter's built page and the seminar guide."""
from __future__ import annotations

import pytest
from test_slides import PAGE

from neurips24 import handouts

SEMINAR = """<html><body><main><article><section><h2>What students prepare</h2><ul><li>Read the
<a href="x">abstract</a>.</li></ul></section><table><tr><td>1</td><td><a href="../notebooks/a_chapter.html">A</a>
</td><td>—</td><td>why does it train?</td></tr></table></article></main></body></html>"""


def test_the_handout_has_question_claim_equations_figure_preparation_and_exercise():
    page = PAGE.replace("</article>", "<div class='exercise'><p>Change the seed.</p>"
                                      "<div class='solution'>hidden answer</div></div></article>")
    text = handouts.handout(page, "why does it train?", handouts.preparation(SEMINAR), "a_chapter")
    assert "why does it train?" in text and "Deeper nets train near the edge." in text
    assert text.count('class="math') == handouts.N_EQUATIONS and "../_images/f.png" in text
    assert "Read the\nabstract" in text or "Read the abstract" in " ".join(text.split())
    assert "Change the seed." in text and "hidden answer" not in text
    assert "size: A4" in text and "../notebooks/a_chapter.html" in text


def test_session_questions_and_written_pages(tmp_path):
    assert handouts.session_questions(SEMINAR) == {"a_chapter": "why does it train?"}
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book").mkdir()
    (tmp_path / "notebooks" / "a_chapter.html").write_text(PAGE)
    (tmp_path / "book" / "seminar.html").write_text(SEMINAR)
    (path,) = handouts.write_handouts(tmp_path)
    assert path.name == "a_chapter.html" and "why does it train?" in path.read_text()


def test_a_page_that_is_not_a_chapter_is_refused():
    with pytest.raises(ValueError, match="not a chapter page"):
        handouts.handout("<p>x</p>")
