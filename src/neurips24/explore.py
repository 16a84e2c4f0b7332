"""``interact``: the Explore sections' live controls, left out where notebooks run unattended.

A plot drawn inside a live ``ipywidgets.interact`` output makes nbclient (nbmake, the book build) wait now and
then for its whole cell timeout (jupyter/nbclient#312). The Makefile therefore sets ``NEURIPS24_WIDGETS=0``
while it executes notebooks: each Explore section draws its default figure statically, and the controls
appear wherever a person runs the notebook (Jupyter, Colab), where the variable is unset.

Where the controls are off, the book still lets its reader move one control: with ``sweep=(name, values)``,
:func:`interact` draws the figure once for each of a few values of that control (the others at their widgets'
values) and shows the frames under an HTML range slider that swaps them with a few lines of the book's own
JavaScript (``book/_static/neurips24.js``): no kernel, and it works offline. Without JavaScript, the frame of the
control's default value shows.

The same setting silences progress bars: a bar saved in a notebook's output shows the build machine's timings to
the book's reader. With ``NEURIPS24_WIDGETS=0``, importing ``neurips24`` makes ``tqdm.auto.tqdm`` (and ``trange``)
a bar that never draws, before any chapter package imports it; in Jupyter and Colab the bars show as usual.
"""
from __future__ import annotations

import base64
import html
import io
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


def _widgets_on() -> bool:
    value = os.environ.get(ENV_VAR, "1").strip() or "1"
    if value not in ("0", "1"):
        raise ValueError(f"{ENV_VAR} must be '0' or '1', got {value!r}")
    return value == "1"


def _default(name: str, control):
    """The value a control starts at: a widget's ``value``, or a fixed value passed as it is."""
    if hasattr(control, "value"):
        return control.value
    if isinstance(control, (tuple, list, dict)):
        raise ValueError(f"control {name!r}: pass a widget (e.g. ipywidgets.IntSlider) to sweep beside it, "
                         f"not the abbreviation {control!r}")
    return control


def _label(name: str, control) -> str:
    return str(getattr(control, "description", "") or name)


def _value_text(value) -> str:
    return f"{value:.3g}" if isinstance(value, float) else str(value)


def frames(function, name: str, values, **kwargs) -> list[list[bytes]]:
    """The PNG images ``function(**kwargs, name=value)`` draws, for each value of ``values``.

    The images are what the function displays (``plt.show()`` in Jupyter's inline backend, captured with
    IPython's ``capture_output``) and the Matplotlib figures it leaves open (saved with ``savefig`` and closed).

    Returns
    -------
    list (one per value) of lists of PNG bytes, in the order drawn.
    """
    import matplotlib.pyplot as plt
    from IPython.utils.capture import capture_output

    out = []
    for value in values:
        with capture_output(stdout=False, stderr=False, display=True) as cap:
            function(**{**kwargs, name: value})
        images = [base64.b64decode(o.data["image/png"]) for o in cap.outputs if "image/png" in o.data]
        for num in plt.get_fignums():
            buf = io.BytesIO()
            plt.figure(num).savefig(buf, format="png", bbox_inches="tight")
            images.append(buf.getvalue())
        plt.close("all")
        out.append(images)
    return out


def sweep_html(label: str, values, images: list[list[bytes]], start: int, fixed: dict | None = None) -> str:
    """The kernel-free control: an HTML range slider over ``values`` and one frame (its images) per value.

    Frames other than ``start`` are ``hidden``; ``book/_static/neurips24.js`` shows the frame the slider points at.
    A note above the slider says which values were drawn in advance and at which values the other controls
    (``fixed``: label -> value) stay.
    """
    esc = html.escape
    texts = [_value_text(v) for v in values]
    held = "; ".join(f"{k} = {_value_text(v)}" for k, v in (fixed or {}).items())
    note = (f"Drawn in advance for {esc(label)} = {esc(', '.join(texts))}"
            + (f"; fixed: {esc(held)}" if held else "") + ". In Jupyter or Colab every control is live.")
    parts = [f"<div class='neurips24-sweep' data-control='{esc(label)}'>",
             f"<p class='neurips24-sweep-note'>{note}</p>",
             f"<label>{esc(label)} <input type='range' min='0' max='{len(values) - 1}' step='1' value='{start}' "
             f"aria-label='{esc(label)}'> <output>{esc(texts[start])}</output></label>",
             "<div class='neurips24-sweep-frames'>"]
    for i, (text, pngs) in enumerate(zip(texts, images, strict=True)):
        imgs = "".join(f"<img alt='{esc(label)} = {esc(text)}' src='data:image/png;base64,"
                       f"{base64.b64encode(png).decode()}'>" for png in pngs)
        parts.append(f"<div class='neurips24-sweep-frame' data-value='{esc(text)}'"
                     f"{'' if i == start else ' hidden'}>{imgs}</div>")
    parts.append("</div></div>")
    return "".join(parts)


def interact(function, *, sweep: tuple | None = None, **controls):
    """``ipywidgets.interact(function, **controls)``; where controls are off, a kernel-free slider or nothing.

    Parameters
    ----------
    function : the callable that redraws the figure from the controls' values.
    sweep : optional ``(name, values)``: with ``NEURIPS24_WIDGETS=0``, the figure is drawn for each of ``values``
        (2 to 12 of them) of the control ``name``, the other controls at their widgets' values, and shown under an
        HTML slider (:func:`sweep_html`) that the book's JavaScript moves. Ignored where the live controls are on.
    controls : keyword arguments for ``ipywidgets.interact`` (widgets or abbreviations; beside a ``sweep``, widgets
        or fixed values).

    Returns
    -------
    What ``ipywidgets.interact`` returns, or ``None`` when ``NEURIPS24_WIDGETS=0``.

    Raises
    ------
    ValueError if ``NEURIPS24_WIDGETS`` is set to anything but '0' or '1', if ``sweep`` names no control, has
    fewer than 2 or more than 12 values, or sits beside a control given as an abbreviation; TypeError if ``sweep``
    is not a (name, values) pair.
    """
    live = _widgets_on()
    if sweep is not None:
        if not (isinstance(sweep, tuple) and len(sweep) == 2 and isinstance(sweep[0], str)):
            raise TypeError(f"sweep must be a (control name, values) pair, got {sweep!r}")
        name, values = sweep[0], list(sweep[1])
        if name not in controls:
            raise ValueError(f"sweep: {name!r} is not one of the controls {sorted(controls)}")
        if not 2 <= len(values) <= 12:
            raise ValueError(f"sweep: give 2 to 12 values of {name!r}, got {len(values)}")
    if live:
        import ipywidgets

        return ipywidgets.interact(function, **controls)
    if sweep is None:
        print("(Live controls are off in this unattended run; in Jupyter or Colab they appear here.)")
        return None
    defaults = {k: _default(k, c) for k, c in controls.items()}
    start = values.index(defaults[name]) if defaults[name] in values else 0
    from IPython.display import HTML, display

    label = _label(name, controls[name])
    fixed = {_label(k, c): defaults[k] for k, c in controls.items() if k != name}
    display(HTML(sweep_html(label, values, frames(function, name, values, **defaults), start, fixed)),
            metadata={"text/plain": f"(a slider over {label}; live controls appear in Jupyter or Colab)"})
    return None


if os.environ.get(ENV_VAR, "1").strip() == "0":
    silence_progress_bars()
