"""``interact``: the Explore sections' live controls, left out where notebooks run unattended.

A plot drawn inside a live ``ipywidgets.interact`` output makes nbclient (nbmake, the book build) wait now and
then for its whole cell timeout (jupyter/nbclient#312). The Makefile therefore sets ``NEURIPS24_WIDGETS=0``
while it executes notebooks: each Explore section draws its default figure statically, and the controls
appear wherever a person runs the notebook (Jupyter, Colab), where the variable is unset.
"""
from __future__ import annotations

import os

ENV_VAR = "NEURIPS24_WIDGETS"


def interact(function, **controls):
    """``ipywidgets.interact(function, **controls)``, or ``None`` when ``NEURIPS24_WIDGETS=0``.

    Parameters
    ----------
    function : the callable that redraws the figure from the controls' values.
    controls : keyword arguments for ``ipywidgets.interact`` (widgets or abbreviations).

    Raises
    ------
    ValueError if ``NEURIPS24_WIDGETS`` is set to anything but '0' or '1'.
    """
    value = os.environ.get(ENV_VAR, "1").strip() or "1"
    if value not in ("0", "1"):
        raise ValueError(f"{ENV_VAR} must be '0' or '1', got {value!r}")
    if value == "0":
        print("(Live controls are off in this unattended run; in Jupyter or Colab they appear here.)")
        return None
    import ipywidgets

    return ipywidgets.interact(function, **controls)
