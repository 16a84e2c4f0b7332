"""Colab- and Jupyter-native copies of the book's chapters: ``colab/<stem>.ipynb`` without MyST syntax.

Colab and plain JupyterLab render CommonMark, not MyST, so a chapter opened there shows its directives and
roles as raw text (and every exercise's solution in plain view). This module writes, for each chapter of
``_toc.yml`` (``notebooks/<stem>.ipynb``), a copy whose markdown says the same in CommonMark + HTML:

* ``{exercise}`` -> a bold "**Exercise C.n (title)**" and its text; ``{solution}`` -> collapsed
  ``<details><summary>Solution</summary> ... </details>``;
* admonitions (``{admonition}``, ``{note}``, ``{tip}``, ``{warning}``, ... in backtick or colon fences)
  -> a blockquote opening with the bold title (``:class: dropdown`` -> ``<details>``);
* ``{cite}`` / ``{cite:p}`` -> "([Author et al., 2024](url))", ``{cite:t}`` -> "[Author et al. (2024)](url)",
  read from ``book/references.bib`` with pybtex (the link is the entry's ``url``, else its DOI or arXiv id);
* ``{eq}`` -> "(C.n)", ``{numref}`` -> "Fig. C.n" / "Exercise C.n", ``{ref}`` -> the same numbers, a
  ``(label)=`` target's heading, or the explicit text (the targets themselves are dropped), ``{doc}`` -> the
  target page's title; with ``html.baseurl`` in ``_config.yml`` these become links to the book's pages (there
  is no such URL now, so they are plain text);
* labelled display math ``$$ ... $$ (label)`` -> ``$$ ... \\tag{C.n} $$``, so MathJax shows the book's number;
* ``{glue}`name``` -> ```⟨name⟩``` (code), followed by "(book's run: <value>)" where the book's own run of
  ``fast`` scale glued a value under that name: the copy is generated without running the chapter, so the live
  value cannot be written in, and the book's recorded values (:data:`BOOK_VALUES`, written from a build's
  ``<stem>.glue.json`` files by ``--values-from``) stand beside the placeholder; a note cell under the title says
  so, and that the code cell computing each one prints ``name = value`` when run (``neurips24.glue`` does so
  outside ``make``).

The book's numbering is reproduced, not read from a build: chapters in ``numbered: true`` parts of
``_toc.yml`` are numbered 1, 2, ... across parts (as Jupyter Book does), and inside chapter C the labelled
equations, the figures (code cells with ``mystnb.figure.name``) and the exercises are numbered C.1, C.2, ...
in order. Code cells are copied with the same source, id, tags and figure captions, and no outputs (as
``make notebooks`` leaves the chapters, so a copy does not change while a chapter is being run). A code cell tagged
``solution`` (an executable exercise's solution, folded in the book by ``hide-cell``) is folded here too: Colab's
form view (``metadata.cellView = "form"``, with ``#@title Solution (double-click to open)`` as its first line, the
title Colab shows in place of the code) and JupyterLab's collapsed input (``metadata.jupyter.source_hidden``); the
rest of its source is the chapter's. The output is
deterministic, so ``--check`` (CI) fails when a committed copy differs from what would be generated.

Run from the repository root: ``python -m neurips24.colab [--check] [--out colab]``. ``make notebooks`` executes
freshly generated copies (``--out _run/colab``) and then writes their outputs into the chapters with
``--outputs-from _run/colab`` (:func:`transplant_outputs`), so every Colab copy runs top to bottom in CI and the
book is built from that one run.
"""
from __future__ import annotations

