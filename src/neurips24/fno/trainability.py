"""Trainability on the paper's grid: which depth a ReLU FNO without skip connections trains to, per initial σ².

The grid (``GRID["full"]``) is σ² ∈ {0.5, 1, 1.5, 2, 2.5, 3, 4} × depth L ∈ {4, 8, 16, 32} × 4 seeds, on 1-D
linear advection generated in code (``data.advection_dataset``). σ² = 1, 1.5, ..., 3 is the paper's training
grid (its figure captions); σ² = 0.5 and 4 are the far phases (the ends of the paper's σ² range), the
controls. Every network is a ``model.DeepFNO`` with the pointwise path W (σ_w² = σ_r² = σ²/2), initialised by
eq. (fno-init) and trained with Adam (torch) on the relative L2 loss by ``train.train_fno_ensemble``.

The full grid takes about 20 minutes on one CPU thread; it was run once by ``scripts/fno_trainability_grid.py`` and its
result ships with the package (``trainability_grid.json.gz``, read by :func:`load_record`). At ``fast`` scale
the chapter re-trains a small subset of the same runs (same data, seeds and steps) and compares.

A run **trains** when its test relative L2 is at most ``TOL`` = 0.1; the **trainable depth** L*(σ²) is the
largest depth of the grid at which at least half of the seeds train (0 when none does).
"""
from __future__ import annotations

import gzip
import json
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from ..scale import check_scale
from .data import advection_dataset
from .layer import check_int
from .train import train_fno_ensemble

TOL = 0.1          # test relative L2 at or below which a run counts as trained (fixed before the grid was run)
RECORD = "trainability_grid.json.gz"

_COMMON = dict(n_grid=64, width=16, n_modes=8, sigma_b2=0.1, variant="with_w", steps=300, batch=32, lr=1e-3,
               n_train=256, n_test=128, data_seed=0, beta=0.4, t_final=2.0)
GRID = {
    # the live subset the notebook re-trains: the same runs as the shipped grid's (σ², L = 16, seeds 0-2)
    "fast": dict(_COMMON, sigma2=[1.0, 2.0, 3.0], depths=[16], seeds=[0, 1, 2]),  # shipped: the grid's own seeds
    "full": dict(_COMMON, sigma2=[0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0], depths=[4, 8, 16, 32],
                 seeds=[0, 1, 2, 3]),  # shipped: the seeds of trainability_grid.json.gz
}


@dataclass
class TrainabilityResult:
    sigma2: np.ndarray          # (S,) initial total weight variance σ²
    depths: np.ndarray          # (Ld,) depths L
    seeds: np.ndarray           # (R,) initialisation/batch seeds
    test_loss: np.ndarray       # (S, Ld, R) test relative L2 after training (inf after divergence)
    train_loss: np.ndarray      # (S, Ld, R, T) relative L2 every ``config['log_every']`` steps (inf after divergence)
    config: dict

    def trained(self, tol: float = TOL) -> np.ndarray:
        """(S, Ld, R) bool: test relative L2 <= ``tol``."""
        return self.test_loss <= tol

    def trainable_depth(self, tol: float = TOL) -> np.ndarray:
        """(S,) int: L*(σ²), see :func:`trainable_depth`."""
        return trainable_depth(self.test_loss, self.depths, tol)

    def subset(self, sigma2, depths, seeds) -> np.ndarray:
        """Test losses of the given (σ², L, seed) runs: (len(sigma2), len(depths), len(seeds)).

        Raises
        ------
        KeyError if a requested σ², depth or seed is not in this result.
        """
        def index(values, wanted, name):
            values = list(np.asarray(values, dtype=float))
            missing = [w for w in wanted if float(w) not in values]
            if missing:
                raise KeyError(f"{name} {missing} not in the grid {values}")
            return [values.index(float(w)) for w in wanted]

        rows = (index(self.sigma2, sigma2, "sigma2"), index(self.depths, depths, "depths"),
                index(self.seeds, seeds, "seeds"))
        return self.test_loss[np.ix_(*rows)]


