"""Executable exercises of the CherryQ chapter (neurips24.exercise)."""
from __future__ import annotations

import numpy as np

from ..exercise import check_cases
from .quantizer import quantize_reference

TITLE = "A quantizer by hand"
ATOL = 1e-12


def _cases() -> list[tuple[np.ndarray, int]]:
    rng = np.random.default_rng(0)
    cases = [(np.array([0.9, -0.3, 0.1, -0.6]), 2)]          # the exercise's row
    cases += [(rng.standard_normal(16), b) for b in (2, 3, 4)]
    return cases


def check_quantize_group(answer) -> bool:
    """Say whether ``answer(w, bits)`` is CherryQ's quantize–dequantize of one group (exercise 'A quantizer by
    hand' of the chapter): the official half-integer grid of eq. (cherryq-grid) for b <= 4 bits.

    Compared with :func:`neurips24.cherryq.quantize_reference` (one row, one group of the whole row, grid
    'official') to an absolute tolerance of 1e-12, on the exercise's row at 2 bits and on three standard-normal
    rows of 16 weights at 2, 3 and 4 bits (seed 0).

    Parameters
    ----------
    answer : callable, ``answer(w: (G,) float array, bits: int) -> (G,) float array`` of dequantized values.

    Returns
    -------
    bool, True when every case matches; prints the verdict ("not attempted yet" for the scaffold).

    Raises
    ------
    TypeError if ``answer`` is not callable. Errors raised by ``answer`` itself propagate.
    """
    cases = _cases()
    return check_cases(
        TITLE, answer, cases, lambda w, bits: quantize_reference(w[None, :], bits, w.size).weight[0], atol=ATOL,
        describe=lambda i, case, got, want: f"for w = {np.round(case[0], 3).tolist()} at {case[1]} bits you return "
                                            f"{got!r}; quantize_reference gives {np.round(want, 4).tolist()}.",
        summary=f"matches cherryq.quantize_reference to {ATOL:g} on {len(cases)} groups (2 to 4 bits).")
