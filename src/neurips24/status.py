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
import os
import re
import subprocess
from pathlib import Path

from . import claims, landing
from .claims import format_value

_TOC_NOTEBOOK = re.compile(r"^\s*-?\s*file:\s*(notebooks/[\w\-]+)\s*$", re.M)
_CHECK_CALL = re.compile(r"""\bcheck\(\s*[fr]?["']([A-Za-z0-9_\-]+)\.""")
# a chapter whose checks come from its package's reproduction module: `for cid, kw in cts.reproduction.checks(...)`,
# `ih.reproduction.checks(...)` (an alias), `markov.reproduction.portrait_checks(...)`, or a bare
# `reproduction.checks(...)` after `from neurips24.dlq import reproduction`
_CHECKS_LOOP = re.compile(r"(?<![\w.])(?:([a-z_][a-z0-9_]*)\.)?reproduction\.[a-z_]*checks\(")
_FROM_BOOK = re.compile(r"^from neurips24 import ([\w ,]+)$", re.M)
_FROM_PACKAGE = re.compile(r"^from neurips24\.([a-z_][a-z0-9_]*) import reproduction\b", re.M)
_IMPORT_AS = re.compile(r"^import neurips24\.([a-z_][a-z0-9_]*) as ([a-z_][a-z0-9_]*)$", re.M)
# a claim id written in a package's reproduction module ("markov.small_init"), not a file name ("record.json")
_CLAIM_ID = re.compile(r"""["']([a-z_][a-z0-9_]*)\.(?!(?:json|npz|npy|csv|py|txt|md)["'])[a-z][a-z0-9_]*["']""")
RESEED_VAR = "NEURIPS24_RESEED_DIR"
MUTANTS_VAR = "NEURIPS24_MUTANTS_DIR"
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
        code = "\n".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                         for c in nb["cells"] if c["cell_type"] == "code")
        prefixes.update(_CHECK_CALL.findall(code))
        for package in _reproduction_packages(code):
            prefixes.update(_claim_prefixes(root, package))
        for cell in nb["cells"]:
            text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            if cell["cell_type"] == "markdown" and title == Path(doc).name:
                heading = next((ln[2:].strip() for ln in text.splitlines() if ln.startswith("# ")), None)
                title = heading or title
        chapters.append({"doc": doc, "title": title, "prefixes": prefixes})
    return chapters


def _reproduction_packages(code: str) -> set[str]:
    """The book's packages whose ``reproduction.*checks(...)`` a chapter's code calls, with its import aliases
    resolved (``from neurips24 import iteration_heads as ih``; ``from neurips24.dlq import reproduction``)."""
    alias = {}
    for names in _FROM_BOOK.findall(code):
        for item in names.split(","):
            parts = item.split()
            if parts:
                alias[parts[-1]] = parts[0]
    alias.update({short: package for package, short in _IMPORT_AS.findall(code)})
    bare = _FROM_PACKAGE.findall(code)
    packages = set()
    for name in _CHECKS_LOOP.findall(code):
        packages.update([alias.get(name, name)] if name else bare)
    return packages


def _claim_prefixes(root: Path, package: str) -> set[str]:
    """The claim-id prefixes written in ``src/neurips24/<package>/reproduction.py`` (e.g. {'textual_edge_graphs'}
    for ``teg``), or ``{package}`` when that file is not there."""
    path = Path(root) / "src" / "neurips24" / package / "reproduction.py"
    if not path.is_file():
        return {package}
    return set(_CLAIM_ID.findall(path.read_text(encoding="utf-8"))) or {package}


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


def _control(rec: dict) -> str:
    ctrl = rec.get("control")
    if not ctrl:
        return "none"
    return f"{ctrl['name']}: {format_value(ctrl['measured'])} ({'holds' if ctrl['holds'] else 'does not hold'})"


def _interval(rec: dict) -> str:
    iv = rec.get("interval")
    return f"[{iv['low']:.3g}, {iv['high']:.3g}] ({claims.interval_label(iv)})" if iv else "—"


# the verdict a ledger row starts with, and the category of its reason
BADGES = {"pass": "PASS", "not reproduced": "NOT REPRODUCED", "not run here": "NOT RUN HERE"}


def _result(rec: dict) -> str:
    """The verdict as a coloured badge (an HTML span with the outcome's class: book/_static/neurips24.css)."""
    outcome = _outcome(rec)
    text = BADGES.get(outcome, f"FAIL: {outcome}")
    return f'<span class="status-badge {claims.outcome_class(outcome)}">{html.escape(text)}</span>'


