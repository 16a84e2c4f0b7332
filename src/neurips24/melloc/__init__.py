"""Luo et al., NeurIPS 2024 (MeLLoC): lossless compression of scientific floats by a learned local mechanism."""
from . import (
    backends,
    baselines,
    codec,
    container,
    exercises,
    experiment,
    fields,
    inpaint,
    intmap,
    kernels,
    plots,
    reproduction,
    stencil,
)
from .codec import compress, decompress, inspect
from .container import FormatError

__all__ = ["backends", "baselines", "codec", "container", "exercises", "experiment", "fields", "inpaint", "intmap",
           "kernels", "plots", "reproduction", "stencil", "compress", "decompress", "inspect", "FormatError"]
