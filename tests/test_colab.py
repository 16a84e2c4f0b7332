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


def test_glue_shows_the_book_run_value_beside_the_placeholder():
    c = ctx()
    c.values = {"cts_ratio": "0.87 (seed 0)", "multi": "a\n b"}
    out = colab.transform_markdown("a ratio of {glue}`cts_ratio` here, {glue}`multi`, {glue}`other`", c)
    assert out == ("a ratio of `⟨cts_ratio⟩` (book's run: 0.87 (seed 0)) here, `⟨multi⟩` (book's run: a b), "
                   "`⟨other⟩`")


def test_record_values_reads_a_builds_glue_files(tmp_path):
    (tmp_path / "_toc.yml").write_text("parts:\n- numbered: true\n  chapters:\n  - file: notebooks/demo\n",
                                       encoding="utf-8")
    (tmp_path / "book").mkdir()
    glue_dir = tmp_path / "glue"
    glue_dir.mkdir()
    with pytest.raises(FileNotFoundError, match="demo"):
        colab.record_values(glue_dir, tmp_path)
    (glue_dir / "demo.glue.json").write_text(json.dumps({
        "acc": {"output_type": "display_data", "data": {"text/plain": "0.93\n"}},
        "fig": {"output_type": "display_data", "data": {"image/png": "iVBOR"}},
        "md": {"output_type": "display_data", "data": {"text/markdown": ["*x*"], "text/plain": "x"}}}),
        encoding="utf-8")
    assert colab.record_values(glue_dir, tmp_path) == 2
    assert colab.load_book_values(tmp_path) == {"demo": {"acc": "0.93", "md": "*x*"}}
    record = json.loads((tmp_path / colab.BOOK_VALUES).read_text(encoding="utf-8"))
    assert record["made_by"].startswith("python -m neurips24.colab --values-from") and record["commit"]


def test_every_copy_shows_the_recorded_values():
    values = colab.load_book_values(ROOT)
    assert set(values) == set(colab.toc_chapters(ROOT / "_toc.yml")), "book/glued_values.json misses a chapter"
    for stem, by_name in values.items():
        text = (ROOT / "colab" / f"{stem}.ipynb").read_text(encoding="utf-8")
        shown = sum(json.dumps(colab.placeholder(name, value), ensure_ascii=False)[1:-1] in text
                    for name, value in by_name.items())
        assert shown >= len(by_name) // 2, f"colab/{stem}.ipynb shows {shown} of {len(by_name)} recorded values"


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
        assert [(colab.unfold_source(c), c["metadata"].get("tags"), c.get("id")) for c in code] == \
            [(colab._cell_text(c), c["metadata"].get("tags"), c.get("id")) for c in want], path
        for c in code:   # a solution is folded (Colab's form view, JupyterLab's hidden input), nothing else is
            folded = "solution" in c["metadata"].get("tags", [])
            assert (c["metadata"].get("cellView") == "form") == folded, (path, c.get("id"))
            assert c["metadata"].get("jupyter", {}).get("source_hidden", False) == folded, (path, c.get("id"))
            assert colab._cell_text(c).startswith(colab.SOLUTION_TITLE) == folded, (path, c.get("id"))
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


@pytest.mark.parametrize("source", ["x = 1\nassert x", ["x = 1\n", "assert x"]])
def test_a_solution_cell_is_folded_for_colab_and_jupyterlab(source):
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "# T"},
                    {"cell_type": "code", "metadata": {"tags": ["hide-cell", "solution"], "scrolled": True},
                     "source": source, "outputs": [{"output_type": "stream", "name": "stdout", "text": "ok"}],
                     "execution_count": 3},
                    {"cell_type": "code", "metadata": {"tags": ["hide-input"]}, "source": "y = 2",
                     "outputs": [], "execution_count": None}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    new = colab.convert(nb, colab.Context(colab.Chapter("demo", 1), BIB))
    solution, other = new["cells"][2], new["cells"][3]
    assert solution["metadata"] == {"tags": ["hide-cell", "solution"], "cellView": "form",
                                    "jupyter": {"source_hidden": True}}
    assert colab._cell_text(solution) == "#@title Solution (double-click to open)\nx = 1\nassert x"
    assert type(solution["source"]) is type(source)                      # the chapter's list/string form kept
    assert colab.unfold_source(solution) == "x = 1\nassert x"
    assert solution["outputs"] == [] and solution["execution_count"] is None
    assert other["metadata"] == {"tags": ["hide-input"]} and colab.unfold_source(other) == "y = 2"
    assert nb["cells"][1]["source"] == source and "cellView" not in nb["cells"][1]["metadata"]   # input unchanged


