"""The status page generator (neurips24.status), on fake records and a fake book."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from neurips24 import claims, status


def _notebook(path, title, code):
    cells = [{"cell_type": "markdown", "metadata": {}, "source": [f"# {title}\n", "\n", "text"]},
             {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": code}]
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))


def _link(doc: str, claim_id: str) -> str:
    """The status page's link from a claim id to its card in the chapter's page."""
    return f'<a href="../notebooks/{doc}.html#{claims.card_anchor(claim_id)}"><code>{claim_id}</code></a>'


def _b(outcome, text=None):
    """A ledger's verdict badge."""
    text = text or {"pass": "PASS", "not reproduced": "NOT REPRODUCED", "not run here": "NOT RUN HERE"}[outcome]
    return f'<span class="status-badge {claims.outcome_class(outcome)}">{text}</span>'


def _record(claim_id, holds=True, measured=1.0, paper="> 0", scale="fast", elapsed_s=None, time="2026-01-02T03:04:05"):
    rec = {"chapter": claim_id.split(".")[0], "claim_id": claim_id, "claim": f"claim {claim_id}",
           "measured": measured, "paper": paper, "holds": holds, "scale": scale, "time": time}
    if elapsed_s is not None:
        rec["elapsed_s"] = elapsed_s
    return rec


@pytest.fixture
def book(tmp_path):
    """A book with two chapters in the toc (b first) and a third notebook that is not in it."""
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "book").mkdir()
    _notebook(tmp_path / "notebooks" / "alpha.ipynb", "Alpha chapter",
              'claims.check("aa.one", claim="c", measured=1, paper=1, holds=True)\n'
              "claims.check( 'aa.two', claim='c', measured=1, paper=1, holds=True)")
    _notebook(tmp_path / "notebooks" / "beta.ipynb", "Beta chapter",
              ["from neurips24.claims import check\n", 'check("bb.x", claim="c", measured=1, paper=1, holds=True)\n',
               'for k in ks:\n', '    check(f"cc.{k}", claim="c", measured=1, paper=1, holds=True)\n',
               'for claim_id, kwargs in dd.reproduction.checks(res).items():\n',
               '    claims.check(claim_id, **kwargs)'])
    _notebook(tmp_path / "notebooks" / "gamma.ipynb", "Gamma", 'claims.check("gg.x", claim="c")')
    (tmp_path / "_toc.yml").write_text(
        "format: jb-book\nroot: book/intro\nparts:\n  - caption: Part\n    chapters:\n"
        "      - file: notebooks/beta\n      - file: notebooks/alpha\n  - caption: Back\n    chapters:\n"
        "      - file: book/references\n")
    return tmp_path


def _tables(page):
    """The page's tables, each a list of body rows (lists of cell sources), parsed the way MyST parses them;
    and the page's headings."""
    md = MarkdownIt("commonmark").enable("table").use(dollarmath_plugin)
    tokens = md.parse(page)
    assert not [t for t in tokens if t.type.startswith("math")], "a value was parsed as math"
    tables, headings, in_body, in_heading = [], [], False, False
    for tok in tokens:
        if tok.type == "tbody_open":
            tables.append([])
            in_body = True
        elif tok.type == "tbody_close":
            in_body = False
        elif in_body and tok.type == "tr_open":
            tables[-1].append([])
        elif in_body and tok.type == "inline":
            tables[-1][-1].append(tok.content)
        elif tok.type == "heading_open":
            in_heading = True
        elif in_heading and tok.type == "inline":
            headings.append(tok.content)
            in_heading = False
    return tables, headings


def test_toc_chapters_in_book_order_with_their_claim_prefixes(book):
    chapters = status.toc_chapters(book)
    assert chapters == [
        {"doc": "notebooks/beta", "title": "Beta chapter", "prefixes": {"bb", "cc", "dd"}},   # dd: its checks loop
        {"doc": "notebooks/alpha", "title": "Alpha chapter", "prefixes": {"aa"}},
    ]


