"""Training loop of the official code (``src/train.py``): Adam at a constant learning rate, a fresh batch of
matrices every step, MSE over *all* m·n entries (masked and observed). We log the MSE on the masked and on the
observed entries separately, on a fixed held-out batch, because the loss over all entries hides the masked error.
"""
from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass

import torch

from .data import Tokenizer, _check_problem, entry_variance, sample_batch
from .model import MatrixBERT


@dataclass
class Config:
    """One training run. Official values: m = n = 7, r = 2, p_mask = 0.3, d = 768, layers = 4, heads = 8,
    batch = 256, lr = 1e-4, steps = 50 000 (``src/configs/train.yaml``)."""

    m: int = 7
    n: int = 7
    r: int = 2
    p_mask: float = 0.3
    d: int = 64
    layers: int = 2
    heads: int = 2
    ffn: int | None = None
    batch: int = 64
    lr: float = 1e-3
    steps: int = 2000
    seed: int = 0
    n_eval: int = 512
    log_every: int = 100

    def validate(self) -> Config:
        _check_problem(self.m, self.n, self.r, self.p_mask)
        for name in ("d", "layers", "heads", "batch", "steps", "n_eval", "log_every"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if not self.lr > 0:
            raise ValueError(f"lr must be > 0, got {self.lr}")
        return self


def masked_observed_mse(pred: torch.Tensor, X: torch.Tensor, observed: torch.Tensor) -> tuple[float, float]:
    """(masked MSE, observed MSE): mean squared error over the hidden and over the shown entries.

    pred : (B, m·n) or (B, m, n) float; X : (B, m, n) float; observed : (B, m, n) bool.

    Raises
    ------
    ValueError if ``observed`` has no masked entry or no observed entry (a mean over no entries is not an error
    of 0: it is undefined), or its shape is not that of ``X``.
    """
    if tuple(observed.shape) != tuple(X.shape):
        raise ValueError(f"observed must have the shape of X {tuple(X.shape)}, got {tuple(observed.shape)}")
    if bool(observed.all()):
        raise ValueError("observed has no masked entry: the masked MSE is undefined (draw a batch with p_mask > 0)")
    if not bool(observed.any()):
        raise ValueError("observed has no observed entry: the observed MSE is undefined")
    err = (pred.reshape(X.shape) - X) ** 2
    return float(err[~observed].mean()), float(err[observed].mean())


def build_model(cfg: Config) -> MatrixBERT:
    """The encoder of ``cfg`` with the official vocabulary (2002 tokens), seeded by ``cfg.seed``."""
    torch.manual_seed(cfg.seed)
    return MatrixBERT(Tokenizer().vocab_size, cfg.m * cfg.n, cfg.d, cfg.layers, cfg.heads, cfg.ffn)


def train(cfg: Config, checkpoint_steps=(), log_path=None, time_limit_s: float | None = None,
          stop_when_masked_below: float | None = None):
    """Train ``cfg``; return (model, log, checkpoints).

    log : list of dicts {step, loss, masked, observed, seconds} evaluated on a fixed held-out batch of
    ``cfg.n_eval`` matrices every ``cfg.log_every`` steps (step 0 included). checkpoints : {step: state_dict}
    for each step in ``checkpoint_steps`` (after that many updates). ``log_path`` gets one JSON line per log
    entry as it goes. Training stops early after ``time_limit_s`` seconds, or once the masked MSE falls below
    ``stop_when_masked_below`` · Var(X_ij) (used by the search).
    """
    cfg.validate()
    device = "cuda" if torch.cuda.is_available() else "cpu"     # full scale runs on a GPU where there is one
    model = build_model(cfg).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    g = torch.Generator().manual_seed(cfg.seed + 1)
    ev = sample_batch(cfg.n_eval, cfg.m, cfg.n, cfg.r, cfg.p_mask, torch.Generator().manual_seed(10_000 + cfg.seed))
    ev_tokens = ev.tokens.to(device)
    log, ckpts, t0 = [], {}, time.time()
    fh = open(log_path, "a") if log_path else None
    var = entry_variance(cfg.r)
    want = set(int(s) for s in checkpoint_steps)
    for step in range(cfg.steps + 1):
        if step in want:
            ckpts[step] = {k: v.detach().cpu().clone() for k, v in model.state_dict().items()}
        if step % cfg.log_every == 0 or step == cfg.steps:
            model.eval()
            with torch.no_grad():
                pred = model(ev_tokens).cpu()
            model.train()
            mk, ob = masked_observed_mse(pred, ev.X, ev.observed)
            rec = dict(step=step, masked=mk, observed=ob, seconds=round(time.time() - t0, 1))
            log.append(rec)
            if fh:
                fh.write(json.dumps(rec) + "\n")
                fh.flush()
            if stop_when_masked_below is not None and mk < stop_when_masked_below * var and step > 0:
                break
            if time_limit_s is not None and time.time() - t0 > time_limit_s:
                break
        if step == cfg.steps:
            break
        b = sample_batch(cfg.batch, cfg.m, cfg.n, cfg.r, cfg.p_mask, g)
        loss = ((model(b.tokens.to(device)) - b.X.reshape(cfg.batch, -1).to(device)) ** 2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    if fh:
        fh.close()
    return model.cpu(), log, ckpts


def config_dict(cfg: Config) -> dict:
    return asdict(cfg)


DROP = 0.8     # the search's drop: the first logged step with held-out masked MSE < DROP * Var(X_ij)


def first_drop(log, var: float):
    """The first logged step > 0 whose held-out masked MSE is below ``DROP * var`` (None if there is none)."""
    return next((r["step"] for r in log if r["step"] > 0 and r["masked"] < DROP * var), None)


def search_run(config: dict, seed: int) -> dict:
    """One configuration of the abrupt-learning search (``scripts/abrupt_learning_search.py``): a sweep job.

    A module-level job for :func:`neurips24.sweep.run_sweep` (``fn(config, seed) -> JSON data``).

    Parameters
    ----------
    config : :class:`Config` fields except ``seed`` (JSON values), plus optional ``time`` (seconds of training
        before it stops, default 1200), ``ckpt_every`` (keep a checkpoint every so many steps in
        /tmp/abrupt_learning_ckpts/<name>/, default 0: none) and ``name`` (the run's name, default 'run').
    seed : int >= 0, ``Config.seed`` (the network, the training batches and the held-out batch).

    Returns
    -------
    dict: 'log' (the training log of :func:`train`, stopped once the masked MSE falls below 0.25·Var(X_ij)) and
    'summary' (name, config, var, drop_step, last_step, final_masked, final_observed, min_masked, seconds:
    the line ``search/summary.jsonl`` gets).

    Raises
    ------
    TypeError for an unknown configuration field; ValueError for a bad value (see :meth:`Config.validate`).
    """
    kv = dict(config)
    name = str(kv.pop("name", "run"))
    limit = float(kv.pop("time", 1200))
    every = int(kv.pop("ckpt_every", 0))
    if "seed" in kv:
        raise ValueError("config must not hold 'seed': the job's seed argument is Config.seed")
    cfg = Config(**kv, seed=int(seed))
    ckpts = range(0, cfg.steps + 1, every) if every else ()
    _, log, states = train(cfg, checkpoint_steps=ckpts, time_limit_s=limit, stop_when_masked_below=0.25)
    if states:
        from pathlib import Path

        from .experiment import save_checkpoint

        scratch = Path("/tmp/abrupt_learning_ckpts") / name
        scratch.mkdir(parents=True, exist_ok=True)
        for step, state in states.items():
            save_checkpoint(scratch / f"ckpt_{step}.npz", cfg, step, state)
    var = entry_variance(cfg.r)
    summary = dict(name=name, config=config_dict(cfg), var=var, drop_step=first_drop(log, var),
                   last_step=log[-1]["step"], final_masked=log[-1]["masked"], final_observed=log[-1]["observed"],
                   min_masked=min(r["masked"] for r in log), seconds=log[-1]["seconds"])
    return {"log": log, "summary": summary}
