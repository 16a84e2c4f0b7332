"""Reproduction checks: assert a paper's claim on what the code computed, and record it.

Every chapter's reproduction check goes through :func:`check`. It prints the measured value next to the
paper's, appends a record to ``$NEURIPS24_CLAIMS_DIR/<chapter>.jsonl`` (default
``~/.cache/neurips24/claims``) and raises ``AssertionError`` when the claim does not hold, so a notebook
fails in CI on a claim that did not reproduce. Each record carries ``elapsed_s``, the seconds since this module
was first imported: in a chapter, whose setup cell imports ``neurips24`` first, that is the chapter's run time up
to the check. The book's status page is generated from these records (``python -m neurips24.status``).
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

from .scale import scale as current_scale

ENV_VAR = "NEURIPS24_CLAIMS_DIR"
_T0 = time.perf_counter()   # when the process (in a chapter: the kernel) imported neurips24


def claims_dir() -> Path:
    """Folder the records go to: ``$NEURIPS24_CLAIMS_DIR`` or ``~/.cache/neurips24/claims``."""
    env = os.environ.get(ENV_VAR)
    return Path(env) if env else Path.home() / ".cache" / "neurips24" / "claims"


def check(claim_id: str, *, claim: str, measured, paper, holds: bool, scale: str | None = None) -> dict:
    """Assert one claim and record it.

    Parameters
    ----------
    claim_id : '<chapter>.<claim>', e.g. 'fno.relu_gain'; the part before the first dot names the chapter.
    claim : the claim in words, as the chapter states it.
    measured : what this run computed (a number, a string, or a small list/dict of numbers).
    paper : the paper's value or statement (a string such as '>= 10x' or a number).
    holds : whether ``measured`` satisfies the claim; computed by the caller from ``measured``.
    scale : the run scale; default: the current one (:func:`neurips24.scale`).

    Returns
    -------
    dict, the record written (keys: chapter, claim_id, claim, measured, paper, holds, scale, time, elapsed_s:
    seconds since ``neurips24`` was imported, rounded to 0.1 s).

    Raises
    ------
    ValueError if ``claim_id`` has no '<chapter>.' prefix; TypeError if ``holds`` is not a bool;
    AssertionError (after recording) when ``holds`` is False.
    """
    if "." not in claim_id or claim_id.startswith(".") or claim_id.endswith("."):
        raise ValueError(f"claim_id must look like '<chapter>.<claim>', got {claim_id!r}")
    if not isinstance(holds, bool):
        try:  # numpy.bool_ and the like
            import numpy as np

            if isinstance(holds, np.bool_):
                holds = bool(holds)
        except ImportError:
            pass
    if not isinstance(holds, bool):
        raise TypeError(f"holds must be a bool, got {type(holds).__name__}")
    record = {
        "chapter": claim_id.split(".", 1)[0],
        "claim_id": claim_id,
        "claim": claim,
        "measured": _plain(measured),
        "paper": _plain(paper),
        "holds": holds,
        "scale": scale or current_scale(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "elapsed_s": round(time.perf_counter() - _T0, 1),
    }
    folder = claims_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{record['chapter']}.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(record) + "\n")
    mark = "PASS" if holds else "FAIL"
    print(f"[{mark}] {claim_id}: {claim}\n       measured: {record['measured']}   paper: {record['paper']}")
    if not holds:
        raise AssertionError(f"claim {claim_id!r} did not reproduce: measured {measured!r}, paper {paper!r}")
    return record


def load(chapter: str | None = None) -> list[dict]:
    """The recorded claims (all chapters, or one), latest record per claim_id, in file order."""
    folder = claims_dir()
    files = [folder / f"{chapter}.jsonl"] if chapter else sorted(folder.glob("*.jsonl"))
    latest: dict[str, dict] = {}
    for path in files:
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    rec = json.loads(line)
                    latest[rec["claim_id"]] = rec
    return list(latest.values())


def _plain(value):
    """Convert NumPy scalars/arrays (and containers of them) to JSON-ready Python values."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, float):
        return float(f"{value:.6g}")
    return value
