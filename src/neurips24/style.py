"""One plotting style for every chapter, readable on light and dark page themes, and at the book's column width.

The book shows a figure at most :data:`COLUMN_PX` pixels wide, so a wide figure is scaled down and its text with
it. :func:`readable` raises every text of a figure to the size that still reads at :data:`MIN_TEXT_PX` after that
scaling; :func:`use_style` makes IPython apply it to each figure it displays (Jupyter's inline backend, the
book's build), so no chapter has to think about it.
"""
from __future__ import annotations

import warnings

import matplotlib as mpl

# Okabe–Ito colour-blind-safe palette
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000"]


def use_style() -> None:
    """Apply the book's matplotlib style (white figure background so plots read in dark themes too)."""
    mpl.rcParams.update({
        "figure.figsize": (6.4, 4.0),
        "figure.dpi": 100,
        "savefig.dpi": 150,
        "figure.facecolor": "white",
        "axes.facecolor": "white",
        "axes.grid": True,
        "grid.alpha": 0.3,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "axes.prop_cycle": mpl.cycler(color=PALETTE),
        "axes.titlesize": 11,
        "axes.labelsize": 10,
        "legend.fontsize": 9,
        "legend.frameon": False,
        "font.size": 10,
        "lines.linewidth": 1.6,
        "image.cmap": "viridis",
    })
    _register_readable_figures()


COLUMN_PX = 784     # the width of the book's text column (sphinx-book-theme at desktop width), in CSS pixels
MIN_TEXT_PX = 9     # the smallest text height a reader should get, in CSS pixels


def min_text_pt(width_px: float, dpi: float, column_px: float = COLUMN_PX, min_px: float = MIN_TEXT_PX) -> float:
    """The smallest font size (points) that shows at ``min_px`` once a ``width_px``-wide image drawn at ``dpi`` is
    scaled to fit ``column_px``: ``min_px * 72 / (dpi * min(1, column_px / width_px))``.

    Raises
    ------
    ValueError if any argument is not a finite number > 0.
    """
    for name, value in (("width_px", width_px), ("dpi", dpi), ("column_px", column_px), ("min_px", min_px)):
        if not (isinstance(value, (int, float)) and 0 < value < float("inf")):
            raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return min_px * 72.0 / (dpi * min(1.0, column_px / width_px))


def readable(fig, column_px: float = COLUMN_PX, min_px: float = MIN_TEXT_PX):
    """Raise the figure's texts (tick labels, labels, titles, legends, annotations) below :func:`min_text_pt` to
    it, for the figure's width as saved with ``bbox_inches='tight'`` at ``fig.dpi``; returns ``fig``.

    Up to four passes, because larger text and the re-layout widen the tight bounding box. Tick labels are raised with
    ``Axes.tick_params`` (ticks Matplotlib creates at draw time copy it). A figure without a layout engine gets
    ``tight_layout`` after a change, so the larger labels do not overlap.

    Raises
    ------
    TypeError if ``fig`` is not a Matplotlib Figure.
    """
    from matplotlib.figure import Figure
    from matplotlib.text import Text

    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    for _ in range(4):
        changed = False
        renderer = fig.canvas.get_renderer()
        width_px = fig.get_tightbbox(renderer).width * fig.dpi
        need = min_text_pt(max(width_px, 1.0), fig.dpi, column_px, min_px)
        for ax in fig.axes:
            for which, axis in (("x", ax.xaxis), ("y", ax.yaxis)):
                labels = axis.get_ticklabels()
                if labels and labels[0].get_fontsize() < need - 1e-6:
                    ax.tick_params(axis=which, which="both", labelsize=need)
                    changed = True
        ticks = {id(t) for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels()}
        for text in fig.findobj(Text):
            if id(text) not in ticks and text.get_text().strip() and text.get_fontsize() < need - 1e-6:
                text.set_fontsize(need)
                changed = True
        if not changed:
            break
        if fig.get_layout_engine() is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fig.tight_layout()
    return fig


def _png(fig) -> str:
    """IPython's PNG of ``fig`` (``bbox_inches='tight'``, as the inline backend draws it), after :func:`readable`."""
    from IPython.core.pylabtools import print_figure

    return print_figure(readable(fig), "png", bbox_inches="tight", base64=True)


def _register_readable_figures() -> None:
    """Make the running IPython shell draw figures through :func:`readable` (nothing outside IPython)."""
    try:
        from IPython import get_ipython
        from matplotlib.figure import Figure
    except ImportError:   # pragma: no cover - IPython is a dependency
        return
    shell = get_ipython()
    if shell is not None:
        import matplotlib.pyplot  # noqa: F401  (in a kernel this sets up the inline backend's formatters first)

        shell.display_formatter.formatters["image/png"].for_type(Figure, _png)

