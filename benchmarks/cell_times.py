"""The slowest cells of each executed chapter, read from the timings nbclient records in the notebooks.

`make notebooks` runs it after nbmake has executed the chapters in place (and before their outputs are
cleared), so every `make test` log ends with each chapter's total and slowest cell:

    python benchmarks/cell_times.py notebooks/*.ipynb [--top 3] [--limit 60]

A cell over ``--limit`` seconds is marked: at `fast` scale no cell may take over 60 s on an idle 2-core machine.
"""
from __future__ import annotations

import argparse
import json
from datetime import datetime
from pathlib import Path


def cell_seconds(path: Path) -> list[tuple[int, float, str]]:
    """(code cell number from 1, seconds, first source line) for each executed code cell of ``path``."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    rows, number = [], 0
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        number += 1
        timing = cell.get("metadata", {}).get("execution", {})
        start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
        if start and end:
            seconds = (datetime.fromisoformat(end.rstrip("Z")) - datetime.fromisoformat(start.rstrip("Z")))
            source = "".join(cell["source"]).strip().splitlines() or [""]
            rows.append((number, seconds.total_seconds(), source[0][:60]))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--top", type=int, default=2, help="slowest cells listed per chapter")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds above which a cell is marked")
    args = parser.parse_args(argv)
    print(f"{'chapter':34s} {'total s':>8s}  slowest cells (code cell number: seconds)")
    for path in args.notebooks:
        rows = cell_seconds(path)
        if not rows:
            print(f"{path.stem:34s} {'—':>8s}  (no timings recorded)")
            continue
        slow = sorted(rows, key=lambda r: -r[1])[: args.top]
        cells = "; ".join(f"#{n}: {s:.1f}{' OVER LIMIT' if s > args.limit else ''} ({src})" for n, s, src in slow)
        print(f"{path.stem:34s} {sum(r[1] for r in rows):8.1f}  {cells}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
