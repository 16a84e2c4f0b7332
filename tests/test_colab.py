"""The Colab/Jupyter copies (neurips24.colab): each MyST transformation on hand-written markdown, bad input, and
every chapter of _toc.yml converted without raw MyST and with its code cells unchanged."""
import json
from pathlib import Path

import pytest

from neurips24 import colab

ROOT = Path(__file__).resolve().parents[1]
BIB = {
    "poole2016": {"authors": "Poole et al.", "year": "2016", "url": "https://arxiv.org/abs/1606.05340"},
    "li2021": {"authors": "Li and Kovachki", "year": "2021", "url": ""},
}


def ctx(equations=None, figures=None, exercises=None, number=3, site=""):
    ch = colab.Chapter("demo", number, equations or {}, figures or {}, exercises or {})
    return colab.Context(ch, BIB, site, {"book/references": "References"})


def md(text, **kw):
    return colab.transform_markdown(text, ctx(**kw))


def test_exercise_and_solution_become_bold_heading_and_details():
    text = ("```{exercise} The DC trap\n:label: demo-ex-dc\n\nDraw $R(0)$.\n```\n"
            "````{solution} demo-ex-dc\n:class: dropdown\n\nIt halves.\n```python\nx = 1\n```\n````\n")
    out = md(text, exercises={"demo-ex-dc": 2})
    assert out.startswith("**Exercise 3.2 (The DC trap)**\n\nDraw $R(0)$.\n\n"
                          "<details>\n<summary>Solution</summary>\n\n")
    assert "It halves.\n```python\nx = 1\n```\n\n</details>" in out
    assert ":label:" not in out and ":class:" not in out


@pytest.mark.parametrize("opening,closing", [("```{admonition} The claim", "```"),
                                             (":::{admonition} The claim", ":::")])
def test_admonition_both_fences_become_blockquote(opening, closing):
    out = md(f"Before.\n{opening}\n:class: tip\nLine one.\n\nLine two.\n{closing}\nAfter.")
    assert out == "Before.\n\n> **The claim**\n>\n> Line one.\n>\n> Line two.\n\nAfter."


def test_display_math_in_an_admonition_goes_on_one_quoted_line():
    out = md("```{note}\nSo\n$$\na = b \\\\\nc = d\n$$ (demo-a)\n```", equations={"demo-a": 1})
    assert out == "> **Note**\n>\n> So\n> $$ a = b \\\\ c = d \\tag{3.1} $$"


def test_named_admonitions_and_dropdown():
    assert md("```{note}\nBe careful.\n```") == "> **Note**\n>\n> Be careful."
    assert md(":::{warning}\nHot.\n:::") == "> **Warning**\n>\n> Hot."
    out = md("```{admonition} Details\n:class: dropdown\nHidden.\n```")
    assert out == "<details>\n<summary>Details</summary>\n\nHidden.\n\n</details>"


def test_cite_forms():
    assert md("see {cite}`poole2016`.") == "see ([Poole et al., 2016](https://arxiv.org/abs/1606.05340))."
    assert md("{cite:p}`poole2016,li2021`") == \
        "([Poole et al., 2016](https://arxiv.org/abs/1606.05340); Li and Kovachki, 2021)"
    assert md("{cite:t}`li2021` show") == "Li and Kovachki (2021) show"


def test_eq_numref_ref_doc_with_numbers_and_links():
    kw = {"equations": {"demo-a": 2}, "figures": {"demo-fig": 4}, "exercises": {"demo-ex": 1}}
    assert md("by {eq}`demo-a` and {numref}`demo-fig`", **kw) == "by (3.2) and Fig. 3.4"
    assert md("{ref}`demo-ex`, {numref}`Figure %s <demo-fig>`, {ref}`that one <demo-a>`", **kw) == \
        "Exercise 3.1, Figure 3.4, that one"
    assert md("on the {doc}`../book/references` page") == "on the References page"
    linked = colab.transform_markdown("{eq}`demo-a`", ctx(site="https://x.org/b", **kw))
    assert linked == "[(3.2)](https://x.org/b/notebooks/demo.html#equation-demo-a)"


def test_section_target_is_dropped_and_ref_shows_its_heading():
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "(demo-sec)=\n## The set-up\n\nText."}]}
    ch = colab.number_chapter(nb, "demo", 2)
    c = colab.Context(ch, BIB)
    assert colab.transform_markdown("(demo-sec)=\n## The set-up", c) == "## The set-up"
    assert colab.transform_markdown("see {ref}`demo-sec`", c) == "see The set-up"


def test_glue_becomes_named_placeholder():
    assert md("a ratio of {glue}`cts_ratio` here") == "a ratio of `⟨cts_ratio⟩` here"


def test_labelled_display_math_gets_the_book_number_as_tag():
    text = "$$\nx = 1\n$$ (demo-a)\n\n$$ y = 2 $$\n\nand $$ z $$ (demo-b)"
    out = md(text, equations={"demo-a": 1, "demo-b": 2})
    assert out == "$$\nx = 1\n\\tag{3.1}\n$$\n\n$$ y = 2 $$\n\nand $$ z \\tag{3.2} $$"


