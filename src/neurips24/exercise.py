"""Executable exercises: run a student's answer and say whether it is right (CHAPTER.md §10).

A chapter's executable exercise has three cells:

1. a **scaffold** the student fills in: a function whose body raises ``NotImplementedError`` until it is
   written, followed by the chapter's check, e.g. ``edl.exercises.check_evidence(evidence)``;
2. a **solution**, tagged ``hide-cell`` and ``solution`` (folded in the book and in the Colab copy), that
   defines the same function and ends with ``assert edl.exercises.check_evidence(evidence)``: CI runs it, so
   a solution that stopped being right fails the build;
3. the check itself lives in the chapter's package (``<chapter>/exercises.py``), compares the answer with the
   package's tested implementation or a closed form, and reports through :func:`verdict`; a check that runs
   the answer on a list of cases against a reference uses :func:`check_cases`.

A scaffold that has not been filled in runs without an error (the check reports "not attempted yet" and
returns ``False``), so a chapter runs top to bottom before the student starts.
"""
from __future__ import annotations

import copy
import math
import reprlib
from collections.abc import Callable, Sequence
from numbers import Real
from typing import Any

import numpy as np

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


def check_cases(exercise: str, answer: Callable[..., Any], cases: Sequence[tuple], reference: Callable[..., Any], *,
                rtol: float = 0.0, atol: float = 0.0,
                describe: Callable[[int, tuple, Any, Any], str] | None = None, summary: str = "") -> bool:
    """Run the student's function on every case, compare it with the package's reference, print the verdict.

    The loop of most chapters' checks: the first case goes through :func:`attempt` (an unfilled scaffold is
    "not attempted yet" and returns False); each case's output, as a float (or complex) array, must have the
    reference's shape and satisfy ``np.allclose(got, want, rtol, atol)``; the first case that does not is
    reported. Each call gets a deep copy of the case's arguments, so an answer that writes into its inputs
    cannot change the next case or the reference (which gets the originals).

    Parameters
    ----------
    exercise : str, the exercise's title as the chapter shows it.
    answer : callable, the student's function; called as ``answer(*case)``.
    cases : non-empty sequence of tuples, the arguments of each call.
    reference : callable, ``reference(*case)`` -> the expected output: an array-like of numbers, or a tuple of
        them when the answer returns several outputs (then the answer must return as many, each compared).
    rtol, atol : float >= 0, the tolerances of :func:`numpy.allclose` (|got − want| <= atol + rtol |want|);
        0 and 0 ask for exact equality (counts, tokens).
    describe : callable or None, ``describe(i, case, got, want) -> str`` words a mismatch at case ``i``
        (0-based; ``got`` as the answer returned it, ``want`` as the reference did). None, or a ``describe``
        that raises TypeError/ValueError on an odd ``got`` (None, text), gives "case i + 1 of n differs from
        the reference (you return ...)".
    summary : str, the detail printed when every case matches; "" gives "matches on all n cases.".

    Returns
    -------
    bool, True only when every case matches; prints the verdict through :func:`verdict`.

    Raises
    ------
    TypeError if ``answer``, ``reference`` or ``describe`` is not callable, ``cases`` is not a sequence of
    tuples, a tolerance is not a real number, or ``summary`` is not a string. ValueError if ``exercise`` or
    ``cases`` is empty, or a tolerance is negative or not finite. Errors raised by ``answer`` itself (other than
    ``NotImplementedError``) propagate.
    """
    if not isinstance(exercise, str) or not exercise:
        raise ValueError("exercise must be a non-empty string naming the exercise")
    if not callable(answer):
        raise TypeError(f"answer must be the function you wrote (a callable), got {type(answer).__name__}")
    if not callable(reference):
        raise TypeError(f"reference must be a callable giving the expected output, got {type(reference).__name__}")
    if describe is not None and not callable(describe):
        raise TypeError(f"describe must be None or a callable, got {type(describe).__name__}")
    if not isinstance(summary, str):
        raise TypeError(f"summary must be a string, got {type(summary).__name__}")
    if isinstance(cases, str | bytes) or not isinstance(cases, Sequence):
        raise TypeError(f"cases must be a sequence of argument tuples, got {type(cases).__name__}")
    if len(cases) == 0:
        raise ValueError("cases must not be empty")
    if not all(isinstance(case, tuple) for case in cases):
        raise TypeError("each case must be a tuple of the answer's arguments")
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if isinstance(tol, bool) or not isinstance(tol, Real):
            raise TypeError(f"{name} must be a real number >= 0, got {type(tol).__name__}")
        if not math.isfinite(tol) or tol < 0:
            raise ValueError(f"{name} must be finite and >= 0, got {tol}")
    first = attempt(answer, *copy.deepcopy(cases[0]))
    if first is NOT_ATTEMPTED:
        return verdict(exercise, first, False)
    for i, case in enumerate(cases):
        got = first if i == 0 else answer(*copy.deepcopy(case))
        want = reference(*case)
        if not _matches(got, want, float(rtol), float(atol)):
            detail = f"case {i + 1} of {len(cases)} differs from the reference (you return {reprlib.repr(got)})."
            if describe is not None:
                try:
                    detail = describe(i, case, got, want)
                except (TypeError, ValueError):     # e.g. an answer that returned None: keep the plain message
                    pass
            return verdict(exercise, got, False, detail)
    return verdict(exercise, first, True, summary or f"matches on all {len(cases)} cases.")


def _as_numbers(x: Any) -> np.ndarray:
    """``x`` as a float64 (complex128 if complex) array; TypeError/ValueError if it is not numbers."""
    arr = np.asarray(x)
    if arr.dtype.kind in "USV":            # text is not a number, even "0.3"
        raise TypeError("not a number")
    return arr.astype(np.complex128 if arr.dtype.kind == "c" else np.float64)


def _matches(got: Any, want: Any, rtol: float, atol: float) -> bool:
    """Whether ``got`` has ``want``'s shape and values (a tuple ``want``: element by element)."""
    if isinstance(want, tuple):
        try:
            parts = tuple(got)
        except TypeError:
            return False
        return len(parts) == len(want) and all(_matches(g, w, rtol, atol) for g, w in zip(parts, want, strict=True))
    try:
        g, w = _as_numbers(got), _as_numbers(want)
        return g.shape == w.shape and bool(np.allclose(g, w, rtol=rtol, atol=atol))
    except (TypeError, ValueError):
        return False