def _executed(nb):
    """A converted notebook as nbmake leaves it: outputs, counts and timings in every code cell."""
    run = json.loads(json.dumps(nb))
    run["metadata"]["language_info"] = {"name": "python", "version": "3.12.0"}
    for n, cell in enumerate(c for c in run["cells"] if c["cell_type"] == "code"):
        cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": f"cell {n}\n"}]
        cell["execution_count"] = n + 1
        cell["metadata"]["execution"] = {"iopub.execute_input": "2026-01-01T00:00:00Z"}
    return run


def _chapter():
    return {"cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": "# T\n\n{glue}`x`"},
                      {"cell_type": "code", "id": "b", "metadata": {"tags": ["remove-cell"]}, "source": "x = 1",
                       "outputs": [], "execution_count": None},
                      {"cell_type": "code", "id": "c", "metadata": {"tags": ["hide-cell", "solution"]},
                       "source": ["y = 2\n", "assert y"], "outputs": [], "execution_count": None}],
            "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}


def test_transplant_hands_the_copys_outputs_to_the_chapter():
    chapter = _chapter()
    run = _executed(colab.convert(chapter, colab.Context(colab.Chapter("demo", 1), BIB)))
    new = colab.transplant_outputs(run, chapter, "demo")
    code = [c for c in new["cells"] if c["cell_type"] == "code"]
    assert [c["outputs"][0]["text"] for c in code] == ["cell 0\n", "cell 1\n"]
    assert [c["execution_count"] for c in code] == [1, 2]
    assert all("execution" in c["metadata"] for c in code) and "cellView" not in code[1]["metadata"]
    assert [c["source"] for c in code] == ["x = 1", ["y = 2\n", "assert y"]]          # the chapter's, unfolded
    assert new["metadata"]["language_info"]["version"] == "3.12.0"
    assert chapter["cells"][1]["outputs"] == []                                       # the input is not changed


@pytest.mark.parametrize("change", ["source", "id", "extra cell"])
def test_transplant_fails_loudly_on_a_stale_copy(change):
    chapter = _chapter()
    run = _executed(colab.convert(chapter, colab.Context(colab.Chapter("demo", 1), BIB)))
    if change == "source":
        chapter["cells"][1]["source"] = "x = 2"
    elif change == "id":
        chapter["cells"][1]["id"] = "z"
    else:
        chapter["cells"].append(dict(chapter["cells"][1], id="d"))
    with pytest.raises(ValueError, match=r"notebooks/demo\.ipynb: .*(code cell|code cells)"):
        colab.transplant_outputs(run, chapter, "notebooks/demo.ipynb")


def test_outputs_from_writes_each_chapter_and_reports_a_missing_copy(tmp_path, capsys):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "_toc.yml").write_text("format: jb-book\nroot: intro\nparts:\n- caption: P\n  numbered: true\n"
                                       "  chapters:\n  - file: notebooks/demo\n  - file: notebooks/other\n")
    for stem in ("demo", "other"):
        (tmp_path / "notebooks" / f"{stem}.ipynb").write_text(colab.dumps(_chapter()))
    run_dir = tmp_path / "_build" / "colab"
    run_dir.mkdir(parents=True)
    run = _executed(colab.convert(_chapter(), colab.Context(colab.Chapter("demo", 1), BIB)))
    (run_dir / "demo.ipynb").write_text(colab.dumps(run))
    assert colab.main(["--root", str(tmp_path), "--outputs-from", str(run_dir)]) == 1   # "other" was not run
    assert "no executed copy" in capsys.readouterr().err
    demo = json.loads((tmp_path / "notebooks" / "demo.ipynb").read_text())
    assert [c["execution_count"] for c in demo["cells"] if c["cell_type"] == "code"] == [1, 2]
    other = json.loads((tmp_path / "notebooks" / "other.ipynb").read_text())
    assert all(c.get("outputs", []) == [] for c in other["cells"])
    (run_dir / "other.ipynb").write_text(colab.dumps(run))
    assert colab.main(["--root", str(tmp_path), "--outputs-from", str(run_dir)]) == 0
    (tmp_path / "notebooks" / "draft.ipynb").write_text(colab.dumps(_chapter()))   # a notebook outside the toc
    assert colab.main(["--root", str(tmp_path), "--outputs-from", str(run_dir)]) == 1
    assert "draft.ipynb is not a chapter of _toc.yml" in capsys.readouterr().err
