"""Executable exercises of the interpretable mesomorphic networks chapter (neurips24.exercise)."""
from __future__ import annotations

import numpy as np
import torch

from ..exercise import check_cases
from .model import linear_head

TITLE = "Impacts and the bias"
RTOL, ATOL = 1e-10, 1e-12


def _cases() -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(0)
    return [(rng.standard_normal((n, M)), rng.standard_normal((n, M + 1, K))) for n, M, K in ((4, 3, 1), (20, 10, 3))]


def check_linear_head(answer) -> bool:
    """Say whether ``answer(x, W)`` returns the logits and the impacts of per-instance linear models (exercise
    'Impacts and the bias' of the chapter): z_k = Σ_m x_m W_mk + W_{M+1,k} and a_mk = x_m W_mk.

    Compared with :func:`neurips24.imn.model.linear_head` (torch, float64) to rtol 1e-10, atol 1e-12 on
    random x (n, M) and W (n, M + 1, K) with (n, M, K) = (4, 3, 1) and (20, 10, 3) (seed 0).

    Parameters
    ----------
    answer : callable, ``answer(x: (n, M) array, W: (n, M + 1, K) array) -> (logits (n, K), impacts (n, M, K))``.

    Returns
    -------
    bool, True when both outputs match in every case; prints the verdict ("not attempted yet" for the scaffold).

    Raises
    ------
    TypeError if ``answer`` is not callable. Errors raised by ``answer`` itself propagate.
    """
    cases = _cases()
    return check_cases(
        TITLE, answer, cases, lambda x, W: tuple(t.numpy() for t in linear_head(torch.from_numpy(x),
                                                                                    torch.from_numpy(W))),
        rtol=RTOL, atol=ATOL,
        describe=lambda i, case, got, want: f"with x {case[0].shape} and W {case[1].shape} your (logits, impacts) "
                                            f"differ from imn.model.linear_head (shapes {want[0].shape} and "
                                            f"{want[1].shape}).",
        summary=f"matches imn.model.linear_head to {RTOL:g} on {len(cases)} batches (binary and 3 classes).")
