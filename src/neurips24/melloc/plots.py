"""Figures of the chapter: ratio per codec and field, throughput, and the explore view."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .codec import compress, decompress, inspect
from .fields import make_field
from .intmap import float_to_int
from .stencil import LAPLACE5, apply_stencil


def plot_benchmark(result, dtype: str = "float32"):
    """Left: compression ratio (metadata counted) per field and codec; right: compress vs decompress MB/s."""
    rows = [r for r in result.rows if r["dtype"] == dtype]
    kinds = list(dict.fromkeys(r["field"] for r in rows))
    codecs = list(dict.fromkeys(r["codec"] for r in rows))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.2))
    width = 0.8 / len(codecs)
    for i, c in enumerate(codecs):
        vals = [next(r["ratio"] for r in rows if r["field"] == k and r["codec"] == c) for k in kinds]
        ax1.bar(np.arange(len(kinds)) + i * width, vals, width, label=c,
                color="black" if c == "melloc" else None)
        sub = [r for r in rows if r["codec"] == c]
        ax2.scatter([r["compress_mb_s"] for r in sub], [r["decompress_mb_s"] for r in sub], label=c, s=25,
                    marker="*" if c == "melloc" else "o", color="black" if c == "melloc" else None)
    ax1.set_xticks(np.arange(len(kinds)) + 0.4 - width / 2, kinds)
    ax1.set_ylabel("compression ratio (original / compressed bytes)")
    ax1.set_title(f"{dtype}, n = {rows[0]['n']}")
    ax1.legend(fontsize=7, ncol=2)
    ax2.set_xscale("log")
    ax2.set_yscale("log")
    ax2.axhline(100, color="grey", lw=0.8, ls="--")
    ax2.set_xlabel("compress MB/s (one core)")
    ax2.set_ylabel("decompress MB/s (one core)")
    ax2.set_title("throughput, every field (dashed: 100 MB/s target)")
    fig.tight_layout()
    return fig


def plot_explore(kind: str = "poisson", n: int = 256, n_sources: int = 6, seed: int = 0):
    """Field, its learned source term f = K q, and the ratio of MeLLoC vs pcodec/zstd for one setting."""
    u = make_field(kind, n, np.float32, seed, n_sources)
    blob = compress(u)
    assert np.array_equal(decompress(blob).view(np.uint32), u.view(np.uint32))
    info = inspect(blob)[0]
    m = info["stencil"] if info["mode"] == "mechanism" else LAPLACE5
    f = apply_stencil(float_to_int(u)[0], m)[1:-1, 1:-1]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    im = ax1.imshow(u, cmap="inferno")
    fig.colorbar(im, ax=ax1, label="u (K)")
    ax1.set_title(f"{kind}, n = {n}")
    lim = np.percentile(np.abs(f), 99.5) or 1
    im = ax2.imshow(f, cmap="RdBu_r", vmin=-lim, vmax=lim)
    fig.colorbar(im, ax=ax2, label="f = K q (integer)")
    mode = (f"mechanism, K = {info['template']}" if info["mode"] == "mechanism"
            else f"generic fallback ({info['codec']})")
    ax2.set_title(f"source term; ratio {u.nbytes / len(blob):.2f} ({mode})")
    for ax in (ax1, ax2):
        ax.set_xticks([])
        ax.set_yticks([])
    fig.tight_layout()
    return fig