def trainable_depth(test_loss, depths, tol: float = TOL, quorum: float = 0.5) -> np.ndarray:
    """The largest depth at which at least ``quorum`` of the seeds reach test loss <= ``tol``, per σ².

    Parameters
    ----------
    test_loss : (S, Ld, R) float, test relative L2 (inf or NaN for a diverged run: never trained).
    depths : (Ld,) positive ints, the depths of the second axis.
    tol : float > 0, the loss at or below which a run trains.
    quorum : float in (0, 1], the fraction of seeds that must train.

    Returns
    -------
    (S,) int64: L*(σ²), 0 where no depth trains.

    Raises
    ------
    ValueError if ``test_loss`` is not 3-D, ``depths`` does not match its second axis or is not positive, or
    ``tol``/``quorum`` is out of range.
    """
    loss = np.asarray(test_loss, dtype=np.float64)
    depths = np.asarray(depths)
    if loss.ndim != 3:
        raise ValueError(f"test_loss must have shape (S, Ld, R), got {loss.shape}")
    if depths.shape != (loss.shape[1],) or depths.dtype.kind not in "iu" or np.any(depths < 1):
        raise ValueError(f"depths must be {loss.shape[1]} positive ints (one per column of test_loss), got {depths!r}")
    if not np.isfinite(tol) or tol <= 0:
        raise ValueError(f"tol must be a finite number > 0, got {tol!r}")
    if not 0 < quorum <= 1:
        raise ValueError(f"quorum must be in (0, 1], got {quorum!r}")
    ok = np.nan_to_num(loss, nan=np.inf) <= tol                    # (S, Ld, R)
    passes = ok.mean(axis=-1) >= quorum                            # (S, Ld)
    return np.where(passes, depths[None, :], 0).max(axis=1).astype(np.int64)


def train_depth(config: dict, seed: int) -> dict:
    """One depth of the grid: the stacked (σ² × network seeds) ensemble at ``config['depth']`` (a sweep job).

    A module-level job for :func:`neurips24.sweep.run_sweep` (``fn(config, seed) -> JSON data``); both
    :func:`run_trainability` and ``scripts/fno_trainability_grid.py`` call it, one call per depth.

    Parameters
    ----------
    config : a ``GRID`` entry with ``depth`` (int >= 1) in place of ``depths``, plus ``log_every`` (int >= 1).
        Its ``seeds`` are the networks' seeds (one torch.Generator per network).
    seed : int >= 0, the data seed of ``advection_dataset`` (the grid's ``data_seed``).

    Returns
    -------
    dict: 'depth' (int), 'test_loss' ((S, R) nested lists of float, inf after divergence), 'train_loss'
    ((S, R, T) nested lists, every ``log_every`` steps), 'dtypes' (NumPy dtype names of the two arrays, so that
    the assembled result is bit-identical to an in-process run) and 'seconds' (wall time of the training).

    Raises
    ------
    TypeError or ValueError if ``depth`` or ``log_every`` is not an int >= 1; KeyError if a grid field is missing.
    """
    depth = check_int("depth", config["depth"], 1)
    log_every = check_int("log_every", config.get("log_every", 10), 1)
    n = config["n_train"]
    u0, uT = advection_dataset(n + config["n_test"], config["n_grid"], beta=config["beta"],
                               t_final=config["t_final"], seed=seed)
    S, R = len(config["sigma2"]), len(config["seeds"])
    t = time.perf_counter()
    out = train_fno_ensemble(u0[:n], uT[:n], u0[n:], uT[n:], sigma2=np.repeat(config["sigma2"], R),
                             seeds=np.tile(config["seeds"], S), depth=depth, width=config["width"],
                             n_modes=config["n_modes"], sigma_b2=config["sigma_b2"], variant=config["variant"],
                             steps=config["steps"], batch=config["batch"], lr=config["lr"])
    test = out["test_loss"].reshape(S, R)
    curves = out["train_loss"][:, ::log_every].reshape(S, R, -1)
    return {"depth": depth, "test_loss": test.tolist(), "train_loss": curves.tolist(),
            "dtypes": [test.dtype.name, curves.dtype.name], "seconds": time.perf_counter() - t}


