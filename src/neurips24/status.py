"""The book's reproduction status page, generated from what the chapters' reproduction checks recorded.

``python -m neurips24.status`` reads the records that :func:`neurips24.claims.check` wrote while the chapters
ran (``$NEURIPS24_CLAIMS_DIR``), finds which notebook of ``_toc.yml`` makes each chapter's checks, and writes
``book/status.md``: an overview with a row per chapter (claims that hold at each scale, run time), then a
collapsible ledger per chapter with a row per claim (the paper's value, ours at each scale, the control, the
interval, the result), and the package version and commit the page was built from. The Makefile runs it after
the notebooks ran and before the book is built, so the page cannot drift from the code. The page is a build
product (git ignores it): never edit it.
"""
from __future__ import annotations

import argparse
import html
import json
import re
import subprocess
from pathlib import Path

from . import claims, landing
from .claims import format_value

_TOC_NOTEBOOK = re.compile(r"^\s*-?\s*file:\s*(notebooks/[\w\-]+)\s*$", re.M)
_CHECK_CALL = re.compile(r"""\bcheck\(\s*[fr]?["']([A-Za-z0-9_\-]+)\.""")
# a chapter whose checks come from its package's reproduction module: `for cid, kw in cts.reproduction.checks(...)`
_CHECKS_LOOP = re.compile(r"\b([a-z_][a-z0-9_]*)\.reproduction\.checks\(")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|${}])")


def toc_chapters(root: Path) -> list[dict]:
    """The chapters of ``root/_toc.yml``, in book order.

    Returns
    -------
    list of dict with keys ``doc`` ('notebooks/<stem>'), ``title`` (the notebook's first '# ' heading, or the
    stem) and ``prefixes`` (the claim-id prefixes its code passes to ``check``, e.g. {'fno'}, or the package whose
    ``reproduction.checks(...)`` it loops over, e.g. {'cts'}).
    """
    toc = (root / "_toc.yml").read_text(encoding="utf-8")
    chapters = []
    for doc in _TOC_NOTEBOOK.findall(toc):
        nb = json.loads((root / f"{doc}.ipynb").read_text(encoding="utf-8"))
        title, prefixes = Path(doc).name, set()
        for cell in nb["cells"]:
            text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            if cell["cell_type"] == "code":
                prefixes.update(_CHECK_CALL.findall(text))
                prefixes.update(_CHECKS_LOOP.findall(text))
            elif title == Path(doc).name:
                heading = next((ln[2:].strip() for ln in text.splitlines() if ln.startswith("# ")), None)
                title = heading or title
        chapters.append({"doc": doc, "title": title, "prefixes": prefixes})
    return chapters


def _cell(text: str) -> str:
    """Text made safe for a cell of a MyST pipe table (no markup, no math, no line breaks)."""
    return _MD_SPECIAL.sub(r"\\\1", " ".join(str(text).split()))


def _claim_link(claim_id: str, doc: str | None) -> str:
    """The claim id, linked to its card in the chapter's page (the card's ``id``, :func:`claims.card_anchor`)."""
    if doc is None:
        return f"`{claim_id}`"
    return f'<a href="../{doc}.html#{claims.card_anchor(claim_id)}"><code>{html.escape(claim_id)}</code></a>'


def _seconds(records: list[dict]) -> str:
    times = [r["elapsed_s"] for r in records if isinstance(r.get("elapsed_s"), (int, float))]
    return f"{max(times):.0f} s" if times else "—"


def _outcome(rec: dict) -> str:
    """The record's outcome; records written before controls existed have only ``holds``."""
    return rec.get("outcome") or ("pass" if rec["holds"] else "fail")


def _count(records: list[dict], *outcomes: str, negate: bool = False) -> int:
    return sum((_outcome(r) in outcomes) != negate for r in records)


def _paper(rec: dict) -> str:
    source = rec.get("paper_source")
    return format_value(rec["paper"]) + (f" ({source})" if source else "")


def _control(rec: dict) -> str:
    ctrl = rec.get("control")
    if not ctrl:
        return "none"
    return f"{ctrl['name']}: {format_value(ctrl['measured'])} ({'holds' if ctrl['holds'] else 'does not hold'})"


