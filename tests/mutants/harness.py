"""The mutant harness: a plausible bug, planted by monkeypatching the package, must make a chapter's claim fail.

A chapter's claims live in its package (``neurips24.<chapter>.reproduction.checks(...)`` gives the keyword
arguments of :func:`neurips24.claims.check` per claim id), so a mutant test runs the very rules the notebook
asserts, at a small size:

    base = outcomes(reproduction.checks(run_small()))          # once per module, unmutated
    monkeypatch.setattr(pkg.module, "fn", buggy)
    assert_caught("<notebook stem>", "<mutant>", "<what the bug is>", outcomes(reproduction.checks(run_small())), base)

:func:`assert_caught` writes one record per mutant to ``$NEURIPS24_MUTANTS_DIR`` (default ``_build/mutants``),
from which ``python -m neurips24.status`` makes the book page "How the claims are tested".
"""
from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from neurips24 import claims

ENV_VAR = "NEURIPS24_MUTANTS_DIR"
_ROOT = Path(__file__).resolve().parents[2]


def mutants_dir() -> Path:
    """Where the mutant records go: ``$NEURIPS24_MUTANTS_DIR`` or ``<repo>/_build/mutants``."""
    env = os.environ.get(ENV_VAR)
    return Path(env) if env else _ROOT / "_build" / "mutants"


def outcomes(checks: Mapping[str, Mapping]) -> dict[str, str]:
    """``{claim_id: outcome}`` for a chapter's ``reproduction.checks(...)``, each computed as
    :func:`neurips24.claims.check` would (:func:`neurips24.claims.outcome`), without recording or raising."""
    return {cid: claims.outcome(cid, **kw) for cid, kw in checks.items()}


def caught_by(mutated: Mapping[str, str], base: Mapping[str, str]) -> list[str]:
    """The claims whose outcome under the mutant is a failure that the unmutated run does not have: a claim
    that no longer holds, a control that now holds, a 'not reproduced' that now holds, or a claim that is gone."""
    return [cid for cid, out in base.items()
            if mutated.get(cid, "missing") != out and mutated.get(cid, "missing") not in claims.EXPECTED_OUTCOMES]


def assert_refused(chapter: str, mutant: str, description: str, run, error=Exception) -> str:
    """Assert that the mutant makes the chapter's run stop with ``error`` (a clear refusal, e.g. a ValueError on
    a non-finite state) before any claim is judged; record it as caught by the run itself.

    ``run`` is a callable that runs the chapter's experiment (under the mutant). Returns the error's text.
    """
    import pytest

    with pytest.raises(error) as info:
        run()
    text = f"{type(info.value).__name__}: {str(info.value)[:160]}"
    folder = mutants_dir()
    folder.mkdir(parents=True, exist_ok=True)
    record = {"chapter": chapter, "mutant": mutant, "description": description, "caught_by": [],
              "refused": text, "outcomes": {}}
    (folder / f"{chapter}.{mutant}.json").write_text(json.dumps(record, indent=1), encoding="utf-8")
    return text


def assert_caught(chapter: str, mutant: str, description: str, mutated: Mapping[str, str],
                  base: Mapping[str, str]) -> list[str]:
    """Assert that at least one claim catches the mutant; record which (for the book's page).

    Parameters
    ----------
    chapter : the notebook's stem, e.g. 'iteration_heads'.
    mutant : a short name, e.g. 'attn_off_by_one'.
    description : the bug in one sentence, as a reader would plant it.
    mutated, base : ``{claim_id: outcome}`` with and without the bug (:func:`outcomes`).

    Raises
    ------
    AssertionError if the unmutated run has an outcome that fails a build (the small size does not give the
    chapter's verdicts, so the harness cannot tell what the bug did), or if no claim catches the mutant.
    """
    bad_base = {cid: out for cid, out in base.items() if out not in claims.EXPECTED_OUTCOMES}
    assert not bad_base, f"the unmutated run of {chapter} fails claims at the mutant size: {bad_base}"
    caught = caught_by(mutated, base)
    folder = mutants_dir()
    folder.mkdir(parents=True, exist_ok=True)
    record = {"chapter": chapter, "mutant": mutant, "description": description, "caught_by": caught,
              "outcomes": {cid: [base[cid], mutated.get(cid, "missing")] for cid in base}}
    if not mutated:   # the run stopped before any claim was judged (the caller caught its error)
        record.update(caught_by=[], refused="the run stops with an error before any claim is judged")
    (folder / f"{chapter}.{mutant}.json").write_text(json.dumps(record, indent=1), encoding="utf-8")
    assert caught, (f"mutant {chapter}.{mutant} ({description}) is caught by no claim: "
                    f"outcomes {dict(mutated)} (unmutated {dict(base)})")
    return caught