def depth_configs(cfg: dict, log_every: int = 10) -> list[dict]:
    """The sweep's configurations of a ``GRID`` entry: one per depth (``depths`` replaced by ``depth``)."""
    log_every = check_int("log_every", log_every, 1)
    base = {k: v for k, v in cfg.items() if k != "depths"}
    return [dict(base, depth=int(L), log_every=log_every) for L in cfg["depths"]]


def assemble(cfg: dict, jobs: list[dict], log_every: int = 10) -> TrainabilityResult:
    """A TrainabilityResult from :func:`train_depth` results, one per depth of ``cfg['depths']`` in that order.

    Raises
    ------
    ValueError if the results' depths are not ``cfg['depths']``.
    """
    if [j["depth"] for j in jobs] != list(cfg["depths"]):
        raise ValueError(f"jobs must be the depths {cfg['depths']} in order, got {[j['depth'] for j in jobs]}")
    test = [np.asarray(j["test_loss"], dtype=j["dtypes"][0]) for j in jobs]
    curves = [np.asarray(j["train_loss"], dtype=j["dtypes"][1]) for j in jobs]
    return TrainabilityResult(np.array(cfg["sigma2"], dtype=float), np.array(cfg["depths"]), np.array(cfg["seeds"]),
                              np.stack(test, axis=1), np.stack(curves, axis=1), dict(cfg, log_every=log_every))


def run_trainability(scale: str = "fast", log_every: int = 10, progress=None) -> TrainabilityResult:
    """Train every (σ², L, seed) run of ``GRID[scale]`` on the advection data; one stacked Adam run per depth.

    In this process, one :func:`train_depth` call per depth (``scripts/fno_trainability_grid.py`` runs the same
    calls as a sweep).

    Parameters
    ----------
    scale : 'fast' (the notebook's live subset) or 'full' (the whole grid, ~20 minutes on one CPU thread).
    log_every : keep the training loss every ``log_every`` steps (int >= 1).
    progress : optional callable ``progress(depth, seconds, test_loss (S, R))`` called after each depth.

    Returns
    -------
    TrainabilityResult.
    """
    cfg = GRID[check_scale(scale)]
    jobs = []
    for config in depth_configs(cfg, log_every):
        jobs.append(train_depth(config, cfg["data_seed"]))
        if progress is not None:
            progress(config["depth"], jobs[-1]["seconds"], np.asarray(jobs[-1]["test_loss"],
                                                                       dtype=jobs[-1]["dtypes"][0]))
    return assemble(cfg, jobs, log_every)


def _finite_or_none(a):
    return [_finite_or_none(x) for x in a] if isinstance(a, list) else (a if np.isfinite(a) else None)


def save_record(result: TrainabilityResult, path, **provenance) -> Path:
    """Write ``result`` and its provenance (command, seeds, versions, wall time: keyword arguments) as JSON.gz.

    Non-finite losses (diverged runs) are stored as null.
    """
    record = {"config": result.config, "sigma2": result.sigma2.tolist(), "depths": result.depths.tolist(),
              "seeds": result.seeds.tolist(), "test_loss": _finite_or_none(result.test_loss.tolist()),
              "train_loss": _finite_or_none(np.round(result.train_loss, 5).tolist()), "provenance": provenance}
    path = Path(path)
    with gzip.open(path, "wt", encoding="utf-8") as f:
        json.dump(record, f)
    return path


def load_record(path=None) -> tuple[TrainabilityResult, dict]:
    """The shipped full-grid run (or the JSON.gz at ``path``): (TrainabilityResult, provenance dict).

    Raises
    ------
    FileNotFoundError if the record is missing.
    """
    source = resources.files("neurips24.fno").joinpath(RECORD) if path is None else Path(path)
    with gzip.open(source.open("rb") if path is None else source, "rt", encoding="utf-8") as f:
        rec = json.load(f)
    as_array = lambda v: np.array(v, dtype=np.float64)  # noqa: E731 (null -> nan -> inf below)
    test = as_array(rec["test_loss"])
    train = as_array(rec["train_loss"])
    result = TrainabilityResult(np.array(rec["sigma2"], dtype=float), np.array(rec["depths"]), np.array(rec["seeds"]),
                                np.where(np.isnan(test), np.inf, test), np.where(np.isnan(train), np.inf, train),
                                rec["config"])
    return result, rec["provenance"]
