"""``interact``: the Explore sections' live controls, left out where notebooks run unattended.

A plot drawn inside a live ``ipywidgets.interact`` output makes nbclient (nbmake, the book build) wait now and
then for its whole cell timeout (jupyter/nbclient#312). The Makefile therefore sets ``NEURIPS24_WIDGETS=0``
while it executes notebooks: each Explore section draws its default figure statically, and the controls
appear wherever a person runs the notebook (Jupyter, Colab), where the variable is unset.

The same setting silences progress bars: a bar saved in a notebook's output shows the build machine's timings to
the book's reader. With ``NEURIPS24_WIDGETS=0``, importing ``neurips24`` makes ``tqdm.auto.tqdm`` (and ``trange``)
a bar that never draws, before any chapter package imports it; in Jupyter and Colab the bars show as usual.
"""
from __future__ import annotations

import os

ENV_VAR = "NEURIPS24_WIDGETS"


def silence_progress_bars() -> None:
    """Make ``tqdm.auto.tqdm`` and ``tqdm.auto.trange`` draw nothing (for unattended runs; see the module's text).

    A module that imports them afterwards (``from tqdm.auto import tqdm``) gets the silent bar; it still iterates
    and counts as tqdm does.
    """
    import tqdm.auto
    import tqdm.std

    class SilentTqdm(tqdm.std.tqdm):
        """tqdm with ``disable=True`` whatever the caller asks."""

        def __init__(self, *args, **kwargs):
            kwargs["disable"] = True
            super().__init__(*args, **kwargs)

    def trange(*args, **kwargs):
        return SilentTqdm(range(*args), **kwargs)

    tqdm.auto.tqdm, tqdm.auto.trange = SilentTqdm, trange


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


if os.environ.get(ENV_VAR, "1").strip() == "0":
    silence_progress_bars()
