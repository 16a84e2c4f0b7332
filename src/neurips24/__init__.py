"""NeurIPS 2024, Executed: tested implementations behind the book's chapters.

Shared parts (one job each): ``scale`` (the run scale), ``backend`` (NumPy/CuPy), ``show`` (display tested
source), ``claims`` (assert and record reproduction checks, with controls and intervals), ``glue`` (numbers into the
prose), ``style`` (plots), ``seed``/``seeds``/``seed_everything`` (every seed, shifted by
``$NEURIPS24_SEED_OFFSET``), ``assets`` (pretrained models and shipped data, loaded offline:
``from neurips24 import assets``).
One subpackage per paper, e.g. ``neurips24.fno``.
"""
from . import backend, claims
from .explore import interact
from .glue import glue
from .scale import scale
from .seeding import seed, seed_everything, seeds
from .source import show
from .style import use_style

__version__ = "0.1.0"
__all__ = ["backend", "claims", "glue", "interact", "scale", "seed", "seed_everything", "seeds", "show", "use_style",
           "__version__"]
