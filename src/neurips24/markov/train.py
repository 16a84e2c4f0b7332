"""Training an ensemble of one-layer transformers on the chain, with the official code's optimiser.

AdamW (β = (0.9, 0.95), weight decay 1e-3 on the attention and MLP matrices only), a one-cycle cosine schedule
with 2 % warm-up (``div_factor`` 100, ``final_div_factor`` 0.05), batch 16, fresh sequences every step
(``Markov-Simple/src/config/markov.py`` and ``main.py``; ``Markov-LLM`` has the same). The paper's Fig. 4 runs use
lr 1e-3 over 5000 iterations (``Markov-Simple/src/schedule2.sh`` at f3a2ec1). ``schedule_steps`` is the length of
the schedule and ``steps`` how many of its steps are run: a shortened run follows the paper's learning-rate
curve up to ``steps`` instead of compressing the whole schedule into fewer steps. The paper trains in fp16
autocast on a GPU; here float32.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch
from tqdm.auto import tqdm

from ..checks import check_count
from .canonical import read_coordinates
from .chain import bigram_loss, check_pq, sample_chain, unigram_loss
from .model import INITS, VARIANTS, EnsembleTransformer, initialize


@dataclass
class TrainResult:
    """What :func:`train_ensemble` returns. M models, ``steps`` steps, K recorded readings of (e, w)."""

    p: float
    q: float
    seeds: list            # (M,) seed of each model (initialisation and training data)
    inits: list            # (M,) initialisation of each model (one of model.INITS)
    curves: np.ndarray     # (M, steps) training loss of each model per step (nats)
    oracle_curves: np.ndarray  # (M, steps) loss of the true bigram predictor on the same batches (nats)
    final: np.ndarray      # (M,) held-out loss after training (nats)
    oracle: np.ndarray     # (M,) held-out loss of the true bigram predictor on the same sequences (nats)
    bigram: float          # population bigram loss π₀h(p) + π₁h(q) (nats)
    unigram: float         # population unigram loss h(π₁) (nats)
    variant: str = "llm"
    record_steps: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))   # (K,) steps of readings
    e: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))   # (M, K) embedding norm e read off
    w: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))   # (M, K) MLP coordinate w read off

    @property
    def gap(self) -> float:
        """unigram − bigram loss (nats), the gap a run closes when it escapes the unigram minimum."""
        return self.unigram - self.bigram

    def progress(self) -> np.ndarray:
        """(M,) fraction of the unigram-to-bigram gap closed by the held-out loss: (unigram − L) / gap, with the
        model's loss L measured against the oracle on the same sequences (L = final − oracle + bigram)."""
        return (self.unigram - (self.final - self.oracle + self.bigram)) / self.gap

    def progress_curves(self, window: int = 25) -> np.ndarray:
        """(M, steps − window + 1) the same fraction along training, from the training loss minus the oracle's on
        the same batch (which removes most of the batch-to-batch noise), averaged over ``window`` steps.
        Column j is the average over steps j .. j + window − 1. Raises ValueError unless 1 <= window <= steps."""
        window = check_count("window", window, 1)
        if window > self.curves.shape[1]:
            raise ValueError(f"window must be <= steps = {self.curves.shape[1]}, got {window}")
        excess = self.curves - self.oracle_curves
        kernel = np.ones(window) / window
        smooth = np.stack([np.convolve(c, kernel, mode="valid") for c in excess])
        return (self.unigram - (smooth + self.bigram)) / self.gap

    def reached_bigram(self, threshold: float = 0.9) -> np.ndarray:
        """(M,) bool: the model closed at least ``threshold`` of the unigram-to-bigram gap (held-out)."""
        return self.progress() >= threshold

    def at_unigram(self, threshold: float = 0.1) -> np.ndarray:
        """(M,) bool: the model closed at most ``threshold`` of the gap (it ends at the unigram loss)."""
        return self.progress() <= threshold

    def escape_step(self, level: float = 0.5, window: int = 25) -> np.ndarray:
        """(M,) float: the first step at which the smoothed progress (:meth:`progress_curves`) reaches
        ``level`` of the gap, counted at the end of its window; NaN for a model that never does (censored)."""
        pc = self.progress_curves(window)
        out = np.full(len(pc), np.nan)
        for m, c in enumerate(pc):
            hit = np.flatnonzero(c >= level)
            if hit.size:
                out[m] = hit[0] + window
        return out

    def select(self, init: str) -> np.ndarray:
        """(M,) bool mask of the models with initialisation ``init``. Raises ValueError if there is none."""
        sel = np.array(self.inits) == init
        if not sel.any():
            raise ValueError(f"init must be one of the run's initialisations {sorted(set(self.inits))}, got {init!r}")
        return sel

    def count(self, init: str, threshold: float = 0.9) -> tuple[int, int]:
        """(k, n): of the n models with initialisation ``init``, k reached the bigram loss."""
        sel = self.select(init)
        return int(self.reached_bigram(threshold)[sel].sum()), int(sel.sum())

    def fraction(self, init: str, threshold: float = 0.9) -> float:
        """Fraction of the models with initialisation ``init`` that reached the bigram loss."""
        k, n = self.count(init, threshold)
        return k / n


