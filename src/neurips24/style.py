"""One plotting style for every chapter, readable on light and dark page themes."""
from __future__ import annotations

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
