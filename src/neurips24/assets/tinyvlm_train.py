"""Train the shared small VLM's projector, LLaVA stage-1 style, as one job of :mod:`neurips24.sweep`.

:func:`train_projector` is the job (``fn(config, seed)``): both towers frozen, only the projector (0.95 M
parameters) learns, with Adam (lr ``config['lr']``, gradient norm clipped at 1, 20 warm-up steps, then constant),
batch ``config['batch']``, one torch thread. It writes a checkpoint (``tinyvlm.save_projector``, an ``.npz`` with a
``meta`` entry: steps, losses, time, the command) every ``checkpoint_every`` steps, so a usable projector exists
whenever a job is stopped, and returns that ``meta``. ``scripts/train_projector.py`` runs one job per variant and
seed through the sweep runner (serially, on a LocalCluster, or on a Dask scheduler).
"""
from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from . import mnist_5k, tinyvlm, tinyvlm_data

DEFAULTS = {"steps": 5000, "minutes": 75.0, "batch": 8, "lr": 1e-2, "checkpoint_every": 40, "out": None,
            "log": None, "command": ""}


def job_config(variant: str, **options) -> dict:
    """One job's configuration: ``variant`` (one of ``tinyvlm_data.VARIANTS``) and the options of ``DEFAULTS``.

    Raises
    ------
    ValueError for an unknown variant or option, a non-positive steps/batch/minutes/lr/checkpoint_every.
    """
    if variant not in tinyvlm_data.VARIANTS:
        raise ValueError(f"variant must be one of {tinyvlm_data.VARIANTS}, got {variant!r}")
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown options {sorted(unknown)}; accepted: {sorted(DEFAULTS)}")
    cfg = {**DEFAULTS, **options, "variant": variant}
    for key in ("steps", "batch", "checkpoint_every", "minutes", "lr"):
        if not float(cfg[key]) > 0:
            raise ValueError(f"{key} must be > 0, got {cfg[key]!r}")
    if cfg["out"] is None:
        cfg["out"] = str(tinyvlm.WEIGHTS.get(variant, tinyvlm.HERE / f"tinyvlm_{variant}.npz"))
    return cfg


def train_projector(config: Mapping, seed: int) -> dict:
    """Train one projector (``config`` from :func:`job_config`) from seed ``seed``; return its ``meta``.

    The meta holds the variant, seed, batch, lr, command, steps done, per-step losses (nats/token, 4 decimals),
    train and wall seconds; the weights are in ``config['out']``.
    """
    import torch

    cfg = job_config(config["variant"], **{k: v for k, v in config.items() if k != "variant"})
    torch.set_num_threads(1)
    Path(cfg["out"]).parent.mkdir(parents=True, exist_ok=True)
    log = open(cfg["log"], "a", encoding="utf-8") if cfg["log"] else None   # noqa: SIM115 - closed below
    t_start = time.time()

    def say(text: str) -> None:
        if log:
            print(text, file=log, flush=True)

    X, y = mnist_5k()
    pool = tinyvlm_data.shape_pool()
    mnist_feats = tinyvlm.image_features(np.repeat(X.reshape(-1, 28, 28, 1), 3, -1))
    shape_feats = tinyvlm.image_features(pool.images)
    say(f"features ready after {time.time() - t_start:.0f} s")
    vlm = tinyvlm.load_tinyvlm(None, seed=int(seed))
    train, _ = tinyvlm_data.mnist_split(y)
    fit = np.concatenate([mnist_feats[train], shape_feats]).reshape(-1, tinyvlm.FEATURE_DIM)
    vlm.projector.feat_mean.copy_(torch.from_numpy(fit.mean(0)))
    vlm.projector.feat_std.copy_(torch.from_numpy(fit.std(0) + 1e-3))
    batch_size, steps = int(cfg["batch"]), int(cfg["steps"])
    examples = tinyvlm_data.fill_shape_answers(
        tinyvlm_data.training_examples(steps * batch_size, y, cfg["variant"], int(seed)), pool)
    opt = torch.optim.Adam([p for p in vlm.projector.parameters() if p.requires_grad], lr=float(cfg["lr"]))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 20))
    losses, seconds = [], []
    meta = {"variant": cfg["variant"], "seed": int(seed), "batch": batch_size, "lr": float(cfg["lr"]),
            "command": cfg["command"], "image_size": tinyvlm.IMAGE_SIZE,
            "zipf_exponent": tinyvlm_data.ZIPF_EXPONENT, "stream": "per-example"}
    for step in range(1, steps + 1):
        batch = examples[(step - 1) * batch_size: step * batch_size]
        feats = np.stack([mnist_feats[e.index] if e.source != "shape" else shape_feats[e.index] for e in batch])
        t0 = time.time()
        loss = tinyvlm.caption_loss(vlm, feats, [e.instruction for e in batch], [e.answer for e in batch])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(vlm.projector.parameters(), 1.0)
        opt.step()
        sched.step()
        losses.append(float(loss))
        seconds.append(time.time() - t0)
        say(f"step {step} loss {losses[-1]:.4f} sec {seconds[-1]:.2f} elapsed {time.time() - t_start:.0f}")
        done = (time.time() - t_start) / 60 >= float(cfg["minutes"]) or step == steps
        if step % int(cfg["checkpoint_every"]) == 0 or done:
            meta.update(steps=step, examples=step * batch_size, losses=[round(v, 4) for v in losses],
                        train_seconds=round(sum(seconds), 1), wall_seconds=round(time.time() - t_start, 1))
            tinyvlm.save_projector(vlm.projector, Path(cfg["out"]), meta)
            say(f"checkpoint {cfg['out']} at step {step}")
        if done:
            break
    if log:
        log.close()
    return meta
