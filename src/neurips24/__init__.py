"""NeurIPS 2024, Executed: tested implementations behind the book's chapters.

Shared parts (one job each): ``scale`` (the run scale), ``backend`` (NumPy/CuPy), ``show`` (display tested
source), ``claims`` (assert and record reproduction checks), ``style`` (plots), ``seed_everything``.
One subpackage per paper, e.g. ``neurips24.fno``.
"""
from . import backend, claims
from .explore import interact
from .scale import scale
from .seeding import seed_everything
from .source import show
from .style import use_style

__version__ = "0.1.0"
__all__ = ["backend", "claims", "interact", "scale", "seed_everything", "show", "use_style", "__version__"]