def oracle_prob_one(x: torch.Tensor, p: float, q: float) -> torch.Tensor:
    """The bigram (true) predictor P(x_{t+1} = 1 | x_t): p after a 0, 1 − q after a 1. x (..., T) → (..., T)."""
    return torch.where(x == 1, 1.0 - q, p)


def oracle_loss(x: torch.Tensor, p: float, q: float) -> torch.Tensor:
    """Cross-entropy (nats) of the true bigram predictor on x (..., B, T), averaged over the last two axes."""
    prob = oracle_prob_one(x[..., :-1], p, q).double()
    y = x[..., 1:]
    return -torch.where(y == 1, torch.log(prob), torch.log1p(-prob)).mean(dim=(-2, -1))


def _real(name, value, low=None, high=None, low_open=False):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    bad_low = low is not None and (value <= low if low_open else value < low)
    if bad_low or (high is not None and value > high):
        lo = "(" if low_open else "["
        raise ValueError(f"{name} must lie in {lo}{low}, {high if high is not None else 'inf'}], got {value!r}")
    return float(value)


class _Batches:
    """Fresh training sequences for each seed, drawn ``chunk`` steps at a time from the seed's own generator."""

    def __init__(self, p, q, seeds, batch, length, chunk):
        self.p, self.q, self.batch, self.length, self.chunk = p, q, batch, length, chunk
        self.gens = {s: torch.Generator().manual_seed(10_000 + s) for s in sorted(set(seeds))}
        self.seeds, self.store, self.start = seeds, {}, None

    def __call__(self, it):
        if self.start is None or it >= self.start + self.chunk:
            self.start = it
            self.store = {s: sample_chain(self.p, self.q, self.chunk * self.batch, self.length, g)
                          .to(torch.uint8).reshape(self.chunk, self.batch, self.length) for s, g in self.gens.items()}
        return torch.stack([self.store[s][it - self.start] for s in self.seeds]).long()


