"""One way to seed: NumPy generators are passed explicitly; torch's global RNG is seeded when torch is used."""
from __future__ import annotations

import random
import sys

import numpy as np


def seed_everything(seed: int = 0) -> np.random.Generator:
    """Seed Python's ``random``, torch (when imported) and return ``numpy.random.default_rng(seed)``.

    Raises
    ------
    TypeError if ``seed`` is not an int; ValueError if it is negative.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    random.seed(int(seed))
    if "torch" in sys.modules:
        sys.modules["torch"].manual_seed(int(seed))
    return np.random.default_rng(int(seed))
