"""Executable exercises of the VLM-classification chapter (neurips24.exercise)."""
from __future__ import annotations

import numpy as np

from ..exercise import check_cases
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
    return check_cases(
        TITLE, answer, cases, count_mentions,
        describe=lambda i, case, got, want: f"for the name {case[1]} in {case[0][:4]}"
                                            f"{' ...' if len(case[0]) > 4 else ''} you return {got!r}; the count is "
                                            f"{want}.",
        summary=f"matches the package's count on all {len(cases)} cases.")