def _interval(rec: dict) -> str:
    iv = rec.get("interval")
    return f"[{iv['low']:.3g}, {iv['high']:.3g}] ({iv['level']:.0%}, {iv['method']})" if iv else "—"


def _result(rec: dict) -> str:
    outcome = _outcome(rec)
    return {"pass": "pass", "not reproduced": "not reproduced (known)"}.get(outcome, f"**{outcome}**")


def load_records(*folders: Path) -> list[dict]:
    """The latest record of each (claim, scale) in the claims folders (default: $NEURIPS24_CLAIMS_DIR), in file order.

    Unlike :func:`neurips24.claims.load`, a claim checked at both scales keeps one record per scale, so that the
    page can show a ``full``-scale build (e.g. the records of a GPU run, passed with ``--also``) beside ``fast``.
    """
    latest: dict[tuple[str, str], dict] = {}
    for folder in folders or (claims.claims_dir(),):
        for path in sorted(Path(folder).glob("*.jsonl")):
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    rec = json.loads(line)
                    latest[(rec["claim_id"], rec["scale"])] = rec
    return list(latest.values())


def build_info(root: Path) -> tuple[str, str]:
    """(package version, short git commit of ``root`` or 'unknown' when git or the repository is not there)."""
    from . import __version__

    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
                             timeout=10)
        commit = out.stdout.strip() if out.returncode == 0 and out.stdout.strip() else "unknown"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    return __version__, commit


def _scale_summary(recs: list[dict]) -> str:
    """'3 of 4 held, 1 not reproduced, 41 s' for one chapter's records at one scale; '—' for none."""
    if not recs:
        return "—"
    text = f"{_count(recs, 'pass')} of {len(recs)} held"
    if _count(recs, "not reproduced"):
        text += f", {_count(recs, 'not reproduced')} not reproduced"
    failed = _count(recs, "pass", "not reproduced", negate=True)
    if failed:
        text += f", **{failed} failed**"
    return f"{text}, {_seconds(recs)}"


