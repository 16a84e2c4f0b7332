"""Executable exercises: run a student's answer and say whether it is right (CHAPTER.md §10).

A chapter's executable exercise has three cells:

1. a **scaffold** the student fills in: a function whose body raises ``NotImplementedError`` until it is
   written, followed by the chapter's check, e.g. ``edl.exercises.check_evidence(evidence)``;
2. a **solution**, tagged ``hide-cell`` and ``solution`` (folded in the book and in the Colab copy), that
   defines the same function and ends with ``assert edl.exercises.check_evidence(evidence)``: CI runs it, so
   a solution that stopped being right fails the build;
3. the check itself lives in the chapter's package (``<chapter>/exercises.py``), compares the answer with the
   package's tested implementation or a closed form, and reports through :func:`verdict`.

A scaffold that has not been filled in runs without an error (the check reports "not attempted yet" and
returns ``False``), so a chapter runs top to bottom before the student starts.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

NOT_ATTEMPTED = object()   # what :func:`attempt` returns when the student's function is still the scaffold


def attempt(answer: Callable[..., Any], *args, **kwargs) -> Any:
    """Call the student's function; :data:`NOT_ATTEMPTED` if it still raises ``NotImplementedError``.

    Parameters
    ----------
    answer : callable, the student's function from the scaffold cell.
    *args, **kwargs : passed to ``answer``.

    Returns
    -------
    What ``answer`` returns, or :data:`NOT_ATTEMPTED`. Any other exception the answer raises propagates, so a
    student sees their own traceback.

    Raises
    ------
    TypeError if ``answer`` is not callable.
    """
    if not callable(answer):
        raise TypeError(f"answer must be the function you wrote (a callable), got {type(answer).__name__}")
    try:
        return answer(*args, **kwargs)
    except NotImplementedError:
        return NOT_ATTEMPTED


def verdict(exercise: str, result: Any, ok: bool, detail: str = "") -> bool:
    """Print whether an exercise's answer is right and return it as a bool.

    Parameters
    ----------
    exercise : str, the exercise's title as the chapter shows it.
    result : what :func:`attempt` returned (:data:`NOT_ATTEMPTED` prints "not attempted yet").
    ok : bool, whether the answer is right (ignored when not attempted).
    detail : str, what was compared, e.g. "matches the package to 1e-9 on 5 inputs" or the first mismatch.

    Returns
    -------
    bool, True only for an attempted, right answer.
    """
    if not isinstance(exercise, str) or not exercise:
        raise ValueError("exercise must be a non-empty string naming the exercise")
    if result is NOT_ATTEMPTED:
        print(f"{exercise}: not attempted yet. Replace the `raise NotImplementedError` with your answer "
              "and run the cell again.")
        return False
    mark = "Right" if ok else "Not yet"
    print(f"{exercise}: {mark}." + (f" {detail}" if detail else ""))
    return bool(ok)
