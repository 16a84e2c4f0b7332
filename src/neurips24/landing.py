"""The landing page's line per chapter: its claims held and run time, and a thumbnail of one of its figures.

``book/intro.md`` has a card per chapter (sphinx-design); each card includes ``book/_generated/<stem>.md``, which
:func:`write_cards` writes from this build's claim records (the same records as the status page) and from the
chapter's executed notebook: a badge line ("5 of 6 claims hold · 1 not reproduced · 42 s at fast scale") and a
thumbnail, the output image of the cell tagged ``thumbnail`` (or the chapter's first figure), scaled down with
Pillow. ``python -m neurips24.status`` calls it, so the cards cannot drift from the runs. The folder is a build
product (git ignores it).
"""
from __future__ import annotations

import base64
import io
import json
from pathlib import Path

GENERATED = Path("book") / "_generated"
THUMB_WIDTH = 480   # px; the landing page's cards are at most about 380 px wide


def claims_line(records: list[dict]) -> str:
    """The card's badge line (MyST, sphinx-design badges) for one chapter's records at ``fast`` scale.

    Parameters
    ----------
    records : the chapter's records (dicts as :func:`neurips24.status.load_records` returns them).

    Returns
    -------
    str : e.g. ``{bdg-success}`5 of 6 claims hold` {bdg-warning}`1 not reproduced` 42 s at `fast` scale``, or a
    line saying the chapter has not run in this build.
    """
    fast = [r for r in records if r.get("scale") == "fast"]
    if not fast:
        return "{bdg-secondary}`not run in this build`"
    outcomes = [r.get("outcome") or ("pass" if r.get("holds") else "fail") for r in fast]
    held, known, not_run = outcomes.count("pass"), outcomes.count("not reproduced"), outcomes.count("not run here")
    failed = len(outcomes) - held - known - not_run
    parts = [f"{{bdg-success}}`{held} of {len(outcomes)} claims hold`"]
    if known:
        parts.append(f"{{bdg-warning}}`{known} not reproduced`")
    if not_run:
        parts.append(f"{{bdg-secondary}}`{not_run} not run here`")
    if failed:
        parts.append(f"{{bdg-danger}}`{failed} failed`")
    times = [r["elapsed_s"] for r in fast if isinstance(r.get("elapsed_s"), (int, float))]
    if times:
        parts.append(f"{max(times):.0f} s at `fast` scale")
    return " ".join(parts)


def _images(cell: dict) -> list[str]:
    return [out["data"]["image/png"] for out in cell.get("outputs", [])
            if isinstance(out.get("data"), dict) and "image/png" in out["data"]]


def figure_png(notebook: Path) -> bytes | None:
    """The PNG bytes of the image output of the cell tagged ``thumbnail``, else of the first image output.

    Returns ``None`` when the notebook has no image output (e.g. it has not been executed).

    Raises
    ------
    FileNotFoundError if ``notebook`` does not exist; ValueError if it is not a notebook (JSON with ``cells``).
    """
    try:
        cells = json.loads(Path(notebook).read_text(encoding="utf-8"))["cells"]
    except (json.JSONDecodeError, KeyError, TypeError) as err:
        raise ValueError(f"notebook: {notebook} is not a Jupyter notebook ({err})") from None
    tagged = [c for c in cells if "thumbnail" in c.get("metadata", {}).get("tags", [])]
    for cell in tagged + cells:
        images = _images(cell)
        if images:
            data = images[0]
            return base64.b64decode("".join(data) if isinstance(data, list) else data)
    return None