import argparse
import codecs
import copy
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_ADMONITIONS = {
    "note": "Note", "tip": "Tip", "warning": "Warning", "important": "Important", "caution": "Caution",
    "attention": "Attention", "danger": "Danger", "error": "Error", "hint": "Hint", "seealso": "See also",
}
_DIRECTIVE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|:{3,})\{(?P<name>[A-Za-z0-9:_-]+)\}[ \t]*(?P<arg>.*?)\s*$")
_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_OPTION = re.compile(r"^[ \t]*:(?P<key>[A-Za-z0-9_-]+):[ \t]*(?P<value>.*?)\s*$")
_ROLE = re.compile(r"\{(?P<name>[A-Za-z0-9:_-]+)\}`(?P<content>[^`]*)`")
_LABELLED_MATH = re.compile(r"[ \t]*\((?P<label>[A-Za-z0-9_:.-]+)\)[ \t]*$")
_TARGET = re.compile(r"^\((?P<label>[A-Za-z0-9_:.-]+)\)=[ \t]*$")
_EXPLICIT = re.compile(r"^(?P<text>.*?)\s*<(?P<target>[^<>]+)>$", re.S)
#: Code-cell metadata a copy keeps (the Makefile's NB_CLEAR mask): run state such as execution times goes.
_KEEP_CELL_METADATA = ("tags", "mystnb")
#: The first line of a solution code cell in a copy: the title Colab's form view shows instead of the code.
SOLUTION_TITLE = "#@title Solution (double-click to open)\n"
#: What a generated notebook's markdown must not contain (tests/test_colab.py).
RAW_MYST = re.compile(r"\{[a-z:-]+\}`|```\{|:::\{|:label:|:class:")
GLUE_NOTE = (
    "> **This is the Colab / Jupyter copy of the chapter.** Numbers in the prose that the run computes appear as "
    "`⟨name⟩`, with the value of the book's own run (`fast` scale) beside it; when you run the chapter, the code "
    "cell that computes each one prints `name = value`. Equation, figure and exercise numbers are the book's."
)
#: The values the book's own run glued, by chapter: written by ``--values-from`` from a build's glue files, read
#: by :func:`generate` (the copies show them beside their placeholders) and by the site's saved runs.
BOOK_VALUES = "book/glued_values.json"


@dataclass
class Chapter:
    """The numbers of one chapter, as the book shows them.

    ``number`` is the chapter number (None in an unnumbered part); ``equations``, ``figures`` and
    ``exercises`` map a label to its number inside the chapter (1, 2, ...).
    """

    stem: str
    number: int | None
    equations: dict[str, int] = field(default_factory=dict)
    figures: dict[str, int] = field(default_factory=dict)
    exercises: dict[str, int] = field(default_factory=dict)
    sections: dict[str, str] = field(default_factory=dict)   # "(label)=" target -> the heading below it

    def fmt(self, n: int) -> str:
        return f"{self.number}.{n}" if self.number is not None else str(n)


# --------------------------------------------------------------------------------------------------- inputs
def toc_chapters(toc_path: Path) -> dict[str, int | None]:
    """``notebooks/<stem>`` files of ``_toc.yml`` -> chapter number (numbered parts count on across parts)."""
    import yaml

    toc = yaml.safe_load(Path(toc_path).read_text(encoding="utf-8"))
    out: dict[str, int | None] = {}
    count = 0
    for part in toc.get("parts", []):
        numbered = bool(part.get("numbered", False))
        for entry in part.get("chapters", []):
            file = str(entry.get("file", ""))
            if numbered:
                count += 1
            if file.startswith("notebooks/"):
                out[file.removeprefix("notebooks/").removesuffix(".ipynb")] = count if numbered else None
    return out


def _latex_to_text(text: str) -> str:
    import latexcodec  # noqa: F401  (registers the "ulatex" codec; a dependency of pybtex)

    return re.sub(r"[{}]", "", codecs.decode(text, "ulatex")).strip()


def load_bib(bib_path: Path) -> dict[str, dict[str, str]]:
    """Entries of a BibTeX file (pybtex): key -> {"authors": "Poole et al.", "year": ..., "url": ...}."""
    from pybtex.database import parse_file

    out = {}
    for key, entry in parse_file(str(bib_path)).entries.items():
        persons = entry.persons.get("author") or entry.persons.get("editor") or []
        lasts = [_latex_to_text(" ".join(p.prelast_names + p.last_names)) for p in persons]
        if not lasts:
            authors = _latex_to_text(entry.fields.get("organization", entry.fields.get("title", key)))
        elif len(lasts) == 1:
            authors = lasts[0]
        elif len(lasts) == 2:
            authors = f"{lasts[0]} and {lasts[1]}"
        else:
            authors = f"{lasts[0]} et al."
        url = entry.fields.get("url", "")
        if not url and entry.fields.get("doi"):
            url = "https://doi.org/" + entry.fields["doi"]
        if not url and entry.fields.get("eprint"):
            url = "https://arxiv.org/abs/" + entry.fields["eprint"]
        out[key] = {"authors": authors, "year": entry.fields.get("year", "n.d."), "url": url}
    return out