def test_toc_chapters_resolve_aliases_and_read_the_packages_claim_ids(book):
    """`ih.reproduction.checks` with `from neurips24 import iteration_heads as ih`, a bare `reproduction.checks`
    after `from neurips24.dq import reproduction`, and `mk.reproduction.portrait_checks`: each chapter gets the
    claim-id prefixes written in its package's reproduction.py (teg writes 'textual_edge_graphs.*')."""
    for package, ids in {"iteration_heads": ["iteration_heads.cot"], "dq": ["dlq.one", "dlq.two"],
                         "mk": ["markov.x"], "teg": ["textual_edge_graphs.y"]}.items():
        folder = book / "src" / "neurips24" / package
        folder.mkdir(parents=True)
        (folder / "reproduction.py").write_text("\n".join(f'OUT["{i}"] = 1' for i in ids)
                                                + '\nRECORD = "full_scale.json"\n')
    _notebook(book / "notebooks" / "alpha.ipynb", "Alpha chapter",
              "from neurips24 import claims, iteration_heads as ih, glue\nfrom neurips24.dq import reproduction\n"
              "for c, kw in ih.reproduction.checks(r).items():\n    claims.check(c, **kw)\n"
              "d = reproduction.checks(det)\n")
    _notebook(book / "notebooks" / "beta.ipynb", "Beta chapter",
              "from neurips24 import mk, teg\nfor c, kw in mk.reproduction.portrait_checks(p).items():\n"
              "    claims.check(c, **kw)\nfor c, kw in teg.reproduction.checks(g).items():\n"
              "    claims.check(c, **kw)\n")
    prefixes = {ch["doc"]: ch["prefixes"] for ch in status.toc_chapters(book)}
    assert prefixes == {"notebooks/alpha": {"iteration_heads", "dlq"},
                        "notebooks/beta": {"markov", "textual_edge_graphs"}}


def test_every_chapter_of_the_book_finds_its_claims():
    """Each chapter of the real book is matched to at least one claim-id prefix, and no two share one (else the
    status page's overview would say 'not run' for a chapter that ran)."""
    chapters = status.toc_chapters(Path(__file__).resolve().parents[1])
    assert chapters and all(ch["prefixes"] for ch in chapters), [ch["doc"] for ch in chapters if not ch["prefixes"]]
    every = [p for ch in chapters for p in ch["prefixes"]]
    assert len(every) == len(set(every))


@pytest.mark.parametrize("value, text", [
    (0.123456, "0.123"), (12345.0, "1.23e+04"), (3, "3"), (True, "yes"), ("≥ 10x", "≥ 10x"),
    ([1.0, 2.5], "[1, 2.5]"), ({"K=2": 0.97812, "K=32": [0.5, 0.25]}, "K=2: 0.978; K=32: [0.5, 0.25]"),
])
def test_format_value(value, text):
    assert status.format_value(value) == text


def _dropdowns(page):
    """The titles of the page's ``:::{dropdown}`` blocks, in order."""
    return [ln[len(":::{dropdown} "):] for ln in page.splitlines() if ln.startswith(":::{dropdown} ")]


def test_render_overview_per_chapter_then_a_dropdown_ledger_per_chapter(book):
    records = [_record("aa.one", elapsed_s=12.3), _record("aa.two", holds=False, measured={"c": 0.5}, elapsed_s=40.6),
               _record("bb.x", scale="full", elapsed_s=7.0), _record("zz.orphan")]
    page = status.render(records, status.toc_chapters(book), version="0.1.0", commit="abc1234")
    (overview, beta, alpha, orphan), headings = _tables(page)
    # in toc order; the run time is the chapter's latest check, in seconds since neurips24 was imported
    assert overview == [["{doc}`Beta chapter <../notebooks/beta>`", "1", "—", "1 of 1 held, 7 s"],
                        ["{doc}`Alpha chapter <../notebooks/alpha>`", "2", "1 of 2 held, **1 failed**, 41 s", "—"],
                        ["`zz`", "1", "1 of 1 held, —", "—"]]                  # an old record without elapsed_s
    assert headings == ["Reproduction status", "Claim by claim"]
    assert _dropdowns(page) == ["Beta chapter: 1 of 1 held", "Alpha chapter: 1 of 2 held", "Claims zz: 1 of 1 held"]
    assert beta == [[_b("pass"), _link("beta", "bb.x") + " claim bb.x", "\\> 0", "—", "1", "none", "—", "—", "—",
                     "passed, and its control failed"]]
    assert alpha == [[_b("pass"), _link("alpha", "aa.one") + " claim aa.one", "\\> 0", "1", "none", "—", "—", "—",
                      "passed, and its control failed"],
                     [_b("fail", "FAIL: fail"), _link("alpha", "aa.two") + " claim aa.two", "\\> 0", "c: 0.5",
                      "none", "—", "—", "—", "failed: fail"]]
    assert orphan == [[_b("pass"), "`zz.orphan` claim zz.orphan", "\\> 0", "1", "none", "—", "—", "—",
                       "passed, and its control failed"]]
    assert ("- **`fast` scale: 2 of 3 claims hold**, 0 do not reproduce (said in their chapters), 0 not run here "
            "(the paper's setting needs `full` scale), 1 fail.") in page
    assert "- **`full` scale: 1 of 1 claims hold**" in page
    assert "Package `neurips24` 0.1.0, commit `abc1234`; last check recorded 2026-01-02T03:04:05." in page
    assert not re.search(r"\bissues?\b", page, re.I)