def test_code_fences_and_code_spans_are_left_alone():
    text = "Use `{eq}` roles like this:\n```markdown\n{cite}`nokey` and $$ a $$ (nolabel)\n```\n"
    assert md(text) == text
    text = "Write `$$` then\n\n$$ x $$ (demo-a)"
    assert md(text, equations={"demo-a": 1}) == "Write `$$` then\n\n$$ x \\tag{3.1} $$"


def test_numbering_follows_the_book():
    nb = {"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "$$ a $$ (e-one)\n\n$$ b $$\n\n$$ c $$ (e-two)"},
        {"cell_type": "code", "metadata": {"mystnb": {"figure": {"name": "f-one"}}}, "source": ""},
        {"cell_type": "markdown", "metadata": {}, "source": "```{exercise} T\n:label: x-one\nDo.\n```"},
    ]}
    ch = colab.number_chapter(nb, "demo", 7)
    assert (ch.equations, ch.figures, ch.exercises) == ({"e-one": 1, "e-two": 2}, {"f-one": 1}, {"x-one": 1})
    toc = colab.toc_chapters(ROOT / "_toc.yml")
    assert toc["fno_edge_of_chaos"] == 1 and sorted(toc.values()) == list(range(1, len(toc) + 1))


@pytest.mark.parametrize("text,what", [
    ("{cite}`nobody2099`", "nobody2099"),
    ("{eq}`demo-missing`", "demo-missing"),
    ("$$ x $$ (demo-missing)", "demo-missing"),
    ("{numref}`demo-missing`", "demo-missing"),
    ("{abbr}`LR (learning rate)`", "abbr"),
    ("```{figure} a.png\n```", "figure"),
    ("```{note}\nnever closed", "unclosed"),
])
def test_bad_input_names_notebook_and_label(text, what):
    with pytest.raises(ValueError, match=rf"notebooks/demo\.ipynb: .*{what}"):
        md(text)


@pytest.fixture(scope="module")
def generated():
    return colab.generate(ROOT)


def test_every_toc_chapter_has_no_raw_myst_and_same_code(generated):
    toc = colab.toc_chapters(ROOT / "_toc.yml")
    assert sorted(generated) == sorted(f"colab/{stem}.ipynb" for stem in toc)
    for path, text in generated.items():
        copy = json.loads(text)
        source = json.loads((ROOT / "notebooks" / Path(path).name).read_text(encoding="utf-8"))
        for cell in copy["cells"]:
            if cell["cell_type"] == "markdown":
                raw = colab.RAW_MYST.search("".join(cell["source"]))
                assert raw is None, f"{path}: raw MyST {raw.group(0)!r}"
        code = [c for c in copy["cells"] if c["cell_type"] == "code"]
        want = [c for c in source["cells"] if c["cell_type"] == "code"]
        assert [(c["source"], c["metadata"].get("tags"), c.get("id")) for c in code] == \
            [(c["source"], c["metadata"].get("tags"), c.get("id")) for c in want], path
        assert all(c["outputs"] == [] and c["execution_count"] is None for c in code)
        assert "colab.research.google.com/github" not in text or f"/colab/{Path(path).name}" in text


def test_generation_is_deterministic_and_check_mode(generated, tmp_path):
    assert colab.generate(ROOT) == generated
    for rel in ("_toc.yml", "_config.yml", "book"):
        src = ROOT / rel
        (tmp_path / rel).symlink_to(src, target_is_directory=src.is_dir())
    (tmp_path / "notebooks").symlink_to(ROOT / "notebooks", target_is_directory=True)
    assert colab.main(["--root", str(tmp_path), "--check"]) == 1   # nothing generated yet
    assert colab.main(["--root", str(tmp_path)]) == 0
    assert colab.main(["--root", str(tmp_path), "--check"]) == 0
    stale = tmp_path / "colab" / "fno_edge_of_chaos.ipynb"
    stale.write_text(stale.read_text(encoding="utf-8") + " ", encoding="utf-8")
    assert colab.main(["--root", str(tmp_path), "--check"]) == 1


def test_committed_copies_are_in_sync():
    if not (ROOT / "colab").is_dir():
        pytest.skip("colab/ not generated yet (run `python -m neurips24.colab`)")
    assert colab.main(["--check"]) == 0, "colab/ is stale: run `python -m neurips24.colab`"


def test_solution_markdown_still_renders_inside_details():
    markdown_it = pytest.importorskip("markdown_it")
    out = md("```{exercise} T\n:label: demo-ex\nAsk.\n```\n```{solution} demo-ex\n:class: dropdown\n**Yes**, $x$.\n```",
             exercises={"demo-ex": 1})
    html = markdown_it.MarkdownIt("commonmark").render(out)
    assert "<p><strong>Exercise 3.1 (T)</strong></p>" in html
    assert "<details>\n<summary>Solution</summary>\n<p><strong>Yes</strong>, $x$.</p>\n</details>" in html
