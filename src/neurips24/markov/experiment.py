"""The chapter's two experiments, sized by the run scale (``neurips24.scale``).

- ``run_portraits`` (A): the reduced model's gradient flow from every point of an n × n grid of (e, w), for
  p + q > 1 and p + q < 1; final losses against the basin predictor (paper §4, Fig. 1).
- ``run_transformer`` (B): the full one-layer transformer, many seeds, standard vs guideline initialisation
  (paper §5, Fig. 4; official code ``Markov-LLM``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..backend import array_module, to_numpy
from ..scale import check_scale
from .chain import bigram_loss, check_pq, unigram_loss
from .flow import gradient_flow
from .reduced import SEPARATRIX_ENERGY, energy, predict_basin
from .train import train_ensemble

CONFIG = {
    "fast": {
        "portrait": dict(settings=[(0.9, 0.9), (0.2, 0.3)], n=64, extent=2.0, lr=0.02, steps=3000,
                         bias="optimal", band=0.1),
        "transformer": dict(settings=[(0.9, 0.9), (0.2, 0.3)], n_seeds=8, steps=400, batch=16, length=64,
                            d_model=8, n_eval=128),
    },
    "full": {
        "portrait": dict(settings=[(0.9, 0.9), (0.2, 0.3)], n=512, extent=2.0, lr=0.01, steps=20000,
                         bias="optimal", band=0.1),
        "transformer": dict(settings=[(0.9, 0.9), (0.2, 0.3), (0.5, 0.8)], n_seeds=32, steps=400, batch=16,
                            length=1024, d_model=8, n_eval=64),
    },
}


@dataclass
class Portrait:
    p: float
    q: float
    w: np.ndarray          # (n,) grid of initial w (columns)
    e: np.ndarray          # (n,) grid of initial e (rows)
    final_loss: np.ndarray  # (n, n) population loss after the flow (nats), rows e, columns w
    predicted: np.ndarray  # (n, n) bool, basin predictor: True = global (bigram)
    bigram: float
    unigram: float
    band: float            # half-width of the excluded band |E − E_sep| < band
    config: dict

    @property
    def reached_global(self) -> np.ndarray:
        """(n, n) bool: the flow ended nearer the bigram loss than the unigram loss."""
        return self.final_loss < 0.5 * (self.bigram + self.unigram)

    @property
    def outside_band(self) -> np.ndarray:
        """(n, n) bool: initialisations farther than ``band`` in energy from the separatrix."""
        W, E = np.meshgrid(self.w, self.e)
        return ~(np.abs(energy(E, W) - SEPARATRIX_ENERGY) < self.band)

    def agreement(self) -> float:
        """Fraction of initialisations outside the band where predictor and flow agree."""
        mask = self.outside_band
        return float(np.mean((self.predicted == self.reached_global)[mask]))

    def converged(self, tol: float = 1e-3) -> float:
        """Fraction of initialisations whose final loss is within ``tol`` nats of the bigram or unigram loss."""
        L = self.final_loss
        return float(np.mean((np.abs(L - self.bigram) < tol) | (np.abs(L - self.unigram) < tol)))


def run_portrait(p: float, q: float, *, n: int = 64, extent: float = 2.0, lr: float = 0.02, steps: int = 3000,
                 bias: str = "optimal", band: float = 0.1, device: str | None = None) -> Portrait:
    """Flow every (e, w) of an n × n grid over [−extent, extent]² and compare with :func:`predict_basin`.

    An even n keeps the invariant lines e = 0 and w = 0 off the grid. On a GPU the grid runs in the CUDA
    kernel. Raises ValueError on p, q outside (0, 1), n < 2 or extent <= 0.
    """
    p, q = check_pq(p, q)
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise ValueError(f"n must be an integer >= 2, got {n!r}")
    if not extent > 0:
        raise ValueError(f"extent must be > 0, got {extent!r}")
    grid = np.linspace(-extent, extent, n)
    W, E = np.meshgrid(grid, grid)
    xp = array_module(device)
    out = gradient_flow(xp.asarray(E), xp.asarray(W), p, q, lr=lr, steps=steps, bias=bias)
    return Portrait(p, q, grid, grid.copy(), to_numpy(out["loss"]), predict_basin(E, W, p, q),
                    bigram_loss(p, q), unigram_loss(p, q), band,
                    dict(n=n, extent=extent, lr=lr, steps=steps, bias=bias))


def run_portraits(scale: str = "fast", device: str | None = None) -> list[Portrait]:
    """Experiment A: one :class:`Portrait` per (p, q) of the scale's CONFIG."""
    cfg = dict(CONFIG[check_scale(scale)]["portrait"])
    settings = cfg.pop("settings")
    return [run_portrait(p, q, device=device, **cfg) for p, q in settings]


def run_transformer(scale: str = "fast", device: str | None = None) -> dict:
    """Experiment B: for each (p, q), n_seeds models with the standard and n_seeds with the guideline
    initialisation (same seeds, so each pair shares its random weights and data). Returns {(p, q): TrainResult}."""
    cfg = dict(CONFIG[check_scale(scale)]["transformer"])
    settings, n_seeds = cfg.pop("settings"), cfg.pop("n_seeds")
    seeds = list(range(n_seeds)) * 2
    inits = ["standard"] * n_seeds + ["guideline"] * n_seeds
    return {(p, q): train_ensemble(p, q, seeds, inits, device=device, **cfg) for p, q in settings}


def fractions_table(results: dict, threshold: float = 0.9) -> list[dict]:
    """One row per (p, q): fraction of seeds reaching the bigram loss for each initialisation."""
    rows = []
    for (p, q), r in results.items():
        rows.append({"p": p, "q": q, "p+q": round(p + q, 3), "n_seeds": len(r.seeds) // 2,
                     "standard": r.fraction("standard", threshold), "guideline": r.fraction("guideline", threshold),
                     "bigram": r.bigram, "unigram": r.unigram})
    return rows
