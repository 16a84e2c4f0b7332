"""Executable exercises of the VLM-classification chapter (neurips24.exercise)."""
from __future__ import annotations

import numpy as np

from ..exercise import NOT_ATTEMPTED, attempt, verdict
from .evaluation import count_mentions

TITLE = "Count how often the training data names a class"


def _cases() -> list[tuple[list[list[int]], list[int]]]:
    """Hand-made cases (a repeated name, a reversed pair, a name at the end, a caption shorter than the name) and
    random ones from a small vocabulary, so that contiguous sub-lists occur by chance."""
    cases = [([[5, 7, 9], [7, 5, 9], [5, 5, 7], [1]], [5, 7]),
             ([[3, 3, 3], [3], []], [3]),
             ([[1, 2], [2, 1, 2]], [1, 2]),
             ([[4]], [4, 4])]
    rng = np.random.default_rng(0)
    for _ in range(6):
        caps = [rng.integers(0, 4, size=rng.integers(0, 9)).tolist() for _ in range(40)]
        cases.append((caps, rng.integers(0, 4, size=rng.integers(1, 3)).tolist()))
    return cases


def check_count_mentions(answer) -> bool:
    """Say whether ``answer(caption_tokens, name_tokens)`` computes freq(c), the number of tokenized captions that
    contain the tokenized class name as a contiguous sub-list (exercise 'Count how often the training data names a
    class'; Zhang et al. 2024, Sec. 4).

    Compared with :func:`neurips24.vlm_classification.count_mentions` (exact integer equality) on 4 hand-made cases
    and 6 random ones.

    Parameters
    ----------
    answer : callable, ``answer(caption_tokens: list[list[int]], name_tokens: list[int]) -> int``.

    Returns
    -------
    bool; prints the verdict ("not attempted yet" for the scaffold).

    Raises
    ------
    TypeError if ``answer`` is not callable. Errors raised by ``answer`` itself propagate.
    """
    cases = _cases()
    first = attempt(answer, *cases[0])
    if first is NOT_ATTEMPTED:
        return verdict(TITLE, first, False)
    for k, (caps, name) in enumerate(cases):
        got = first if k == 0 else answer(caps, name)
        want = count_mentions(caps, name)
        try:
            ok = int(got) == want and float(got) == want
        except (TypeError, ValueError):
            ok = False
        if not ok:
            return verdict(TITLE, got, False, f"for the name {name} in {caps[:4]}{' ...' if len(caps) > 4 else ''} "
                                              f"you return {got!r}; the count is {want}.")
    return verdict(TITLE, first, True, f"matches the package's count on all {len(cases)} cases.")
