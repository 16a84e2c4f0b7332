"""The chapter's experiments, sized by the run scale (Cabannes et al. 2024, §3–§5).

- :func:`run_emergence`: polynomial iteration mod 11 with CoT (2 layers) beside its control without CoT, every
  model a seed of one ensemble, evaluated each epoch (test accuracy, attention peakiness, the attention maps of
  one probe sequence); :func:`run_one_layer`: the 1-layer control.
- :func:`run_transfer`: parity fine-tuned from the polynomial models against parity from scratch, same epochs.
- :func:`run_grid`: accuracy over the paper's (length × width) grid, with and without CoT (full scale).
- :func:`drop_ratio`: how abrupt a loss curve's drop is.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .. import seeding
from ..checks import check_count
from ..scale import check_scale
from .model import EnsembleTransformer
from .tasks import Dataset, make_dataset, width
from .train import History, evaluate, fit

DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
"""Where the experiments run: the GPU when torch sees one (full scale), else the CPU."""

CONFIGS = {
    # the paper's set-up (grid_run_pretrain.py / train.py of the official code), on one GPU
    "full": {"L_max": 16, "n_per_len": 1024, "d": 128, "lr": 3e-4, "batch_size": 256, "dropout": 0.1,
             "epochs": 1000, "ft_epochs": 100, "n_seeds": 5, "skip": 50, "eval_per_len": 512,
             "grid_lengths": (4, 8, 12, 16, 24, 32), "grid_widths": (8, 16, 32, 64, 128), "grid_epochs": 1000},
    # the miniature: shorter sequences, a narrower model, a larger step and smaller batches (see the chapter)
    "fast": {"L_max": 4, "n_per_len": 512, "d": 32, "lr": 3e-3, "batch_size": 32, "dropout": 0.1,
             "epochs": 100, "ft_epochs": 60, "n_seeds": 5, "skip": 10, "eval_per_len": 48,
             "grid_lengths": (), "grid_widths": (), "grid_epochs": 0},
}
"""Settings per scale. ``skip``: epochs of the first descent that :func:`drop_ratio` leaves out. ``n_seeds``:
models per set-up; their seeds are ``neurips24.seeds(n_seeds)`` at call time (``config`` adds them as
``seeds``), so ``$NEURIPS24_SEED_OFFSET`` moves the whole chapter to another seed set."""


HEAD = 0.8
"""The layer-2 peakiness at which a seed has formed the iteration head (the chapter's threshold): a clean head
scores 0.9–1, a head that is right on part of the chain only about 0.4–0.6."""


def config(scale: str = "fast") -> dict:
    """A copy of the settings of ``scale`` ('fast' or 'full') with ``seeds`` = ``neurips24.seeds(n_seeds)``;
    ValueError for another value."""
    cfg = dict(CONFIGS[check_scale(scale)])
    cfg["seeds"] = seeding.seeds(cfg["n_seeds"])
    return cfg


def drop_ratio(loss, skip: int = 0) -> float:
    """Abruptness of a loss curve: the largest per-epoch decrease over the median absolute per-epoch change.

    Computed on epochs ``skip`` … end, so that the first descent from the uniform prediction (which every model
    makes, in a few epochs) is left out and the ratio measures a *later* drop against the plateau's drift. A
    smooth curve gives a ratio of a few units; a plateau followed by a sudden drop gives a large one.

    Parameters
    ----------
    loss : (E,) finite float array of per-epoch losses (NaNs, e.g. column 0 of :class:`History`, are dropped
        first), with at least skip + 3 values.
    skip : epochs to leave out at the start, >= 0.

    Returns
    -------
    float >= 0 (inf when the median change is 0 and the curve drops).

    Raises
    ------
    ValueError if loss is not 1-d, holds inf, or is too short for ``skip``.
    """
    skip = check_count("skip", skip, 0)
    loss = np.asarray(loss, dtype=float)
    if loss.ndim != 1:
        raise ValueError(f"loss must be a 1-d array of per-epoch losses, got shape {loss.shape}")
    loss = loss[~np.isnan(loss)]
    if np.isinf(loss).any():
        raise ValueError("loss must be finite")
    if len(loss) < skip + 3:
        raise ValueError(f"loss must hold at least skip + 3 = {skip + 3} values, got {len(loss)}")
    change = np.diff(loss[skip:])
    largest_drop = max(0.0, float(-change.min()))
    median = float(np.median(np.abs(change)))
    return largest_drop / median if median > 0 else (np.inf if largest_drop > 0 else 0.0)


def drop_epochs(loss, skip: int = 0) -> list[int]:
    """Epoch of the largest per-epoch loss decrease after ``skip``, for each row of ``loss`` (M, E + 1) (column 0
    NaN, as :class:`History` stores it): the epoch e whose loss[e] − loss[e − 1] is the most negative.

    Raises
    ------
    ValueError if loss is not 2-d or too short for ``skip``.
    """
    skip = check_count("skip", skip, 0)
    loss = np.asarray(loss, dtype=float)
    if loss.ndim != 2 or loss.shape[1] < skip + 3:
        raise ValueError(f"loss must be (M, E + 1) with E + 1 >= skip + 3 = {skip + 3}, got {loss.shape}")
    change = np.diff(loss[:, 1 + skip:], axis=1)
    return [int(np.argmin(row)) + 2 + skip for row in change]


def first_epoch_above(values, threshold: float) -> list[int]:
    """First epoch at which each row of ``values`` (M, E + 1) reaches ``threshold``; −1 where it never does."""
    values = np.asarray(values, dtype=float)
    if values.ndim != 2:
        raise ValueError(f"values must be (M, E + 1), got shape {values.shape}")
    hit = values >= threshold
    return [int(np.argmax(row)) if row.any() else -1 for row in hit]


def _stack(datasets: list[Dataset]):
    train = torch.stack([ds.train for ds in datasets])
    test = torch.stack([ds.test for ds in datasets])
    return train, datasets[0].train_len, test, datasets[0].test_len


def _capped(test: torch.Tensor, test_len: torch.Tensor, per_len: int):
    """The first ``per_len`` test sequences of each length (the per-epoch evaluation set)."""
    keep = torch.cat([torch.nonzero(test_len == L)[:per_len, 0] for L in torch.unique(test_len)])
    return test[:, keep], test_len[keep]


def _train(n_layer: int, seeds: list[int], datasets: list[Dataset], cfg: dict, probe: bool = False,
           start: EnsembleTransformer | None = None, epochs: int | None = None):
    """Train one ensemble (one model per data set) and evaluate it on the full test sets at the end."""
    train, train_len, test, test_len = (t.to(DEVICE) for t in _stack(datasets))
    model = EnsembleTransformer(len(datasets), cfg["d"], n_layer, 1, width(cfg["L_max"]), cfg["dropout"],
                                seeds=seeds).to(DEVICE)
    if start is not None:                       # transfer: the first models start from the checkpoint
        for k in range(start.n_models):
            model.load_member(k, start, k)
    small, small_len = _capped(test, test_len, cfg["eval_per_len"])
    row = int(torch.nonzero(small_len == cfg["L_max"])[0, 0])
    h = fit(model, train, train_len, small, small_len, cfg["epochs"] if epochs is None else epochs, cfg["lr"],
            cfg["batch_size"], probe=small[:, row:row + 1] if probe else None)
    final = evaluate(model, test, test_len)
    h.extra.update(final_acc=final["acc"], final_peaky1=final["peaky1"], final_acc_by_len=final["acc_by_len"],
                   probe=small[0, row].cpu().numpy())
    return model, h


def _split(h: History, rows: slice) -> History:
    extra = {k: h.extra[k][rows] for k in ("final_acc", "final_peaky1", "final_acc_by_len")}
    return History(loss=h.loss[rows], test_acc=h.test_acc[rows], peaky0=h.peaky0[rows], peaky1=h.peaky1[rows],
                   seconds=h.seconds, extra=extra)


@dataclass
class Emergence:
    """Result of :func:`run_emergence` (one row per seed in each :class:`History`).

    Attributes
    ----------
    cot, no_cot : :class:`History` of the 2-layer models with and without CoT; ``extra['final_acc']`` and
        ``extra['final_peaky1']`` : (S,) the same metrics on the *full* test sets after training,
        ``extra['final_acc_by_len']`` : (S, L_max) the accuracy of each length L = 1 … L_max.
    maps : (E + 1, 2, T, T) attention maps (layer 1, layer 2) of seed 0 on ``probe``, after each epoch.
    probe : (T,) int64 tokens of one test sequence of length L_max.
    model : the trained ensemble, CoT models first (the checkpoint :func:`run_transfer` starts from).
    config : the settings used.
    """

    cot: History
    no_cot: History
    maps: np.ndarray
    probe: np.ndarray
    model: EnsembleTransformer
    config: dict


def _settings(scale: str, **overrides) -> dict:
    cfg = config(scale)
    for name, value in overrides.items():
        if value is not None:
            cfg[name] = check_count(name, value, 1)
    return cfg


def run_emergence(scale: str = "fast", L_max: int | None = None, d: int | None = None,
                  epochs: int | None = None) -> Emergence:
    """Polynomial iteration mod 11 on 2 layers, with CoT and without, one ensemble of 2 × seeds models.

    Each model trains on its own data set (seeded by its seed); the models with and without CoT of a seed share
    their inputs x and their initialisation. ``L_max``, ``d`` and ``epochs`` override the scale's settings.

    Returns
    -------
    :class:`Emergence`.

    Raises
    ------
    ValueError for an unknown scale or an override that is not an integer >= 1.
    """
    cfg = _settings(scale, L_max=L_max, d=d, epochs=epochs)
    seeds = list(cfg["seeds"])
    data = [make_dataset("polynomial", cfg["L_max"], cfg["n_per_len"], cot, seed=s)
            for cot in (True, False) for s in seeds]
    model, h = _train(2, seeds + seeds, data, cfg, probe=True)
    S = len(seeds)
    return Emergence(cot=_split(h, slice(0, S)), no_cot=_split(h, slice(S, 2 * S)),
                     maps=h.extra["probe_maps"][:, :, 0], probe=h.extra["probe"], model=model, config=cfg)


def run_one_layer(scale: str = "fast", L_max: int | None = None, d: int | None = None,
                  epochs: int | None = None) -> History:
    """The 1-layer control: polynomial iteration with CoT, same data, seeds and settings as
    :func:`run_emergence`. Returns its :class:`History` (peakiness NaN: there is no layer 2).

    Raises
    ------
    ValueError as :func:`run_emergence`.
    """
    cfg = _settings(scale, L_max=L_max, d=d, epochs=epochs)
    seeds = list(cfg["seeds"])
    data = [make_dataset("polynomial", cfg["L_max"], cfg["n_per_len"], True, seed=s) for s in seeds]
    return _split(_train(1, seeds, data, cfg)[1], slice(0, len(seeds)))


SCRATCH = 1_000_000
"""Seed shift of the models trained from scratch in :func:`run_transfer` (far from any seed offset)."""


@dataclass
class Transfer:
    """Result of :func:`run_transfer`: parity ``finetuned`` from the polynomial models and ``scratch``
    (:class:`History`, one row per seed), with the settings used."""

    finetuned: History
    scratch: History
    config: dict


def run_transfer(emergence: Emergence, epochs: int | None = None) -> Transfer:
    """Parity with CoT, fine-tuned from each polynomial CoT model against a fresh model, same epochs and lr.

    As ``src/cot/transfer.py`` (all parameters trained, a fresh Adam): seed k fine-tunes model k of the CoT
    models of ``emergence``; scratch seed k starts from the initialisation (and dropout stream) of seed
    :data:`SCRATCH` + k. Both train on the same parity data (seeded by k). ``epochs`` overrides the scale's
    ``ft_epochs``.

    Raises
    ------
    ValueError if epochs is given and not an integer >= 1.
    """
    cfg = dict(emergence.config)
    if epochs is not None:
        cfg["ft_epochs"] = check_count("epochs", epochs, 1)
    seeds = list(cfg["seeds"])
    S = len(seeds)
    data = [make_dataset("parity", cfg["L_max"], cfg["n_per_len"], True, seed=s) for s in seeds]
    cot_models = EnsembleTransformer(S, cfg["d"], 2, 1, width(cfg["L_max"]), cfg["dropout"], seeds=seeds)
    for k in range(S):
        cot_models.load_member(k, emergence.model, k)
    _, h = _train(2, [SCRATCH + s for s in seeds] * 2, data + data, cfg, start=cot_models, epochs=cfg["ft_epochs"])
    return Transfer(finetuned=_split(h, slice(0, S)), scratch=_split(h, slice(S, 2 * S)), config=cfg)


def run_grid(scale: str = "fast", task: str = "polynomial") -> dict:
    """Final test accuracy over the (L_max × d) grid, with and without CoT, seed 0 per cell (paper §3).

    At fast scale the grid is empty (it needs a GPU; the chapter says so). Returns a dict with 'lengths',
    'widths' and 'acc' : (2, n_lengths, n_widths) float array (row 0 with CoT, row 1 without).

    Raises
    ------
    ValueError for an unknown scale or task.
    """
    cfg = config(scale)
    lengths, widths = cfg["grid_lengths"], cfg["grid_widths"]
    acc = np.full((2, len(lengths), len(widths)), np.nan)
    for i, L in enumerate(lengths):
        for c, cot in enumerate((True, False)):
            data = [make_dataset(task, L, cfg["n_per_len"], cot, seed=seeding.seed(0))]
            for j, d in enumerate(widths):
                cell = dict(cfg, L_max=L, d=d, eval_per_len=64)
                run = _train(2, [seeding.seed(0)], data, cell, epochs=cfg["grid_epochs"])[1]
                acc[c, i, j] = run.extra["final_acc"][0]
    return {"lengths": lengths, "widths": widths, "acc": acc}