def _cell_text(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _split_source(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _iter_math(text: str):
    """(start, end, body, label) of each ``$$ ... $$`` display block outside code fences, in order."""
    code = _fence_spans(text)
    code += [m.span() for m in re.finditer(r"(`+)[^`]*?\1", text) if not any(a <= m.start() < b for a, b in code)]
    positions = [m.start() for m in re.finditer(r"\$\$", text) if not any(a <= m.start() < b for a, b in code)]
    for i in range(0, len(positions) - 1, 2):
        start, close = positions[i], positions[i + 1]
        m = _LABELLED_MATH.match(text, close + 2, text.find("\n", close) if "\n" in text[close:] else len(text))
        end = m.end() if m else close + 2
        yield start, end, text[start + 2:close], (m.group("label") if m else None)


def _fence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of plain (non-directive) code fences, whose contents are never transformed."""
    spans, pos, lines = [], 0, text.splitlines(keepends=True)
    directives: list[re.Pattern] = []   # closing patterns of the directives open at this line
    i = 0
    while i < len(lines):
        line = lines[i].rstrip("\n")
        if directives and directives[-1].match(line):
            directives.pop()
        elif d := _DIRECTIVE.match(line):
            directives.append(_closing(d.group("fence")))
        elif m := _FENCE.match(line):
            close, start = _closing(m.group("fence")), pos
            pos += len(lines[i])
            i += 1
            while i < len(lines) and not close.match(lines[i].rstrip("\n")):
                pos += len(lines[i])
                i += 1
            if i < len(lines):
                pos += len(lines[i])
                i += 1
            spans.append((start, pos))
            continue
        pos += len(lines[i])
        i += 1
    return spans


def _closing(fence: str) -> re.Pattern:
    return re.compile(rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}\s*$")


def number_chapter(nb: dict, stem: str, number: int | None) -> Chapter:
    """Number the labelled equations, figures and exercises of one notebook as the book does."""
    ch = Chapter(stem, number)
    for cell in nb["cells"]:
        text = _cell_text(cell)
        if cell["cell_type"] == "code":
            name = cell.get("metadata", {}).get("mystnb", {}).get("figure", {}).get("name")
            if name:
                ch.figures[name] = len(ch.figures) + 1
            continue
        if cell["cell_type"] != "markdown":
            continue
        for _, _, _, label in _iter_math(text):
            if label:
                ch.equations[label] = len(ch.equations) + 1
        lines = text.splitlines()
        for line_no, line in enumerate(lines):
            t = _TARGET.match(line)
            if t:
                heading = next((x for x in lines[line_no + 1:] if x.strip()), "")
                ch.sections[t.group("label")] = re.sub(r"^#+\s*", "", heading).strip()
            m = _DIRECTIVE.match(line)
            if not m:
                continue
            if m.group("name") == "exercise":
                label = None
                for opt in text.splitlines()[line_no + 1:]:
                    o = _OPTION.match(opt)
                    if not o:
                        break
                    if o.group("key") == "label":
                        label = o.group("value")
                ch.exercises[label or f"_exercise{len(ch.exercises) + 1}"] = len(ch.exercises) + 1
            elif m.group("name") == "math":
                for opt in text.splitlines()[line_no + 1:]:
                    o = _OPTION.match(opt)
                    if not o:
                        break
                    if o.group("key") == "label":
                        ch.equations[o.group("value")] = len(ch.equations) + 1
    return ch


# --------------------------------------------------------------------------------------------- transforms
@dataclass
class Context:
    """What the transforms need: the chapter's numbers, the bibliography and (optional) the book's URL."""

    chapter: Chapter
    bib: dict[str, dict[str, str]]
    site: str = ""   # e.g. "https://example.org/book"; "" -> numbers without links
    titles: dict[str, str] = field(default_factory=dict)   # doc path (from the repo root) -> page title
    values: dict[str, str] = field(default_factory=dict)   # glue name -> the book's run's text (BOOK_VALUES)

    def error(self, what: str) -> ValueError:
        return ValueError(f"notebooks/{self.chapter.stem}.ipynb: {what}")

    def page(self, stem: str | None = None) -> str:
        return f"{self.site}/notebooks/{stem or self.chapter.stem}.html" if self.site else ""


def placeholder(name: str, value: str | None = None) -> str:
    """How a copy shows the glued number ``name``: ```⟨name⟩``` in code font, then "(book's run: <value>)" when
    the book's run glued a text ``value`` (None or "" -> the placeholder alone)."""
    shown = f"`⟨{name}⟩`"
    return f"{shown} (book's run: {' '.join(value.split())})" if value else shown


def glued_text(output: dict) -> str | None:
    """The text of one glued value (a myst-nb glue output: ``text/markdown`` first, else ``text/plain``), or None
    when it has neither (a glued figure)."""
    data = output.get("data", {})
    for mime in ("text/markdown", "text/plain"):
        if mime in data:
            value = "".join(data[mime]) if isinstance(data[mime], list) else data[mime]
            return value.strip()
    return None


def load_book_values(root: Path = ROOT) -> dict[str, dict[str, str]]:
    """``{stem: {glue name: text}}`` from :data:`BOOK_VALUES` ({} when the file is absent)."""
    path = Path(root) / BOOK_VALUES
    if not path.is_file():
        return {}
    return json.loads(path.read_text(encoding="utf-8"))["chapters"]


def record_values(glue_dir: Path, root: Path = ROOT) -> int:
    """Write :data:`BOOK_VALUES` from a build's glue files: ``glue_dir/<stem>.glue.json`` for each chapter of
    ``_toc.yml`` (myst-nb writes them to ``_build/jupyter_execute/notebooks``), keeping each value with a text.
    The file records the commit of the checkout the build ran in (``git rev-parse`` in ``glue_dir``, which may be
    another clone) and the date. Returns the number of values.

    Raises
    ------
    FileNotFoundError naming the chapter whose glue file is missing.
    """
    import datetime
    import subprocess

    chapters = {}
    for stem in toc_chapters(Path(root) / "_toc.yml"):
        path = Path(glue_dir) / f"{stem}.glue.json"
        if not path.is_file():
            raise FileNotFoundError(f"no glue file {path} for notebooks/{stem}.ipynb (build the book first)")
        glued = json.loads(path.read_text(encoding="utf-8"))
        texts = {name: glued_text(out) for name, out in sorted(glued.items())}
        chapters[stem] = {name: text for name, text in texts.items() if text}
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(glue_dir), *args], capture_output=True, text=True).stdout.strip()

    top = git("rev-parse", "--show-toplevel")
    shown = Path(glue_dir).resolve().relative_to(Path(top).resolve()) if top else Path(glue_dir)
    record = {"made_by": f"python -m neurips24.colab --values-from {shown.as_posix()}",
              "commit": git("rev-parse", "--short", "HEAD") or "unknown",
              "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "chapters": chapters}
    (Path(root) / BOOK_VALUES).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return sum(len(v) for v in chapters.values())


def _link(text: str, url: str) -> str:
    return f"[{text}]({url})" if url else text


def _cite(keys: str, kind: str, ctx: Context) -> str:
    parts = []
    for key in [k.strip() for k in keys.split(",") if k.strip()]:
        if key not in ctx.bib:
            raise ctx.error(f"unknown citation key {key!r} (not in book/references.bib)")
        e = ctx.bib[key]
        if kind == "t":
            parts.append(_link(f"{e['authors']} ({e['year']})", e["url"]))
        else:
            parts.append(_link(f"{e['authors']}, {e['year']}", e["url"]))
    if not parts:
        raise ctx.error("empty {cite} role")
    return "; ".join(parts) if kind == "t" else "(" + "; ".join(parts) + ")"


def _reference(name: str, content: str, ctx: Context) -> str:
    ch = ctx.chapter
    m = _EXPLICIT.match(content)
    text, label = (m.group("text"), m.group("target").strip()) if m else (None, content.strip())
    if name == "doc":
        path = label
        title = text or ctx.titles.get(re.sub(r"^(\.\./)+", "", path).removesuffix(".md"), Path(path).stem)
        url = f"{ctx.site}/{re.sub(r'^(../)+', '', path)}.html" if ctx.site else ""
        return _link(title, url)
    if name == "eq":
        if label not in ch.equations:
            raise ctx.error(f"unknown equation label {label!r} in {{eq}}`{content}`")
        return _link(f"({ch.fmt(ch.equations[label])})", ctx.page() and f"{ctx.page()}#equation-{label}")
    if label in ch.figures:
        number = f"Fig. {ch.fmt(ch.figures[label])}"
    elif label in ch.exercises:
        number = f"Exercise {ch.fmt(ch.exercises[label])}"
    elif label in ch.equations:
        number = f"({ch.fmt(ch.equations[label])})"
    elif label in ch.sections and name == "ref":
        number = ch.sections[label]
    else:
        raise ctx.error(f"unknown label {label!r} in {{{name}}}`{content}`")
    if text is not None:
        shown = text.replace("%s", number.split(" ")[-1]).replace("{number}", number.split(" ")[-1])
    else:
        shown = number
    return _link(shown, ctx.page() and f"{ctx.page()}#{label}")


def transform_roles(text: str, ctx: Context) -> str:
    """Replace the MyST roles of ``text`` (outside code fences and code spans) by CommonMark."""

    def role(m: re.Match) -> str:
        name, content = m.group("name"), m.group("content")
        if name in ("cite", "cite:p", "cite:ps", "cite:t", "cite:ts"):
            return _cite(content, "t" if name.startswith("cite:t") else "p", ctx)
        if name == "glue" or name == "glue:text":
            return placeholder(content.strip(), ctx.values.get(content.strip()))
        if name in ("eq", "numref", "ref", "doc"):
            return _reference(name, content, ctx)
        if name == "math":
            return f"${content}$"
        raise ctx.error(f"unsupported MyST role {{{name}}}`{content}`")

    out, last = [], 0
    for a, b in _fence_spans(text):
        out.append(_roles_outside_code_spans(text[last:a], role))
        out.append(text[a:b])
        last = b
    out.append(_roles_outside_code_spans(text[last:], role))
    return "".join(out)


def _roles_outside_code_spans(text: str, role) -> str:
    # A role is "{name}`...`"; a plain code span "`...`" not preceded by "}" is left alone.
    pieces, pos = [], 0
    for m in re.finditer(r"\{[A-Za-z0-9:_-]+\}`[^`]*`|(`+)[^`]*?\1", text):
        pieces.append(text[pos:m.start()])
        pieces.append(role(_ROLE.match(m.group(0))) if m.group(0).startswith("{") else m.group(0))
        pos = m.end()
    pieces.append(text[pos:])
    return "".join(pieces)


def transform_math(text: str, ctx: Context) -> str:
    """``$$ ... $$ (label)`` -> ``$$ ... \\tag{C.n} $$`` (the number the book prints)."""
    ch, out, last = ctx.chapter, [], 0
    for start, end, body, label in _iter_math(text):
        if label is None:
            continue
        if label not in ch.equations:
            raise ctx.error(f"unknown equation label {label!r}")
        inner = body.rstrip()
        sep = "\n" if "\n" in body else " "
        out.append(text[last:start])
        out.append(f"$${inner}{sep}\\tag{{{ch.fmt(ch.equations[label])}}}{sep if sep == ' ' else chr(10)}$$")
        last = end
    out.append(text[last:])
    return "".join(out)


def _quote(text: str) -> str:
    # Jupyter takes math out of the raw text before it parses markdown, so a display block split over quoted
    # lines would keep their "> " markers: each $$ ... $$ block goes on one line first.
    text = text.strip("\n")
    for start, end, body, label in reversed(list(_iter_math(text))):
        one_line = " ".join(x.strip() for x in body.split("\n") if x.strip())
        text = text[:start] + f"$$ {one_line} $$" + (f" ({label})" if label else "") + text[end:]
    return "\n".join(">" if not line.strip() else "> " + line for line in text.strip("\n").split("\n"))


def transform_directives(text: str, ctx: Context) -> str:
    """Replace the directives of a markdown cell (nested ones too) by CommonMark + HTML."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        d = _DIRECTIVE.match(line)
        f = _FENCE.match(line)
        if f and not d:   # a plain code fence: copy it whole
            close = _closing(f.group("fence"))
            j = i + 1
            while j < len(lines) and not close.match(lines[j]):
                j += 1
            out.extend(lines[i:j + 1])
            i = j + 1
            continue
        if not d:
            t = _TARGET.match(line)
            if not t:   # "(label)=" targets have no CommonMark form: dropped
                out.append(line)
            i += 1
            continue
        fence = d.group("fence")
        close = _closing(fence)
        j = i + 1
        options: dict[str, str] = {}
        while j < len(lines) and _OPTION.match(lines[j]) and not close.match(lines[j]):
            o = _OPTION.match(lines[j])
            options[o.group("key")] = o.group("value")
            j += 1
        body_start = j
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        if j >= len(lines):
            raise ctx.error(f"unclosed directive {{{d.group('name')}}} ({line.strip()!r})")
        body = transform_directives("\n".join(lines[body_start:j]).strip("\n"), ctx)
        if out and out[-1].strip():
            out.append("")
        out.append(_render_directive(d.group("name"), d.group("arg"), options, body, ctx))
        i = j + 1
        if i < len(lines) and lines[i].strip():
            out.append("")
    return "\n".join(out)


def _render_directive(name: str, arg: str, options: dict[str, str], body: str, ctx: Context) -> str:
    ch = ctx.chapter
    classes = options.get("class", "").split()
    if name == "exercise":
        label = options.get("label")
        if label is None:
            raise ctx.error(f"exercise {arg!r} has no :label:")
        title = f"Exercise {ch.fmt(ch.exercises[label])}" + (f" ({arg})" if arg else "")
        return f"**{title}**\n\n{body}"
    if name == "solution":
        return f"<details>\n<summary>Solution</summary>\n\n{body}\n\n</details>"
    if name == "admonition" or name in _ADMONITIONS:
        title = arg if name == "admonition" else (f"{_ADMONITIONS[name]}: {arg}" if arg else _ADMONITIONS[name])
        if not title:
            raise ctx.error("{admonition} without a title")
        if "dropdown" in classes:
            return f"<details>\n<summary>{title}</summary>\n\n{body}\n\n</details>"
        return _quote(f"**{title}**\n\n{body}")
    if name == "math":
        label = options.get("label")
        tag = f"\n\\tag{{{ch.fmt(ch.equations[label])}}}" if label else ""
        return f"$$\n{(arg + chr(10) if arg else '')}{body}{tag}\n$$"
    raise ctx.error(f"unsupported MyST directive {{{name}}}")


def transform_markdown(text: str, ctx: Context) -> str:
    """All of a markdown cell: directives, then labelled display math, then roles."""
    return transform_roles(transform_math(transform_directives(text, ctx), ctx), ctx)


# ----------------------------------------------------------------------------------------------- notebooks
def _colab_badge(text: str, stem: str, out_dir: str) -> str:
    return re.sub(rf"(colab\.research\.google\.com/github/[^)\s]*?/)notebooks/{re.escape(stem)}\.ipynb",
                  rf"\g<1>{out_dir}/{stem}.ipynb", text)


def fold_solution(cell: dict) -> dict:
    """Fold a solution code cell in place: Colab's form view with a title line, and JupyterLab's hidden input.

    The source gets :data:`SOLUTION_TITLE` as its first line (Colab shows the title and hides the code until the
    reader double-clicks it); ``metadata.cellView = "form"`` (Colab) and ``metadata.jupyter.source_hidden``
    (JupyterLab, Notebook 7) are set. Returns ``cell``.
    """
    text = SOLUTION_TITLE + _cell_text(cell)
    cell["source"] = text if isinstance(cell.get("source"), str) else _split_source(text)
    cell["metadata"]["cellView"] = "form"
    cell["metadata"].setdefault("jupyter", {})["source_hidden"] = True
    return cell


def unfold_source(cell: dict) -> str:
    """A copy's code cell source as the chapter has it: :data:`SOLUTION_TITLE` removed from a folded solution."""
    text = _cell_text(cell)
    if cell.get("metadata", {}).get("cellView") == "form" and text.startswith(SOLUTION_TITLE):
        return text[len(SOLUTION_TITLE):]
    return text


def convert(nb: dict, ctx: Context, out_dir: str = "colab") -> dict:
    """The Colab/Jupyter copy of one notebook (a new dict; ``nb`` is not changed)."""
    stem = ctx.chapter.stem
    new = copy.deepcopy(nb)
    cells = []
    for i, cell in enumerate(new["cells"]):
        if cell["cell_type"] == "code":   # as `make notebooks` leaves it: no outputs, only tags and captions
            cell["outputs"] = []
            cell["execution_count"] = None
            cell["metadata"] = {k: v for k, v in cell.get("metadata", {}).items() if k in _KEEP_CELL_METADATA}
            if "solution" in cell["metadata"].get("tags", []):
                fold_solution(cell)
        elif cell["cell_type"] == "markdown":
            text = _colab_badge(transform_markdown(_cell_text(cell), ctx), stem, out_dir)
            cell["source"] = _split_source(text)
        cells.append(cell)
        if i == 0 and cell["cell_type"] == "markdown":
            note = {"cell_type": "markdown", "metadata": {}, "source": _split_source(GLUE_NOTE.format(stem=stem))}
            if "id" in cell:
                note["id"] = "colab-note"
            cells.append(note)
    new["cells"] = cells
    meta = nb.get("metadata", {})
    new["metadata"] = {k: v for k, v in meta.items() if k == "kernelspec"}
    if "name" in meta.get("language_info", {}):
        new["metadata"]["language_info"] = {"name": meta["language_info"]["name"]}
    return new


def dumps(nb: dict) -> str:
    """The notebook as nbformat writes it (indent 1, sorted keys, UTF-8, trailing newline)."""
    return json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def _page_titles(root: Path) -> dict[str, str]:
    titles = {}
    for path in sorted((root / "book").glob("*.md")):
        m = re.search(r"^# (.+)$", path.read_text(encoding="utf-8"), re.M)
        if m:
            titles[f"book/{path.stem}"] = m.group(1).strip()
    return titles


def _site_url(root: Path) -> str:
    import yaml

    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8")) or {}
    return str((config.get("html") or {}).get("baseurl") or "").rstrip("/")


def generate(root: Path = ROOT, out_dir: str = "colab") -> dict[str, str]:
    """``{relative output path: notebook text}`` for every chapter of ``_toc.yml``."""
    root = Path(root)
    bib = load_bib(root / "book" / "references.bib")
    titles, site, values = _page_titles(root), _site_url(root), load_book_values(root)
    out = {}
    for stem, number in toc_chapters(root / "_toc.yml").items():
        nb = json.loads((root / "notebooks" / f"{stem}.ipynb").read_text(encoding="utf-8"))
        ctx = Context(number_chapter(nb, stem, number), bib, site, titles, values.get(stem, {}))
        out[f"{out_dir}/{stem}.ipynb"] = dumps(convert(nb, ctx, Path(out_dir).name))
    return out


README = """# Colab / Jupyter copies of the chapters (generated: do not edit)

Each `<stem>.ipynb` here is written by `python -m neurips24.colab` (`make colab`) from `notebooks/<stem>.ipynb`:
the same code cells, and markdown without MyST syntax (solutions collapsed, admonitions as blockquotes, citations
and equation/figure numbers resolved), so that Colab and plain Jupyter show the chapter as the book does.
Edit the chapter in `notebooks/` and regenerate; CI runs `python -m neurips24.colab --check`, and `make notebooks`
executes every copy top to bottom (the book is built from their outputs). The book's own values beside each
`⟨name⟩` come from `book/glued_values.json`, written after a build by
`python -m neurips24.colab --values-from _build/jupyter_execute/notebooks`.
"""


#: Cell metadata an executed copy hands back to its chapter: nbclient's timings (benchmarks/cell_times.py reads them).
_RUN_CELL_METADATA = ("execution",)
#: Notebook metadata an executed copy hands back: the kernel's language details and any saved widget state.
_RUN_NB_METADATA = ("language_info", "widgets")


def transplant_outputs(executed: dict, chapter: dict, name: str = "notebook") -> dict:
    """The chapter with the outputs of its executed Colab copy: what ``make notebooks`` builds the book from.

    The copy's code cells are the chapter's (:func:`convert` changes only markdown, and a solution's first line,
    which :func:`unfold_source` removes), so running the copy runs the chapter. Each code cell of ``chapter`` gets
    the ``outputs``, ``execution_count`` and run metadata (``execution`` timings) of the copy's code cell at the
    same position; the notebook gets the copy's ``language_info`` and widget state. Glued values and claim
    cards are outputs, so they come along.

    Parameters
    ----------
    executed : the executed copy (``colab/<stem>.ipynb`` after nbclient/nbmake), as a dict.
    chapter : the chapter (``notebooks/<stem>.ipynb``), as a dict; not changed.
    name : how errors name the notebook.

    Returns
    -------
    dict, a new notebook.

    Raises
    ------
    ValueError naming the notebook and the cell when the two do not have the same code cells (number, ids and
    sources): the copy is stale, and its outputs would be the wrong chapter's.
    """
    new = copy.deepcopy(chapter)
    mine = [c for c in new["cells"] if c["cell_type"] == "code"]
    theirs = [c for c in executed["cells"] if c["cell_type"] == "code"]
    if len(mine) != len(theirs):
        raise ValueError(f"{name}: the executed copy has {len(theirs)} code cells, the chapter {len(mine)} "
                         "(regenerate it: python -m neurips24.colab)")
    for i, (a, b) in enumerate(zip(mine, theirs, strict=True)):
        if a.get("id") != b.get("id") or _cell_text(a) != unfold_source(b):
            raise ValueError(f"{name}: code cell {i} (id {a.get('id')!r}) differs from the executed copy's "
                             f"(id {b.get('id')!r}): regenerate the copy (python -m neurips24.colab)")
        a["outputs"] = copy.deepcopy(b.get("outputs", []))
        a["execution_count"] = b.get("execution_count")
        for key in _RUN_CELL_METADATA:
            if key in b.get("metadata", {}):
                a.setdefault("metadata", {})[key] = copy.deepcopy(b["metadata"][key])
    for key in _RUN_NB_METADATA:
        if key in executed.get("metadata", {}):
            new.setdefault("metadata", {})[key] = copy.deepcopy(executed["metadata"][key])
    return new


def outputs_from(executed_dir: Path, root: Path = ROOT) -> int:
    """Write into each chapter of ``_toc.yml`` the outputs of its executed copy in ``executed_dir`` (in place).

    Returns 0, or 1 after printing each chapter whose copy is missing or does not match (nothing is written for
    those) and each ``notebooks/*.ipynb`` that is not in ``_toc.yml`` (it has no copy, so it was not run). See
    :func:`transplant_outputs`.
    """
    failed = 0
    chapters = toc_chapters(root / "_toc.yml")
    for path in sorted((root / "notebooks").glob("*.ipynb")):
        if path.stem not in chapters:   # it has no copy, so `make notebooks` would not have run it
            print(f"notebooks/{path.name} is not a chapter of _toc.yml: it was not run", file=sys.stderr)
            failed = 1
    for stem in chapters:
        target, source = root / "notebooks" / f"{stem}.ipynb", Path(executed_dir) / f"{stem}.ipynb"
        if not source.is_file():
            print(f"no executed copy {source} for notebooks/{stem}.ipynb", file=sys.stderr)
            failed = 1
            continue
        text = target.read_text(encoding="utf-8")
        chapter = json.loads(text)
        try:
            new = transplant_outputs(json.loads(source.read_text(encoding="utf-8")), chapter, f"notebooks/{stem}.ipynb")
        except ValueError as err:
            print(err, file=sys.stderr)
            failed = 1
            continue
        sort = json.dumps(chapter, indent=1, sort_keys=True, ensure_ascii=False) + "\n" == text   # keep its key order
        target.write_text(json.dumps(new, indent=1, sort_keys=sort, ensure_ascii=False) + "\n", encoding="utf-8")
    return failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m neurips24.colab", description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a committed copy is stale; write nothing")
    parser.add_argument("--out", default="colab", help="output folder, relative to the root (default: colab)")
    default_root = Path.cwd() if (Path.cwd() / "_toc.yml").is_file() else ROOT
    parser.add_argument("--root", default=str(default_root),
                        help="repository root (default: the current folder if it has _toc.yml, else this checkout)")
    parser.add_argument("--outputs-from", metavar="DIR",
                        help="instead: write the outputs of the executed copies in DIR into notebooks/")
    parser.add_argument("--values-from", metavar="DIR",
                        help=f"instead: write {BOOK_VALUES} from the glue files a build wrote in DIR "
                             "(_build/jupyter_execute/notebooks), then regenerate the copies")
    args = parser.parse_args(argv)
    root = Path(args.root)
    if args.values_from:
        print(f"{record_values(Path(args.values_from), root)} values in {BOOK_VALUES}")
    if args.outputs_from:
        return outputs_from(Path(args.outputs_from), root)
    wanted = generate(root, args.out)
    wanted[f"{args.out}/README.md"] = README
    folder = root / args.out
    present = {f"{args.out}/{p.name}" for p in folder.glob("*.ipynb")} if folder.is_dir() else set()
    stale = sorted(present - set(wanted))
    differ = sorted(p for p, text in wanted.items()
                    if not (root / p).is_file() or (root / p).read_text(encoding="utf-8") != text)
    if args.check:
        for p in differ:
            print(f"out of date: {p} (run `python -m neurips24.colab`)", file=sys.stderr)
        for p in stale:
            print(f"not a chapter of _toc.yml: {p}", file=sys.stderr)
        return 1 if differ or stale else 0
    folder.mkdir(parents=True, exist_ok=True)
    for p in differ:
        (root / p).write_text(wanted[p], encoding="utf-8")
    for p in stale:
        (root / p).unlink()
    print(f"{len(wanted) - 1} notebooks in {args.out}/: {len(differ)} written, {len(stale)} removed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