def thumbnail(png: bytes, width: int = THUMB_WIDTH) -> bytes:
    """``png`` scaled down (Pillow, Lanczos) to at most ``width`` px wide, as optimised PNG bytes.

    Raises
    ------
    ValueError if ``width`` < 16 or ``png`` is not an image Pillow can read.
    """
    from PIL import Image, UnidentifiedImageError

    if not isinstance(width, int) or width < 16:
        raise ValueError(f"width must be an int >= 16 px, got {width!r}")
    try:
        image = Image.open(io.BytesIO(png))
        image.load()
    except (UnidentifiedImageError, OSError) as err:
        raise ValueError(f"png: not a readable image ({err})") from None
    if image.width > width:
        image = image.resize((width, max(1, round(image.height * width / image.width))), Image.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def executed_notebook(root: Path, doc: str) -> Path | None:
    """The executed copy of ``doc`` ('notebooks/<stem>'): the notebook itself when nbmake wrote its outputs in place
    (``make test``), else Jupyter Book's executed copy under ``_build`` (``make book``); ``None`` if there is none."""
    for path in (root / f"{doc}.ipynb", root / "_build" / "jupyter_execute" / f"{doc}.ipynb",
                 root / "_build" / "html" / "_sources" / f"{doc}.ipynb"):
        if path.is_file() and figure_png(path) is not None:
            return path
    return None


def write_cards(records: list[dict], chapters: list[dict], root: Path) -> list[Path]:
    """Write ``book/_generated/<stem>.md`` (and ``thumbs/<stem>.png``) for every chapter of the toc.

    Parameters
    ----------
    records : every record of this build (:func:`neurips24.status.load_records`).
    chapters : :func:`neurips24.status.toc_chapters` of ``root``.
    root : the book's root.

    Returns
    -------
    list of Path : the Markdown files written, one per chapter.
    """
    out = root / GENERATED
    (out / "thumbs").mkdir(parents=True, exist_ok=True)
    written = []
    for ch in chapters:
        stem = Path(ch["doc"]).name
        recs = [r for r in records if r.get("chapter") in ch["prefixes"]]
        lines = [claims_line(recs), ""]
        thumb = out / "thumbs" / f"{stem}.png"
        source = executed_notebook(root, ch["doc"])
        if source is not None:
            thumb.write_bytes(thumbnail(figure_png(source)))
        elif thumb.exists():
            thumb.unlink()
        if thumb.exists():
            lines += [f"```{{image}} /{GENERATED.as_posix()}/thumbs/{stem}.png",
                      f":alt: A figure of the chapter {ch['title']}",
                      ":class: neurips24-thumb",
                      "```", ""]
        path = out / f"{stem}.md"
        path.write_text("\n".join(lines), encoding="utf-8")
        written.append(path)
    return written


TIMES = GENERATED / "run_times.md"


def write_times(records: list[dict], chapters: list[dict], root: Path) -> Path:
    """Write ``book/_generated/run_times.md``: each chapter's run time at ``fast`` scale in this build (the
    seconds from its setup cell to its last check, on the build machine), which the landing page, the seminar
    guide and the lecturer's kit include instead of typing a time.

    Returns
    -------
    Path of the file written.
    """
    rows = []
    for ch in chapters:
        fast = [r for r in records if r.get("chapter") in ch["prefixes"] and r.get("scale") == "fast"]
        times = [r["elapsed_s"] for r in fast if isinstance(r.get("elapsed_s"), (int, float))]
        rows.append((ch["doc"], ch["title"], max(times) if times else None))
    timed = [t for _, _, t in rows if t is not None]
    lines = ["| chapter | run time at `fast` scale |", "|---|---|"]
    lines += [f"| {{doc}}`{title.replace('`', '')} </{doc}>` | {f'{t:.0f} s' if t is not None else 'not run'} |"
              for doc, title, t in rows]
    summary = (f"In this build the chapters ran in {min(timed):.0f}–{max(timed):.0f} s each (median "
               f"{sorted(timed)[len(timed) // 2]:.0f} s) on the build machine's CPU (2 cores), from the setup cell "
               "to the last check; a laptop is about as fast, and Colab adds the install (its first cell)."
               if timed else "The chapters have not run in this build, so no run time is shown.")
    path = root / TIMES
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(summary + "\n\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path
