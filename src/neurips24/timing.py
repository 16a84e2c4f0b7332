"""Benchmark timing shared by the chapters' ``bench_*`` functions (standard library ``timeit``)."""
from __future__ import annotations

import timeit


def best_time(fn, sync=None, repeat: int = 5) -> float:
    """Best wall time of ``fn()`` over ``repeat`` calls, in seconds, after one warm-up call.

    ``sync`` (e.g. ``cupy.cuda.Device().synchronize``) is called after each call, so GPU work is counted.

    Raises
    ------
    ValueError if ``repeat`` < 1.
    """
    if repeat < 1:
        raise ValueError(f"repeat must be >= 1, got {repeat}")

    def call():
        fn()
        if sync is not None:
            sync()

    call()
    return min(timeit.repeat(call, number=1, repeat=repeat))