def why(rec: dict, reseed: dict | None = None) -> str:
    """One line: why the record has its verdict, with a category a reader can scan.

    'passed', 'below the book's threshold at this scale' (not reproduced; what was tried follows),
    'NOT RUN HERE' (the paper's setting needs full scale; the command follows), 'fragile across seeds'
    (declared, or the verdict differs at another seed set), or the failure.
    """
    outcome, category = _outcome(rec), claims.why_category(rec)
    if outcome == "not run here":
        return f"{category}; run `{rec.get('command', '')}`"
    if rec.get("fragile"):
        return f"{category}: {rec['fragile']}"
    if reseed is not None and _outcome(reseed) != outcome:
        return f"fragile across seeds: {BADGES.get(_outcome(reseed), _outcome(reseed))} at another seed set"
    if outcome == "not reproduced" and rec.get("tried"):
        return f"{category}; tried: {rec['tried']}"
    return category


def _seeds(rec: dict) -> str:
    per = rec.get("per_seed")
    return "; ".join(f"{k}: {format_value(v)}" for k, v in per.items()) if per else "—"


def same_verdict(rec: dict, reseed: dict | None) -> str:
    """'yes', 'no' (with 'fragile, declared' when the chapter said so) or '—' when no other seed set ran."""
    if reseed is None:
        return "—"
    if _outcome(reseed) == _outcome(rec):
        return "yes"
    return "no (declared fragile)" if rec.get("fragile") else "**no**"


def flips(records: list[dict], reseed: list[dict]) -> list[dict]:
    """The ``fast`` records whose outcome differs at the other seed set, each with ``reseed_outcome`` added."""
    other = {r["claim_id"]: r for r in reseed if r.get("scale") == "fast"}
    return [{**r, "reseed_outcome": _outcome(other[r["claim_id"]])} for r in records
            if r.get("scale") == "fast" and r["claim_id"] in other
            and _outcome(other[r["claim_id"]]) != _outcome(r)]


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


def _stopped(meta: dict) -> str:
    """' The run stopped ...' when a full-scale run ended at an error or a time limit (its last line), else ''."""
    error = str(meta.get("error") or "").strip()
    if not error:
        return ""
    return f" The run stopped after these records: {_cell(error.splitlines()[-1][:240])}"


def _scale_summary(recs: list[dict]) -> str:
    """'3 of 4 held, 1 not reproduced, 1 not run here, 41 s' for one chapter's records at one scale; '—' for
    none."""
    if not recs:
        return "—"
    text = f"{_count(recs, 'pass')} of {len(recs)} held"
    if _count(recs, "not reproduced"):
        text += f", {_count(recs, 'not reproduced')} not reproduced"
    if _count(recs, "not run here"):
        text += f", {_count(recs, 'not run here')} not run here"
    failed = _count(recs, *claims.EXPECTED_OUTCOMES, negate=True)
    if failed:
        text += f", **{failed} failed**"
    return f"{text}, {_seconds(recs)}"


