"""neurips24.slides: a deck per chapter from its built page (title card, equations, figures, claim cards,
discussion), with reveal.js and MathJax from the book's own _static."""
from __future__ import annotations

import pytest

from neurips24 import slides

PAGE = """<html><body><main><article class="bd-article">
<section id="t"><h1>A chapter<a class="headerlink">#</a></h1><p><strong>The paper</strong> — A. Author.</p>
<div class="admonition tip"><p class="admonition-title">The claim</p><p>Deeper nets train near the edge.</p></div>
<section><h2>2. Theory</h2><div class="math notranslate nohighlight">\\[x = y \\tag{1}\\]</div>
<div class="math notranslate nohighlight">\\[a\\]</div><div class="math notranslate nohighlight">\\[b\\]</div>
<div class="math notranslate nohighlight">\\[c\\]</div></section>
<section><h2>3. Experiment</h2><figure><img src="../_images/f.png"><figcaption><p>Fig. 1. Loss.</p></figcaption>
</figure></section>
<section><h2>4. Reproduction check</h2><div class='claim-card claim-pass' id='claim-a-b'>card 1</div>
<div class='claim-card claim-pass'>card 2</div><div class='claim-card claim-not-reproduced'>card 3</div></section>
<section><h2>5. Exercises and discussion</h2><ol><li>Why?</li><li>When not?</li></ol></section>
</section></article></main></body></html>"""


def test_a_deck_has_the_title_card_equations_figures_cards_and_discussion():
    title, sections = slides.deck_sections(PAGE)
    assert title == "A chapter"
    assert "Deeper nets train near the edge." in sections[0] and "A. Author" in sections[0]
    eq = [s for s in sections if s.startswith("<h2>Key equations")]
    assert len(eq) == 2 and eq[0].count("class=\"math") == slides.EQUATIONS_PER_SLIDE
    assert any('src="../_images/f.png"' in s and "Fig. 1. Loss." in s for s in sections)
    cards = [s for s in sections if s.startswith("<h2>Reproduction check")]
    assert len(cards) == 2 and "card 3" in cards[1]
    assert sections[-1].startswith("<h2>Discussion") and "When not?" in sections[-1]


def test_the_deck_serves_its_own_reveal_and_mathjax(tmp_path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "a_chapter.html").write_text(PAGE)
    (path,) = slides.write_decks(tmp_path)
    page = path.read_text()
    assert path == tmp_path / "slides" / "a_chapter.html"
    assert '../_static/reveal/reveal.js' in page and '../_static/mathjax/tex-mml-chtml.js' in page
    assert "http" not in page.replace("http-equiv", "") and page.count("<section>") >= 6


def test_a_page_that_is_not_a_chapter_is_refused():
    with pytest.raises(ValueError, match="not a chapter page"):
        slides.deck_sections("<html><body><p>x</p></body></html>")