def test_render_both_scales_of_one_claim_side_by_side(book):
    fast = _record("aa.one", measured=0.5, elapsed_s=30)
    full = _record("aa.one", measured=0.75, scale="full", elapsed_s=900)
    full["outcome"] = "not reproduced"
    page = status.render([fast, full], status.toc_chapters(book))
    (overview, alpha), _ = _tables(page)
    assert overview[1][1:] == ["1", "1 of 1 held, 30 s", "0 of 1 held, 1 not reproduced, 900 s"]
    assert alpha == [["fast: " + _b("pass") + "; full: " + _b("not reproduced"),
                      _link("alpha", "aa.one") + " claim aa.one", "\\> 0",
                      "0.5", "0.75", "none", "—", "—", "—", "passed, and its control failed"]]
    assert "not run in this build" not in page


def test_render_shows_control_interval_and_known_non_reproduction(book):
    ok = _record("aa.one", measured=0.9, paper=">= 0.8")
    ok.update(outcome="pass", paper_source="Fig. 4", control={"name": "standard init", "measured": 0.1, "holds": False},
              interval={"estimate": 0.9, "low": 0.6, "high": 0.98, "level": 0.95, "method": "binomial (wilson), 9/10"})
    known = _record("aa.two", holds=False, measured=0.2)
    known.update(outcome="not reproduced", control={"name": "baseline", "measured": 0.1, "holds": False})
    page = status.render([ok, known], status.toc_chapters(book))
    (overview, alpha), _ = _tables(page)
    assert overview[1][1:] == ["2", "1 of 2 held, 1 not reproduced, —", "—"]
    assert alpha == [[_b("pass"), _link("alpha", "aa.one") + " claim aa.one", "\\>= 0.8 (Fig. 4)", "0.9",
                      "standard init: 0.1 (does not hold)", "—",
                      "\\[0.6, 0.98\\] (95%, binomial (wilson), 9/10)", "—", "passed, and its control failed"],
                     [_b("not reproduced"), _link("alpha", "aa.two") + " claim aa.two", "\\> 0", "0.2",
                      "baseline: 0.1 (does not hold)", "—", "—", "—",
                      "below the book's threshold at this scale"]]
    assert "**`fast` scale: 1 of 2 claims hold**, 1 do not reproduce (said in their chapters), 0 not run" in page
    assert "## Not reproduced (1)" in page
    assert "`full` scale: not run in this build" in page


def test_render_chapter_without_records_says_not_run(book):
    page = status.render([_record("aa.one")], status.toc_chapters(book))
    (overview, alpha), _ = _tables(page)
    assert overview[0] == ["{doc}`Beta chapter <../notebooks/beta>`", "not run", "—", "—"]
    assert _dropdowns(page) == ["Alpha chapter: 1 of 1 held"] and len(alpha) == 1


def test_render_no_records_at_all(book):
    page = status.render([], status.toc_chapters(book))
    assert "No reproduction check has been recorded yet" in page
    (overview,), _ = _tables(page)
    assert [row[1] for row in overview] == ["not run", "not run"]
    assert "Package `neurips24` unknown, commit `unknown`." in page


def test_render_escapes_markup_math_and_pipes(book):
    rec = _record("aa.one", measured="a | b $x$ *y* <z>", paper="`code` {role}\nnext line")
    rec["claim"] = "gain $\\sigma^2$ [link](x) _u_"
    page = status.render([rec], status.toc_chapters(book))
    (_, (row,)), _ = _tables(page)
    assert len(row) == 9                                       # the pipe did not split the cell
    html = MarkdownIt("commonmark").enable("table").render(page)
    for text in ["a | b $x$ *y* &lt;z&gt;", "`code` {role} next line", "gain $\\sigma^2$ [link](x) _u_"]:
        assert text in html


def test_load_records_keeps_one_record_per_claim_and_scale(tmp_path):
    (tmp_path / "aa.jsonl").write_text("\n".join(json.dumps(r) for r in [
        _record("aa.one", measured=1), _record("aa.one", measured=2), _record("aa.one", measured=3, scale="full")]))
    gpu = tmp_path / "gpu"
    gpu.mkdir()
    (gpu / "bb.jsonl").write_text(json.dumps(_record("bb.x", scale="full")) + "\n")
    got = status.load_records(tmp_path, gpu)
    assert [(r["claim_id"], r["scale"], r["measured"]) for r in got] == [
        ("aa.one", "fast", 2), ("aa.one", "full", 3), ("bb.x", "full", 1.0)]


def test_build_info_reads_the_commit_or_says_unknown(tmp_path):
    import neurips24

    version, commit = status.build_info(tmp_path)               # not a git repository
    assert (version, commit) == (neurips24.__version__, "unknown")
    _, here = status.build_info(Path(status.__file__).resolve().parents[2])
    assert here == "unknown" or re.fullmatch(r"[0-9a-f]{4,40}", here)


