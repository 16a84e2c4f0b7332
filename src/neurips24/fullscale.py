"""Chapters at ``full`` scale through the sweep runner: ``make full CHAPTERS="a b"`` (``-m neurips24.fullscale``).

Each chapter is one job of :mod:`neurips24.sweep`: its notebook executed top to bottom in a fresh kernel
(nbclient) with ``NEURIPS24_SCALE=full``, its claims recorded to a folder of its own; the job returns the records.
The records are written to ``full/<chapter>.jsonl`` beside ``full/<chapter>.meta.json`` (date, machine, commit,
wall time, command), which the status page reads into its full-scale column. Jobs are cached like any sweep job,
keyed by the package version and the commit, so a chapter that already ran at this commit is not run again; a
chapter that fails is reported and the others go on.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path

from . import sweep

ROOT = Path(__file__).resolve().parents[2]
FULL_DIR = "full"
_ANSI = r"\x1b\[[0-9;]*m"      # the colour codes of an IPython traceback


def run_chapter(config: Mapping, seed: int) -> dict:
    """Execute ``notebooks/<config['chapter']>.ipynb`` at full scale with the seed offset ``seed``.

    Returns
    -------
    dict with ``records`` (the claim records the chapter wrote, list of dicts), ``seconds``, ``error`` (None,
    or the notebook's error: the records written before it are kept) and ``commit`` (the code that ran).

    Raises
    ------
    ValueError if the chapter's notebook does not exist.
    """
    import nbformat
    from nbclient import NotebookClient

    root = Path(config.get("root", ROOT))
    path = root / "notebooks" / f"{config['chapter']}.ipynb"
    if not path.exists():
        raise ValueError(f"no chapter notebook {path}")
    with tempfile.TemporaryDirectory() as claims_dir:
        env = {"NEURIPS24_SCALE": "full", "NEURIPS24_CLAIMS_DIR": claims_dir, "NEURIPS24_WIDGETS": "0",
               "NEURIPS24_SEED_OFFSET": str(int(seed))}
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)   # the kernel inherits this process's environment
        start = time.perf_counter()
        try:
            nb = nbformat.read(path, as_version=4)
            NotebookClient(nb, timeout=int(config.get("cell_timeout", 3600)), kernel_name="python3",
                           resources={"metadata": {"path": str(path.parent)}}).execute()
            error = None
        except Exception as err:   # a failing cell: keep what was recorded before it
            error = f"{type(err).__name__}: {re.sub(_ANSI, '', str(err))[-2000:]}"   # no terminal colours
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        records = [json.loads(ln) for p in sorted(Path(claims_dir).glob("*.jsonl"))
                   for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]
    return {"records": records, "seconds": round(time.perf_counter() - start, 1), "error": error,
            "commit": _commit(root)}


def _commit(root: Path) -> str:
    if os.environ.get("NEURIPS24_COMMIT"):   # a copy of the tree without its .git (a GPU machine's)
        return os.environ["NEURIPS24_COMMIT"]
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True,
                             timeout=10)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def write_records(chapter: str, result: Mapping, out_dir: Path, command: str, root: Path = ROOT) -> Path:
    """Write ``<out_dir>/<chapter>.jsonl`` (the full-scale records) and ``<chapter>.meta.json``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{chapter}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in result["records"] if r.get("scale") == "full"),
                    encoding="utf-8")
    meta = {"chapter": chapter, "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.system()}",
            "gpu": _gpu(), "commit": result.get("commit") or _commit(root), "wall_s": result["seconds"],
            "error": result["error"],
            "command": command}
    (out_dir / f"{chapter}.meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    return path


def _gpu() -> str:
    from .backend import cupy_or_none

    cp = cupy_or_none()
    if cp is None:
        return "none"
    name = cp.cuda.runtime.getDeviceProperties(0)["name"]
    return name.decode() if isinstance(name, bytes) else str(name)


def load_meta(folder: Path) -> dict[str, dict]:
    """``{chapter: meta}`` of the full-scale records in ``folder`` (empty when there is none)."""
    folder = Path(folder)
    if not folder.is_dir():
        return {}
    return {p.name[:-len(".meta.json")]: json.loads(p.read_text(encoding="utf-8"))
            for p in sorted(folder.glob("*.meta.json"))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m neurips24.fullscale", description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="+", help="notebook stems, e.g. barely_random_mts")
    parser.add_argument("--out", type=Path, default=ROOT / FULL_DIR, help="where the records go (default full/)")
    parser.add_argument("--seed-offset", type=int, default=0, help="the chapters' seed offset (default 0)")
    sweep.add_arguments(parser)
    args = parser.parse_args(argv)
    command = "make full CHAPTERS=\"" + " ".join(args.chapters) + "\""
    # by name: under ``python -m neurips24.fullscale`` (make full) this module is __main__, which workers cannot import
    # cached per commit, not only per package version: a chapter's result is its notebook's and code's at a commit
    from . import __version__

    res = sweep.run_sweep("neurips24.fullscale:run_chapter", [{"chapter": c} for c in args.chapters],
                          [args.seed_offset], cache_dir=args.cache, scheduler=args.scheduler, n_workers=args.workers,
                          version=f"{__version__}+{_commit(ROOT)}")
    status = 0
    for job, result in res.results.items():
        path = write_records(job.config["chapter"], result, args.out, command)
        held = sum(r.get("outcome") == "pass" for r in result["records"])
        print(f"{job.config['chapter']}: {held} of {len(result['records'])} claims pass at full scale, "
              f"{result['seconds']} s -> {path}" + (f"; error: {result['error']}" if result["error"] else ""))
        status |= result["error"] is not None
    return 1 if res.failed or status else 0


if __name__ == "__main__":
    raise SystemExit(main())
