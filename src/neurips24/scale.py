"""The run scale of the whole book: one setting, read in one place.

``NEURIPS24_SCALE=fast`` (the default) sizes every experiment for a laptop CPU and CI;
``NEURIPS24_SCALE=full`` sizes it as close to the paper as one GPU allows.
"""
from __future__ import annotations

import os

SCALES = ("fast", "full")
ENV_VAR = "NEURIPS24_SCALE"


def check_scale(value: str) -> str:
    """Return ``value`` if it is a valid run scale.

    Raises
    ------
    ValueError if ``value`` is not one of ``SCALES``; the message lists the valid values.
    """
    if value not in SCALES:
        raise ValueError(f"run scale must be one of {SCALES}, got {value!r}")
    return value


def scale() -> str:
    """The run scale chosen by the environment variable ``NEURIPS24_SCALE`` ('fast' when unset).

    Raises
    ------
    ValueError if the variable holds anything but 'fast' or 'full'.
    """
    value = os.environ.get(ENV_VAR, "fast").strip().lower() or "fast"
    if value not in SCALES:
        raise ValueError(f"{ENV_VAR} must be one of {SCALES}, got {os.environ[ENV_VAR]!r}")
    return value
