"""The chapter's experiments: the live plateau run, the nuclear-norm baseline on held-out matrices, the probes
of shipped checkpoints, and the search table of configurations (paper §3–§4, Fig. 1, 3)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from .. import seeding
from .data import Batch, entry_variance, sample_batch
from .model import MatrixBERT
from .nuclear import nuclear_norm_complete
from .probes import attention_entropy, copy_compute_score, linear_probe_r2, row_column_mass, row_column_score
from .train import Config, build_model, masked_observed_mse, train

HERE = Path(__file__).resolve().parent
SHIPPED = HERE / "shipped"

#: The official configuration (``src/configs/train.yaml`` of tf-matcomp) and the fast miniature of it.
OFFICIAL = Config(m=7, n=7, r=2, p_mask=0.3, d=768, layers=4, heads=8, batch=256, lr=1e-4, steps=50_000,
                  log_every=250)
PLATEAU = {"fast": Config(m=7, n=7, r=2, p_mask=0.3, d=64, layers=2, heads=2, batch=64, lr=1e-3, steps=800,
                          n_eval=256, log_every=50),
           "full": OFFICIAL}


@dataclass
class PlateauRun:
    """A live training run: its configuration, its log (list of {step, masked, observed, seconds}) and model."""

    config: Config
    log: list
    model: MatrixBERT

    def series(self, key: str) -> np.ndarray:
        return np.array([r[key] for r in self.log])


def run_plateau(scale: str = "fast", seed: int | None = None) -> PlateauRun:
    """Train the chapter's model on the official task (7 × 7, rank 2, p_mask = 0.3) from ``seed`` (default
    ``neurips24.seed(0)``, the book's seed offset applied).

    fast: d = 64, 2 layers, 2 heads, batch 64, Adam lr 1e-3, 800 steps (about half a minute on one core);
    full: the official configuration (d = 768, 4 layers, 8 heads, batch 256, lr 1e-4, 50 000 steps; a GPU).
    """
    if scale not in PLATEAU:
        raise ValueError(f"scale must be 'fast' or 'full', got {scale!r}")
    seed = seeding.seed(0) if seed is None else seed
    cfg = Config(**{**PLATEAU[scale].__dict__, "seed": seed})
    model, log, _ = train(cfg)
    return PlateauRun(cfg, log, model)


def held_out(cfg: Config, n_matrices: int = 256, seed: int = 12345) -> Batch:
    """A held-out batch of the task of ``cfg``, drawn from its own generator (never seen in training)."""
    return sample_batch(n_matrices, cfg.m, cfg.n, cfg.r, cfg.p_mask, torch.Generator().manual_seed(seed))


def nuclear_baseline(batch: Batch, **kw) -> dict:
    """Masked, observed and all-entry MSE of nuclear-norm minimisation (eq. 1) on ``batch``."""
    X = batch.X.numpy().astype(np.float64)
    ob = batch.observed.numpy()
    Z = nuclear_norm_complete(X, ob, **kw)
    err = (Z - X) ** 2
    return dict(masked=float(err[~ob].mean()), observed=float(err[ob].mean()), all=float(err.mean()),
                completion=Z)


def evaluate(model: MatrixBERT, batch: Batch) -> dict:
    """Everything the chapter measures on one model: masked / observed / all-entry MSE, the copy-vs-compute
    score, per-layer-and-head row/column attention scores at masked queries (``row_column``: (layers, heads) means;
    ``row_column_masked``: (layers, heads, masked entries) per query) and attention entropies, and per-layer
    linear-probe R² of the masked entries' true values from the hidden states."""
    m, n = batch.X.shape[1:]
    model.eval()
    with torch.no_grad():
        pred, hidden, maps = model(batch.tokens, return_internals=True)
    masked, observed = masked_observed_mse(pred, batch.X, batch.observed)
    hid = ~batch.observed.reshape(len(batch.X), -1).numpy()
    targets = batch.X.reshape(len(batch.X), -1).numpy()[hid]
    return dict(
        masked=masked, observed=observed,
        all=float(((pred.reshape(batch.X.shape) - batch.X) ** 2).mean()),
        copy=copy_compute_score(pred, batch.X.numpy(), batch.observed.numpy()),
        row_column=np.stack([row_column_score(a, m, n, queries=hid) for a in maps]),
        row_column_masked=np.stack([row_column_mass(a, m, n).transpose(1, 0, 2)[:, hid] for a in maps]),
        entropy=np.stack([attention_entropy(a) for a in maps]),
        probe_r2=np.array([linear_probe_r2(h.numpy()[hid], targets) for h in hidden]),
        prediction=pred.reshape(batch.X.shape).numpy(),
    )


# --- shipped products --------------------------------------------------------------------------------------

def save_checkpoint(path: Path, cfg: Config, step: int, state: dict) -> None:
    """Write one checkpoint as a compressed .npz of float32 arrays plus the config (no pickle anywhere)."""
    arrays = {f"w:{k}": v.detach().cpu().numpy().astype(np.float32) for k, v in state.items()}
    np.savez_compressed(path, config=np.array(json.dumps(cfg.__dict__)), step=np.array(step), **arrays)


def load_checkpoint(path: Path) -> tuple[Config, int, MatrixBERT]:
    """Read a checkpoint written by :func:`save_checkpoint` (``np.load`` with ``allow_pickle=False``)."""
    with np.load(path, allow_pickle=False) as z:
        cfg = Config(**json.loads(str(z["config"])))
        state = {k[2:]: torch.from_numpy(z[k]) for k in z.files if k.startswith("w:")}
        step = int(z["step"])
    model = build_model(cfg)
    model.load_state_dict(state)
    model.eval()
    return cfg, step, model


def shipped_runs() -> list[str]:
    """Names of the shipped runs (folders of ``shipped/``)."""
    return sorted(p.parent.name for p in SHIPPED.glob("*/run.json"))


def shipped_run(name: str = "plateau_7x7") -> dict:
    """A shipped run: {'record': its command/seed/config/log, 'checkpoints': {step: model}}.

    Raises
    ------
    ValueError if no run of that name ships with the package.
    """
    if name not in shipped_runs():
        raise ValueError(f"name must be one of the shipped runs {shipped_runs()}, got {name!r}")
    record = json.loads((SHIPPED / name / "run.json").read_text())
    ckpts = {}
    for p in sorted((SHIPPED / name).glob("ckpt_*.npz")):
        _, step, model = load_checkpoint(p)
        ckpts[step] = model
    return dict(record=record, checkpoints=dict(sorted(ckpts.items())))


def search_table() -> list[dict]:
    """Rows of the configuration search (``search.json``): config, steps reached, drop step or None, MSEs."""
    return json.loads((HERE / "search.json").read_text())


def variance(cfg: Config) -> float:
    """Var(X_ij) = r/9 for the task of ``cfg`` (the copy solution's masked MSE)."""
    return entry_variance(cfg.r)
