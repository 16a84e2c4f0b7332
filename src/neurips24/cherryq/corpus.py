"""Calibration and evaluation text: CPython's ``pydoc_data.topics`` (shipped with Python, no download).

The help topics are concatenated in sorted-key order; the first 90 % of the characters are the calibration /
training text, the last 10 % the held-out text on which perplexity is measured.
"""
from __future__ import annotations

HELD_OUT = 0.10


def pydoc_text() -> str:
    """All help topics of ``pydoc_data.topics``, joined by blank lines, in sorted-key order (about 465 k chars)."""
    from pydoc_data.topics import topics

    return "\n\n".join(topics[k].strip() for k in sorted(topics))


def split_text(held_out: float = HELD_OUT) -> tuple[str, str]:
    """(train, held-out) strings: the first (1 − held_out) and the last held_out share of :func:`pydoc_text`.

    Raises
    ------
    ValueError if ``held_out`` is not in (0, 1).
    """
    if not 0 < held_out < 1:
        raise ValueError(f"held_out must be in (0, 1), got {held_out}")
    text = pydoc_text()
    cut = int(len(text) * (1 - held_out))
    return text[:cut], text[cut:]


def token_windows(tokenizer, text: str, seq_len: int, n: int | None = None, spread: bool = False):
    """Non-overlapping windows of ``seq_len`` tokens of ``text``: (n, seq_len) int64 tensor (all if n is None).

    With ``spread`` the n windows are spread evenly over the whole text (window indices
    round(linspace(0, available - 1, n))) instead of being the first n: a sample of the text, not its opening.

    Raises
    ------
    ValueError if seq_len < 2 or the text holds fewer than ``n`` windows.
    """
    import torch

    if seq_len < 2:
        raise ValueError(f"seq_len must be >= 2, got {seq_len}")
    ids = tokenizer(text, return_tensors="pt").input_ids[0]
    available = len(ids) // seq_len
    n = available if n is None else int(n)
    if n < 1 or n > available:
        raise ValueError(f"the text holds {available} windows of {seq_len} tokens, asked for {n}")
    windows = ids[: available * seq_len].reshape(available, seq_len).to(torch.long)
    if spread:
        return windows[torch.from_numpy(_spread_index(available, n))]
    return windows[:n]


def _spread_index(available: int, n: int):
    import numpy as np

    return np.unique(np.round(np.linspace(0, available - 1, n)).astype(np.int64))