def train_ensemble(p: float, q: float, seeds, inits, *, variant: str = "llm", steps: int = 400,
                   schedule_steps: int | None = None, batch: int = 16, length: int = 256, d_model: int = 8,
                   lr: float = 2e-3, weight_decay: float = 1e-3, warmup: float = 0.02, n_eval: int = 128,
                   record_every: int = 0, n_probe: int = 4, chunk: int = 100, progress: bool = True,
                   device: str | None = None) -> TrainResult:
    """Train M = len(seeds) independent transformers at once, model m from ``seeds[m]`` with ``inits[m]``.

    Model m's initial weights and its training batches come from its seed alone, so two models with the same
    seed and different initialisations see the same data. After training every model is evaluated on the same
    ``n_eval`` fresh sequences, next to the true bigram predictor.

    Parameters
    ----------
    p, q : switching probabilities in (0, 1).
    seeds : (M,) ints >= 0.   inits : (M,) names from ``model.INITS`` ('standard', 'good', 'ashok').
    variant : 'simple' (no LayerNorm, ReLU: the paper's Fig. 4 model) or 'llm' (LayerNorm, GELU).
    steps : optimiser steps run, >= 1.   schedule_steps : length of the one-cycle schedule, >= steps
    (default: steps).   batch : sequences per step >= 1.   length : T >= 2.   d_model : width d >= 1.
    lr : peak learning rate > 0.   weight_decay : >= 0.   warmup : fraction of schedule_steps warming up, (0, 1).
    n_eval : held-out sequences >= 1.   record_every : read (e, w) off every model (:mod:`.canonical`) at step 0
    and every ``record_every`` steps (0: never), on ``n_probe`` >= 1 fixed probe sequences.
    chunk : steps of training data drawn at a time, >= 1.
    progress : show a tqdm bar.   device : torch device; default 'cuda' when torch sees a GPU, else 'cpu'.

    Returns
    -------
    TrainResult.

    Raises
    ------
    ValueError naming the argument on p, q outside (0, 1), an unknown variant or init, mismatched or empty
    seeds/inits, a negative seed, a size that is not an integer in range (a float such as steps=2.5 included),
    schedule_steps < steps, lr, weight_decay, warmup out of range or not finite, or warmup · schedule_steps = 1.
    """
    p, q = check_pq(p, q)
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    seeds, inits = list(seeds), list(inits)
    if len(seeds) != len(inits) or not seeds:
        raise ValueError(f"seeds and inits must be non-empty lists of the same length, got {len(seeds)} and "
                         f"{len(inits)}")
    for s in seeds:
        check_count("seeds (each)", s, 0)
    seeds = [int(s) for s in seeds]
    for kind in inits:
        if kind not in INITS:
            raise ValueError(f"inits must hold values in {INITS}, got {kind!r}")
    steps = check_count("steps", steps, 1)
    schedule_steps = steps if schedule_steps is None else check_count("schedule_steps", schedule_steps, steps)
    batch, length = check_count("batch", batch, 1), check_count("length", length, 2)
    d_model, n_eval = check_count("d_model", d_model, 1), check_count("n_eval", n_eval, 1)
    record_every, chunk = check_count("record_every", record_every, 0), check_count("chunk", chunk, 1)
    n_probe = check_count("n_probe", n_probe, 1)
    lr = _real("lr", lr, 0.0, low_open=True)
    weight_decay = _real("weight_decay", weight_decay, 0.0)
    warmup = _real("warmup", warmup, 0.0, 1.0, low_open=True)
    if warmup >= 1.0:
        raise ValueError(f"warmup must lie in (0, 1), got {warmup!r}")
    if warmup * schedule_steps == 1.0:      # torch's OneCycleLR divides by zero on a one-step warm-up
        raise ValueError(f"warmup · schedule_steps must not be exactly 1 (a one-step warm-up), got warmup={warmup!r}, "
                         f"schedule_steps={schedule_steps!r}")

    M = len(seeds)
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    model = initialize(EnsembleTransformer(M, d_model, length, variant), seeds, inits).to(device)
    opt = torch.optim.AdamW([{"params": model.matrices(), "weight_decay": weight_decay},
                             {"params": model.others(), "weight_decay": 0.0}], lr=lr, betas=(0.9, 0.95))
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=schedule_steps, pct_start=warmup,
                                                anneal_strategy="cos", cycle_momentum=False, div_factor=1e2,
                                                final_div_factor=0.05)
    batches = _Batches(p, q, seeds, batch, length, min(chunk, steps))
    probe = sample_chain(p, q, n_probe, length, torch.Generator().manual_seed(424_242)).expand(M, n_probe, length)
    probe = probe.to(device)
    rec_steps, es, ws = [], [], []

    def record(it):
        if record_every and (it % record_every == 0 or it == steps):
            out = read_coordinates(model, probe)
            rec_steps.append(it)
            es.append(out["e"])
            ws.append(out["w"])

    curves, oracle_curves = np.empty((M, steps)), np.empty((M, steps))
    record(0)
    for it in tqdm(range(steps), desc=f"train {variant} p={p}, q={q}", disable=None if progress else True):
        x = batches(it).to(device)                                   # (M, B, T)
        losses = model.loss_per_model(x)
        opt.zero_grad(set_to_none=True)
        losses.sum().backward()
        opt.step()
        sched.step()
        curves[:, it] = losses.detach().cpu().numpy()
        oracle_curves[:, it] = oracle_loss(x.cpu(), p, q).numpy()
        record(it + 1)
    x_eval = sample_chain(p, q, n_eval, length, torch.Generator().manual_seed(999_983))
    with torch.no_grad():
        final = model.loss_per_model(x_eval.expand(M, n_eval, length).to(device)).cpu().numpy().astype(np.float64)
    oracle = float(oracle_loss(x_eval, p, q))
    if not np.all(np.isfinite(curves)) or not np.all(np.isfinite(final)):
        raise FloatingPointError(f"training diverged (non-finite loss) at lr={lr!r}: lower lr")
    return TrainResult(p, q, seeds, inits, curves, oracle_curves, final, np.full(M, oracle), bigram_loss(p, q),
                       unigram_loss(p, q), variant, np.array(rec_steps, dtype=int),
                       np.array(es).T if es else np.zeros((M, 0)), np.array(ws).T if ws else np.zeros((M, 0)))
