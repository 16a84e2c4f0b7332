"""The chapter's experiments, sized by the run scale (``neurips24.scale``).

- ``run_portraits`` (A): the reduced model's gradient flow from every point of an n × n grid of (e, w), for
  p + q > 1 and p + q < 1; final losses against the basin predictor (paper §4, Fig. 1).
- ``run_transformers`` (B, C): the full one-layer transformer, many seeds, standard vs the paper's initialisation
  at the paper's Fig. 4 setting (p, q) = (0.5, 0.8): B on the paper's model (``Markov-Simple``: no LayerNorm,
  ReLU), C on the LayerNorm + GELU model of ``Markov-LLM``; at ``full`` scale also p = q = 0.9.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import seeding
from ..backend import array_module, to_numpy
from ..checks import check_count
from ..scale import check_scale
from .chain import bigram_loss, check_pq, unigram_loss
from .flow import gradient_flow
from .reduced import SEPARATRIX_ENERGY, energy, predict_basin
from .train import train_ensemble

CONFIG = {
    "fast": {
        "portrait": dict(settings=[(0.5, 0.8), (0.2, 0.3)], n=64, extent=2.0, lr=0.02, steps=3000,
                         bias="optimal", band=0.1),
        # The paper's Fig. 4 (Markov-Simple/src/schedule2.sh at f3a2ec1): p = 0.5, q = 0.8, lr 1e-3 on a 5000-step
        # one-cycle schedule, of which the figure shows the first 600 steps, batch 16. Miniature: T = 128.
        "transformers": {
            "simple": dict(variant="simple", p=0.5, q=0.8, n_seeds=16, steps=600, schedule_steps=5000, batch=16,
                           length=128, d_model=8, lr=1e-3, record_every=20, n_eval=64),
            "llm": dict(variant="llm", p=0.5, q=0.8, n_seeds=12, steps=350, schedule_steps=5000, batch=16,
                        length=128, d_model=8, lr=1e-3, record_every=0, n_eval=64),
        },
    },
    "full": {
        "portrait": dict(settings=[(0.5, 0.8), (0.2, 0.3), (0.9, 0.9)], n=512, extent=2.0, lr=0.01, steps=20000,
                         bias="optimal", band=0.1),
        "transformers": {
            "simple": dict(variant="simple", p=0.5, q=0.8, n_seeds=32, steps=5000, schedule_steps=5000, batch=16,
                           length=1024, d_model=8, lr=1e-3, record_every=50, n_eval=64),
            "llm": dict(variant="llm", p=0.5, q=0.8, n_seeds=32, steps=5000, schedule_steps=5000, batch=16,
                        length=1024, d_model=8, lr=1e-3, record_every=50, n_eval=64),
            "simple, p = q = 0.9": dict(variant="simple", p=0.9, q=0.9, n_seeds=32, steps=10000, schedule_steps=10000,
                                        batch=16, length=1024, d_model=8, lr=1e-3, record_every=100, n_eval=64),
        },
    },
}
INITS = ("standard", "good")
"""The two initialisations compared, as in the paper's Fig. 4: nanoGPT's Gaussian and the paper's (f3a2ec1)."""
REACHED = 0.9
"""A run *reached the bigram loss* when its held-out loss closed at least this fraction of the unigram-to-bigram
gap. Its *escape step* (:data:`ESCAPE`) is when its smoothed training loss first closed half of it. With two
attractors the final fractions cluster near 0 and near 1 (the tables count those between)."""
ESCAPE = 0.5
"""The fraction of the gap whose first crossing by the smoothed training loss is a run's escape step."""


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
        """(n, n) bool: the flow ended nearer the bigram loss than the unigram loss (everywhere, when p + q = 1:
        the chain has no memory and the two minima coincide)."""
        if np.isclose(self.bigram, self.unigram, rtol=0.0, atol=1e-12):
            return np.ones(self.final_loss.shape, dtype=bool)
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
    kernel. Raises ValueError on p, q outside (0, 1), n not an integer >= 2, extent not finite and > 0, band not
    finite and >= 0, and like :func:`neurips24.markov.flow.gradient_flow` on a bad lr, steps or bias, or a
    flow that diverges.
    """
    p, q = check_pq(p, q)
    n = check_count("n", n, 2)
    for name, v, strict in (("extent", extent, True), ("band", band, False)):
        real = not isinstance(v, bool) and isinstance(v, (int, float, np.integer, np.floating))
        if not real or not np.isfinite(v) or v < 0 or (strict and v == 0):
            raise ValueError(f"{name} must be a finite number {'> 0' if strict else '>= 0'}, got {v!r}")
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


def run_transformers(scale: str = "fast", device: str | None = None, progress: bool = True,
                     names=None) -> dict:
    """Experiments B and C: for each entry of the scale's CONFIG (or only those in ``names``), ``n_seeds`` models
    with the standard and ``n_seeds`` with the paper's initialisation (:data:`INITS`; the same seeds,
    ``neurips24.seeds(n_seeds)``, so each pair shares its random draw and its data), trained together by
    :func:`train_ensemble`. Returns {name: TrainResult}. Raises ValueError for a name not in the CONFIG."""
    entries = CONFIG[check_scale(scale)]["transformers"]
    unknown = set(names or ()) - set(entries)
    if unknown:
        raise ValueError(f"names must be among {sorted(entries)}, got {sorted(unknown)}")
    out = {}
    for name, cfg in entries.items():
        if names is not None and name not in names:
            continue
        cfg = dict(cfg)
        p, q, n_seeds = cfg.pop("p"), cfg.pop("q"), cfg.pop("n_seeds")
        seeds = list(seeding.seeds(n_seeds)) * len(INITS)
        inits = [init for init in INITS for _ in range(n_seeds)]
        out[name] = train_ensemble(p, q, seeds, inits, device=device, progress=progress, **cfg)
    return out


def outcome_table(results: dict, level: float = 0.95) -> list[dict]:
    """One row per (experiment, initialisation): how many runs reached the bigram loss (:data:`REACHED`), with a
    Wilson interval (SciPy, :func:`neurips24.claims.binomial_interval`), how many ended at the unigram loss
    (closed <= 10 % of the gap) or in between, how many closed >= 90 %, and the escape steps (:data:`ESCAPE`;
    median and quartiles over the runs that escaped; NaN when none did)."""
    from ..claims import binomial_interval

    rows = []
    for name, r in results.items():
        prog, esc = r.progress(), r.escape_step(ESCAPE)
        for init in dict.fromkeys(r.inits):
            sel = r.select(init)
            k, n = int(np.sum(prog[sel] >= REACHED)), int(sel.sum())
            iv = binomial_interval(k, n, level)
            escaped = esc[sel][np.isfinite(esc[sel])]
            q25, med, q75 = np.percentile(escaped, [25, 50, 75]) if escaped.size else (np.nan,) * 3
            rows.append({"experiment": name, "variant": r.variant, "p": r.p, "q": r.q, "init": init, "n": n,
                         "reached": k, "low": iv.low, "high": iv.high,
                         "at_unigram": int(np.sum(prog[sel] <= 0.1)),
                         "between": int(np.sum((prog[sel] > 0.1) & (prog[sel] < 0.9))),
                         "closed_90": int(np.sum(prog[sel] >= 0.9)),
                         "escaped": int(escaped.size), "escape_q25": q25, "escape_median": med, "escape_q75": q75,
                         "steps": r.curves.shape[1]})
    return rows
