"""Executable exercises of the FNO chapter (checks through ``neurips24.exercise``)."""
from __future__ import annotations

import numpy as np

from ..exercise import NOT_ATTEMPTED, attempt, verdict
from .meanfield import low_pass

# (N, K) pairs the check tries: small and the chapter's N = 64, with K = 1 (the mean only) and K = N/2
_CASES = ((8, 1), (8, 3), (16, 8), (64, 2), (64, 8), (64, 32))


def check_low_pass(answer) -> bool:
    """Say whether ``answer(C, K)`` computes the FNO's low-pass filter P_K (exercise 'The low-pass filter P_K').

    (P_K C)(r) = N⁻¹ Σ_{|k|<K} Ĉ(k) e^{2πikr/N} of the chapter's eq. (fno-lowpass): keep the Fourier modes
    |k| < K of a real periodic lag function C of length N. The answer is compared with the package's tested
    ``fno.meanfield.low_pass`` on random lag functions (seeded) for (N, K) in ``_CASES``, to an absolute
    tolerance of 1e-9 (float64 FFT round-off is ~1e-15).

    Parameters
    ----------
    answer : callable ``answer(C, K)`` with C a (N,) float64 array and K an int, returning an (N,) real array.

    Returns
    -------
    bool, True when every case matches; False when not attempted or wrong (it prints which).

    Raises
    ------
    TypeError if ``answer`` is not callable.
    """
    rng = np.random.default_rng(11)
    worst = 0.0
    for N, K in _CASES:
        C = rng.standard_normal(N)
        result = attempt(answer, C.copy(), K)
        if result is NOT_ATTEMPTED:
            return verdict("The low-pass filter P_K", result, False)
        out = np.asarray(result)
        if out.shape != (N,) or not np.isrealobj(out) and np.abs(out.imag).max() > 1e-9:
            return verdict("The low-pass filter P_K", result, False,
                           f"N = {N}, K = {K}: expected a real array of shape ({N},), got {out.dtype} {out.shape}")
        err = float(np.abs(out.real - low_pass(C, K)).max())
        if not err <= 1e-9:
            return verdict("The low-pass filter P_K", result, False,
                           f"N = {N}, K = {K}: differs from fno.meanfield.low_pass by {err:.2e} (max |diff|)")
        worst = max(worst, err)
    return verdict("The low-pass filter P_K", result, True,
                   f"matches fno.meanfield.low_pass on {len(_CASES)} random lag functions (max |diff| {worst:.1e})")