def render(records: list[dict], chapters: list[dict], *, version: str = "unknown", commit: str = "unknown",
           reseed: list[dict] | None = None, full_meta: dict[str, dict] | None = None) -> str:
    """The status page (MyST Markdown) for ``records`` (as :func:`load_records` returns them).

    A one-screen overview, a row per chapter in book order (its claims, and at each scale how many held, how many
    the chapter knows do not reproduce or could not run here, and its run time); the list of claims not
    reproduced and not run here, each with its reason; then a collapsible ledger per chapter (sphinx-design
    dropdowns) with a row per claim: the verdict first, the claim, the paper's value, ours at ``fast`` scale (and
    at ``full`` where a full-scale record exists), the control, each seed's value, the interval, whether the
    verdict is the same at another seed set (``reseed``: the records of ``make reseed``), and why; where a
    full-scale record exists (``full_meta``: :func:`neurips24.fullscale.load_meta`), its date, machine and commit.
    A chapter with
    no record is listed as not run; records whose prefix no notebook of the book checks are listed after the
    chapters.
    """
    other = {r["claim_id"]: r for r in reseed or [] if r.get("scale") == "fast"}
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
                      f"{_count(at, 'not run here')} not run here (the paper's setting needs `full` scale), "
                      f"{_count(at, *claims.EXPECTED_OUTCOMES, negate=True)} fail."]
    fast_records = [r for r in everything if r["scale"] == "fast"]
    if other:
        seen = [r for r in fast_records if r["claim_id"] in other]
        same = sum(_outcome(other[r["claim_id"]]) == _outcome(r) for r in seen)
        lines += [f"- **Another seed set** (`make reseed`, every seed shifted by 1000): {same} of {len(seen)} "
                  f"claims keep their verdict; {sum(bool(r.get('fragile')) for r in fast_records)} are declared "
                  "fragile (their verdict depends on the seed, as their chapters say)."]
    elif everything:
        lines.append("- Another seed set: not part of this build (`make reseed` runs it).")
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
    doc_of = {r["claim_id"]: doc for _, _, recs, doc in groups for r in recs}
    for outcome, heading in (("not reproduced", "Not reproduced"), ("not run here", "Not run here")):
        listed = [r for r in fast_records if _outcome(r) == outcome]
        if listed:
            lines += ["", f"## {heading} ({len(listed)})", ""]
            lines += [f"- {_claim_link(r['claim_id'], doc_of.get(r['claim_id']))} {_cell(r['claim'])}: "
                      f"{_cell(why(r, other.get(r['claim_id'])))}" for r in listed]
    lines += ["", "## Claim by claim", "",
              "Open a chapter to see each claim: its verdict, the paper's value, ours, its control, each seed's "
              "value, its interval, whether another seed set gives the same verdict, and why.", ""]
    for title, chapter, recs, doc in groups:
        if not recs:
            continue
        by_claim: dict[str, dict[str, dict]] = {}
        for r in recs:
            by_claim.setdefault(r["claim_id"], {})[r["scale"]] = r
        held = sum(_outcome(next(iter(v.values()))) == "pass" for v in by_claim.values())
        has_full = any("full" in at for at in by_claim.values())
        full_head, full_rule = (" Ours (`full`) |", "---|") if has_full else ("", "")
        meta = (full_meta or {}).get(Path(doc).name) if doc else None
        full_line = ([f"Full-scale record: {_cell(meta['date_utc'])} UTC on {_cell(meta['machine'])} (GPU: "
                      f"{_cell(meta['gpu'])}), commit `{_cell(meta['commit'])}`, {meta['wall_s']:.0f} s, made by "
                      f"`{_cell(meta['command'])}`." + _stopped(meta), ""] if meta else [])
        lines += [f":::{{dropdown}} {title}: {held} of {len(by_claim)} held",
                  ":class-container: status-chapter", "",
                  f"Chapter: {chapter}.", "", *full_line,
                  f"| Result | Claim | Paper | Ours (`fast`) |{full_head} Control | Per seed | Interval "
                  "| Same verdict at another seed set | Why |",
                  f"|---|---|---|---|{full_rule}---|---|---|---|---|"]
        for claim_id, at in by_claim.items():
            main = at.get("fast") or at["full"]
            ours = {s: _cell(format_value(at[s]["measured"])) if s in at else "—" for s in ("fast", "full")}
            result = (_result(main) if len(at) == 1
                      else "; ".join(f"{s}: {_result(at[s])}" for s in ("fast", "full")))
            full_cell = f" {ours['full']} |" if has_full else ""
            rs = other.get(claim_id) if "fast" in at else None
            paper = _cell(claims.paper_text(main))
            lines.append(f"| {result} | {_claim_link(claim_id, doc)} {_cell(main['claim'])} | {paper} "
                         f"| {ours['fast']} |{full_cell} {_cell(_control(main))} | {_cell(_seeds(main))} "
                         f"| {_cell(_interval(main))} | {same_verdict(main, rs)} | {_cell(why(main, rs))} |")
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
    parser.add_argument("--reseed", type=Path, default=None,
                        help="the claims folder of `make reseed` (default: $NEURIPS24_RESEED_DIR when it exists)")
    parser.add_argument("--compare", action="store_true",
                        help="only compare the verdicts with the --reseed folder; exit 1 if a claim not declared "
                             "fragile changed its verdict")
    parser.add_argument("--mutants", type=Path, default=None,
                        help="the mutant records (default: $NEURIPS24_MUTANTS_DIR or ROOT/_build/mutants)")
    args = parser.parse_args(argv)
    full_dir = args.root / "full"   # the shipped full-scale records of `make full`
    records = load_records(claims.claims_dir(), *args.also, *([full_dir] if full_dir.is_dir() else []))
    reseed_dir = args.reseed or (Path(os.environ[RESEED_VAR]) if os.environ.get(RESEED_VAR) else None)
    reseed = load_records(reseed_dir) if reseed_dir and reseed_dir.is_dir() else None
    if args.compare:
        return compare(records, reseed)
    out = args.out or args.root / "book" / "status.md"
    version, commit = build_info(args.root)
    chapters = toc_chapters(args.root)
    from .fullscale import load_meta

    out.write_text(render(records, chapters, version=version, commit=commit, reseed=reseed,
                          full_meta=load_meta(full_dir)), encoding="utf-8")
    landing.write_cards(records, chapters, args.root)
    landing.write_times(records, chapters, args.root)
    mutants_dir = args.mutants or (Path(os.environ[MUTANTS_VAR]) if os.environ.get(MUTANTS_VAR)
                                   else args.root / "_build" / "mutants")
    tested = args.root / "book" / "claims_tested.md"
    tested.write_text(render_mutants(load_mutants(mutants_dir), chapters), encoding="utf-8")
    print(f"status page: {out} ({len(records)} claims from {claims.claims_dir()}; another seed set: "
          f"{reseed_dir if reseed is not None else 'not run'}); landing cards: {args.root / landing.GENERATED}; "
          f"mutants: {tested}")
    return 0