def test_main_writes_the_page_from_the_claims_folder(book, capsys):
    claims.check("aa.one", claim="first", measured=0.25, paper=">= 0.2", holds=True,
                 control={"name": "c", "measured": 0.0, "holds": False})   # into $NEURIPS24_CLAIMS_DIR
    assert status.main(["--root", str(book)]) == 0
    page = (book / "book" / "status.md").read_text(encoding="utf-8")
    assert page.startswith("% Generated by `python -m neurips24.status`")
    (overview, alpha), _ = _tables(page)
    assert alpha == [[_b("pass"), _link("alpha", "aa.one") + " first", "\\>= 0.2", "0.25", "c: 0 (does not hold)", "—",
                      "—", "—", "passed, and its control failed"]]
    assert overview[1][:2] == ["{doc}`Alpha chapter <../notebooks/alpha>`", "1"]
    assert overview[1][2].startswith("1 of 1 held, ")
    assert "1 claims from" in capsys.readouterr().out


def test_claim_ids_link_to_the_card_of_their_chapter(book):
    """The ledger's claim ids are links to the card's id in the chapter's page (the card carries that id)."""
    rec = _record("aa.one")
    page = status.render([rec], status.toc_chapters(book))
    anchor = claims.card_anchor("aa.one")
    assert anchor == "claim-aa-one"
    assert f'href="../notebooks/alpha.html#{anchor}"' in page
    assert f"id='{anchor}'" in claims.card_html({**rec, "outcome": "pass", "control": None})


def test_render_shows_seeds_another_seed_set_and_not_run_here(book):
    seeded = _record("aa.one", measured=2)
    seeded.update(outcome="pass", per_seed={"0": 0.97, "1": 0.99, "2": 0.41})
    nrh = _record("aa.two", holds=None, measured="not run at fast")
    nrh.update(outcome="not run here", command="make full CHAPTERS=alpha")
    flip = _record("aa.one", measured=1)
    flip.update(outcome="fail")
    page = status.render([seeded, nrh], status.toc_chapters(book), reseed=[flip, {**nrh}])
    (overview, alpha), _ = _tables(page)
    assert alpha[0][0] == _b("pass") and alpha[0][5] == "0: 0.97; 1: 0.99; 2: 0.41" and alpha[0][7] == "**no**"
    assert alpha[0][8] == "fragile across seeds: FAIL at another seed set" or alpha[0][8].startswith("fragile")
    assert alpha[1][0] == _b("not run here") and alpha[1][7] == "yes" and "make full CHAPTERS=alpha" in alpha[1][8]
    assert "## Not run here (1)" in page and "1 of 2 claims keep their verdict" in page
    assert overview[1][2].startswith("1 of 2 held, 1 not run here")


def test_compare_fails_on_a_verdict_change_not_declared_fragile(capsys):
    base = [dict(_record("aa.one"), outcome="pass"), dict(_record("aa.two"), outcome="pass", fragile="4 of 6 seeds")]
    same = [dict(_record("aa.one"), outcome="pass"), dict(_record("aa.two"), outcome="pass")]
    assert status.compare(base, same) == 0
    declared = [dict(_record("aa.one"), outcome="pass"), dict(_record("aa.two"), outcome="fail")]
    assert status.compare(base, declared) == 0
    undeclared = [dict(_record("aa.one"), outcome="fail"), dict(_record("aa.two"), outcome="pass")]
    assert status.compare(base, undeclared) == 1
    assert "aa.one: pass -> fail at another seed set (NOT DECLARED FRAGILE)" in capsys.readouterr().out
    assert status.compare(base, None) == 1
    assert status.compare(base, same[:1]) == 1                  # a claim the other seed set did not check


def test_mutants_page_lists_each_planted_bug_and_what_caught_it(book, tmp_path):
    folder = tmp_path / "mut"
    folder.mkdir()
    (folder / "alpha.sign.json").write_text(json.dumps(
        {"chapter": "alpha", "mutant": "sign", "description": "the gradient's sign flipped", "caught_by": ["aa.one"],
         "outcomes": {}}))
    page = status.render_mutants(status.load_mutants(folder), status.toc_chapters(book))
    (table,), _ = _tables(page)
    assert table == [["{doc}`Alpha chapter <../notebooks/alpha>`", "`sign`", "the gradient\\'s sign flipped",
                      _link("alpha", "aa.one")]] or table[0][3] == _link("alpha", "aa.one")
    assert "**1 of 1 planted bugs caught**" in page and "Beta chapter" in page   # beta has none yet
    assert "have not run in this build" in status.render_mutants([], status.toc_chapters(book))