def render(records: list[dict], chapters: list[dict], *, version: str = "unknown", commit: str = "unknown") -> str:
    """The status page (MyST Markdown) for ``records`` (as :func:`load_records` returns them).

    A one-screen overview, a row per chapter in book order (its claims, and at each scale how many held, how many
    the chapter knows do not reproduce, and its run time), then a collapsible ledger per chapter (sphinx-design
    dropdowns) with a row per claim: the claim, the paper's value, ours at ``fast`` and at ``full`` scale, the
    control, the interval and the result. A chapter with no record is listed as not run; records whose prefix no
    notebook of the book checks are listed after the chapters.
    """
    by_prefix: dict[str, list[dict]] = {}
    for rec in records:
        by_prefix.setdefault(rec["chapter"], []).append(rec)
    groups = []   # (title, link to the chapter, records of that chapter)
    for ch in chapters:
        recs = [r for p in sorted(ch["prefixes"]) for r in by_prefix.pop(p, [])]
        groups.append((_cell(ch["title"]), f"{{doc}}`{_cell(ch['title'])} <../{ch['doc']}>`", recs, ch["doc"]))
    groups += [(f"Claims {_cell(prefix)}", f"`{prefix}`", recs, None) for prefix, recs in by_prefix.items()]

    everything = [r for _, _, recs, _ in groups for r in recs]
    lines = [
        "% Generated by `python -m neurips24.status` from the claims records: do not edit (git ignores it).",
        "# Reproduction status",
        "",
        "Every chapter asserts the paper's claims on what its own code computed (its *Reproduction check* section) "
        "and records each check as it runs; this page is written from those records when the book is built, so "
        "its numbers are this build's. Each check has a *control*, the same measurement on a case where the claim "
        "must not hold, which must fail for the check to count; noisy claims carry an interval. A claim that a "
        "chapter shows does not reproduce at its scale is listed as *not reproduced*. *Run time* is a chapter's "
        "time from its setup cell to its last check.",
        "",
        f"Package `neurips24` {_cell(version)}, commit `{_cell(commit)}`"
        + (f"; last check recorded {max(r['time'] for r in everything)}." if everything else "."),
        "",
    ]
    for scale in ("fast", "full"):
        at = [r for r in everything if r["scale"] == scale]
        if at:
            lines += [f"- **`{scale}` scale: {_count(at, 'pass')} of {len(at)} claims hold**, "
                      f"{_count(at, 'not reproduced')} do not reproduce (said in their chapters), "
                      f"{_count(at, 'pass', 'not reproduced', negate=True)} fail."]
    if not everything:
        lines.append("**No reproduction check has been recorded yet**: the chapters have not run in this build.")
    elif not any(r["scale"] == "full" for r in everything):
        lines.append("- `full` scale: not run in this build (it needs a GPU; see {doc}`running`).")
    lines += ["", "| Chapter | Claims | `fast` scale | `full` scale |", "|---|---|---|---|"]
    for _, chapter, recs, _ in groups:
        if recs:
            ids = {r["claim_id"] for r in recs}
            lines.append(f"| {chapter} | {len(ids)} | {_scale_summary([r for r in recs if r['scale'] == 'fast'])} "
                         f"| {_scale_summary([r for r in recs if r['scale'] == 'full'])} |")
        else:
            lines.append(f"| {chapter} | not run | — | — |")
    lines += ["", "## Claim by claim", "",
              "Open a chapter to see each claim with the paper's value, ours, its control and its interval.", ""]
    for title, chapter, recs, doc in groups:
        if not recs:
            continue
        by_claim: dict[str, dict[str, dict]] = {}
        for r in recs:
            by_claim.setdefault(r["claim_id"], {})[r["scale"]] = r
        held = sum(_outcome(next(iter(v.values()))) == "pass" for v in by_claim.values())
        lines += [f":::{{dropdown}} {title}: {held} of {len(by_claim)} held",
                  ":class-container: status-chapter", "",
                  f"Chapter: {chapter}.", "",
                  "| Claim | Paper | Ours (`fast`) | Ours (`full`) | Control | Interval | Result |",
                  "|---|---|---|---|---|---|---|"]
        for claim_id, at in by_claim.items():
            main = at.get("fast") or at["full"]
            ours = {s: _cell(format_value(at[s]["measured"])) if s in at else "—" for s in ("fast", "full")}
            result = (_result(main) if len(at) == 1
                      else "; ".join(f"{s}: {_result(at[s])}" for s in ("fast", "full")))
            lines.append(f"| {_claim_link(claim_id, doc)} {_cell(main['claim'])} | {_cell(_paper(main))} "
                         f"| {ours['fast']} | {ours['full']} | {_cell(_control(main))} "
                         f"| {_cell(_interval(main))} | {result} |")
        lines += ["", ":::", ""]
    lines += ["The run scale is set by `NEURIPS24_SCALE` (see {doc}`running`). A claim that fails, or whose "
              "control holds too, fails its chapter and the book's build, so a published build shows only checks "
              "that passed or known non-reproductions; what a miniature cannot show is said in each chapter's "
              "reproduction check.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Write the status page; ``--help`` lists the options."""
    parser = argparse.ArgumentParser(prog="python -m neurips24.status", description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the book's root (holds _toc.yml)")
    parser.add_argument("--out", type=Path, default=None, help="the page to write (default: ROOT/book/status.md)")
    parser.add_argument("--also", type=Path, action="append", default=[],
                        help="another claims folder to read too, e.g. the records of a GPU build at full scale")
    args = parser.parse_args(argv)
    records = load_records(claims.claims_dir(), *args.also)
    out = args.out or args.root / "book" / "status.md"
    version, commit = build_info(args.root)
    chapters = toc_chapters(args.root)
    out.write_text(render(records, chapters, version=version, commit=commit), encoding="utf-8")
    landing.write_cards(records, chapters, args.root)
    print(f"status page: {out} ({len(records)} claims from {claims.claims_dir()}); landing cards: "
          f"{args.root / landing.GENERATED}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