def compare(records: list[dict], reseed: list[dict] | None) -> int:
    """Print the claims whose verdict differs at another seed set; 1 if one of them is not declared fragile
    (or if there is no other seed set to compare with), else 0."""
    if not reseed:
        print("no records of another seed set to compare with (run `make reseed`)")
        return 1
    changed = flips(records, reseed)
    seen = {r["claim_id"] for r in reseed}
    missing = sorted({r["claim_id"] for r in records if r.get("scale") == "fast"} - seen)
    for r in changed:
        tag = f"declared fragile: {r['fragile']}" if r.get("fragile") else "NOT DECLARED FRAGILE"
        print(f"{r['claim_id']}: {r['outcome']} -> {r['reseed_outcome']} at another seed set ({tag})")
    for cid in missing:
        print(f"{cid}: not checked at the other seed set")
    undeclared = [r for r in changed if not r.get("fragile")]
    n = len({r['claim_id'] for r in records if r.get('scale') == 'fast'})
    print(f"another seed set: {n - len(changed) - len(missing)} of {n} claims keep their verdict, "
          f"{len(changed)} differ ({len(undeclared)} not declared fragile), {len(missing)} not checked")
    return 1 if undeclared or missing else 0


def load_mutants(folder: Path) -> list[dict]:
    """The records the mutant tests wrote (``tests/mutants/harness.py``), sorted by chapter and mutant."""
    folder = Path(folder)
    recs = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []
    return sorted(recs, key=lambda r: (r["chapter"], r["mutant"]))


def render_mutants(records: list[dict], chapters: list[dict]) -> str:
    """The page "How the claims are tested" (MyST): chapter x planted bug x the claims that caught it."""
    titles = {Path(ch["doc"]).name: (ch["title"], ch["doc"]) for ch in chapters}
    lines = ["% Generated by `python -m neurips24.status` from the mutant tests' records: do not edit.",
             "# How the claims are tested", "",
             "A check that no plausible bug can move proves little. For every chapter, `tests/mutants/` plants "
             "small, plausible bugs in the chapter's package (a wrong sign, an off-by-one, a dropped term, a "
             "training loop that does not step, a check on the wrong quantity), runs the chapter's own claim rules "
             "at a small size, and fails unless at least one claim fails. The table is written from this build's "
             "run of those tests (`make unit`).", "",
             "Beside this, every claim has a control (the same measurement where the claim must not hold), every "
             "claim from training or a random draw is judged over several seeds, and the whole book runs again at "
             "another seed set; see {doc}`status`.", ""]
    if not records:
        lines += ["**The mutant tests have not run in this build** (`make unit` runs them).", ""]
        return "\n".join(lines)
    caught = sum(bool(r["caught_by"]) or bool(r.get("refused")) for r in records)
    n_ch = len({r["chapter"] for r in records})
    lines += [f"**{caught} of {len(records)} planted bugs caught**, in {n_ch} chapters.", "",
              "| Chapter | Planted bug | What it does | Caught by |", "|---|---|---|---|"]
    for r in records:
        title, doc = titles.get(r["chapter"], (r["chapter"], None))
        chapter = f"{{doc}}`{_cell(title)} <../{doc}>`" if doc else _cell(title)
        by = ", ".join(_claim_link(c, doc) for c in r["caught_by"]) or (
            f"the run itself stops ({_cell(r['refused'])})" if r.get("refused") else "**not caught**")
        lines.append(f"| {chapter} | `{_cell(r['mutant'])}` | {_cell(r['description'])} | {by} |")
    missing = [t for stem, (t, _) in titles.items() if stem not in {r["chapter"] for r in records}]
    if missing:
        lines += ["", "Chapters without planted bugs yet: " + ", ".join(_cell(t) for t in missing) + "."]
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
