"""Executable exercises of the learning-to-defer chapter (neurips24.exercise)."""
from __future__ import annotations

import numpy as np
import torch

from ..exercise import check_cases
from .losses import rl2d_surrogate

TITLE = "The plateau value"
RTOL, ATOL = 1e-8, 1e-10


def _cases() -> list[tuple]:
    rng = np.random.default_rng(0)
    N, n = 40, 4
    logits = rng.normal(0.0, 2.0, (N, n + 1))
    y = rng.integers(0, n, N)
    wrong = rng.integers(0, 2, N).astype(np.float64)               # c = 1{expert wrong}
    graded = rng.uniform(0.0, 1.0, N)                               # a cost in [0, 1]
    defer_all = np.zeros((N, n + 1))
    defer_all[:, -1] = 8.0                                          # s_⊥ ≈ 1: the plateau of the exercise
    return [(logits, y, wrong, 1.0), (logits, y, graded, 0.7), (defer_all, y, wrong, 1.0), (defer_all, y, wrong, 0.3)]


def _reference(logits: np.ndarray, y: np.ndarray, cost: np.ndarray, q: float) -> np.ndarray:
    """rl2d_surrogate on NumPy inputs: the (N,) per-point loss, float64."""
    return rl2d_surrogate(torch.from_numpy(logits), torch.from_numpy(y), torch.from_numpy(cost), q).numpy()


def check_rl2d_loss(answer) -> bool:
    """Say whether ``answer(logits, y, cost, q)`` is the RL2D surrogate with Ψ_q, per point (exercise 'The plateau
    value' of the chapter): L = Ψ_q(s_y + (1 − c) s_⊥), s = softmax(logits), Ψ_q(t) = (1 − t^q)/q.

    Compared with :func:`neurips24.defer.losses.rl2d_surrogate` to rtol 1e-8, atol 1e-10 on 40 points with 4
    classes (seed 0): random logits with c = 1{expert wrong} at q = 1 and with a graded cost at q = 0.7, and a
    model that defers (h_⊥ = 8, other scores 0) at q = 1 and q = 0.3.

    Parameters
    ----------
    answer : callable, ``answer(logits (N, n + 1), y (N,) ints, cost (N,) in [0, 1], q in (0, 1]) -> (N,)``;
        the last column of ``logits`` is the deferral output ⊥.

    Returns
    -------
    bool, True when every case matches; prints the verdict ("not attempted yet" for the scaffold).

    Raises
    ------
    TypeError if ``answer`` is not callable. Errors raised by ``answer`` itself propagate.
    """
    cases = _cases()
    return check_cases(
        TITLE, answer, cases, _reference, rtol=RTOL, atol=ATOL,
        describe=lambda i, case, got, want: f"case {i + 1} (q = {case[3]}, cost {'0/1' if i != 1 else 'graded'}) "
                                            f"differs from rl2d_surrogate, whose mean loss there is {want.mean():.4g}.",
        summary=f"matches defer.losses.rl2d_surrogate to {RTOL:g} on {len(cases)} cases "
                "(q = 1, 0.7, 0.3; a deferring model included).")
