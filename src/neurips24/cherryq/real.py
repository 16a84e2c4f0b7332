"""Experiment A: SmolLM2-135M-Instruct — heterogeneity, 3-bit PTQ baselines and cherries, CherryQ vs QAT.

Paper: the heterogeneity figure (Sec. 4), the 3-bit perplexity tables (Sec. 6.2, Table 1), the comparison of
selection criteria (Sec. 6.4). Sized by the run scale (``CONFIG[scale]['real']`` in :mod:`.experiment`).

1. Fisher impact of every decoder matrix from ``n_calib`` calibration windows (batch size 1, as the official
   ``estimate_impact.py``), with the inputs' E[x_j²] recorded in the same pass (the activation criterion) and
   the hidden states entering the last ``tail_blocks`` blocks kept for step 3.
2. Post-training quantization of all 210 decoder matrices at ``bits`` / ``group_size``: round-to-nearest on
   three grids (the official one without a zero level, the symmetric one with a zero level, asymmetric
   min–max with a zero point), and the official grid with cherries chosen by impact, magnitude, activation
   and at random, at each cherry share. Perplexity from per-window losses on held-out windows.
3. QAT and CherryQ on the last ``tail_blocks`` blocks (:mod:`.tail`): the same steps, data and seeds; cherries
   by each criterion.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import torch
from tqdm.auto import tqdm

from .charlm import lm_nll
from .impact import fisher_lm, heterogeneity_score
from .qat import quantized_weights
from .quantizer import num_cherries, select_cherries
from .selection import cherry_scores, input_second_moments, outlier_column_share
from .tail import capture_block_input, run_tail_method, tail_blocks, tail_linear_names, tail_nll

GRIDS_RTN = {"RTN, official grid (no zero)": "official", "RTN, symmetric grid with zero": "zero-level",
             "RTN, zero-point (asymmetric)": "zero-point"}


def share_label(fraction: float) -> str:
    """'1/256' for 1/256: the share as the paper writes it."""
    return f"1/{round(1 / fraction)}"


@dataclass
class RealResult:
    """What Experiment A measured.

    names : the 210 decoder matrices, model order.   hs_impact, hs_magnitude : (210,) float heterogeneity scores.
    nll : label -> (N_eval,) float64 per-window mean next-token loss (nats) on the held-out windows; labels
        'reference', the three RTN grids of ``GRIDS_RTN``, and '<criterion> <share>' for cherries on the
        official grid, e.g. 'impact 1/256'.
    k : share -> name -> cherries per row.   outlier : criterion -> mean over matrices of the share of its
        cherries (at the first share) that fall in the k most frequent input columns.
    tail : (method, seed) -> (N_eval,) per-window loss after QAT / CherryQ on the last blocks; method 'QAT' or
        'CherryQ (<criterion>)'; seed 'PTQ' for the starting point (0 steps).
    losses : (method, seed) -> (steps,) float64 training loss (nats per token) of every step of a tail run.
    replay : at ``fast`` scale, when the trained runs were read from the shipped record
        (:func:`neurips24.cherryq.shipped.use_shipped_training`): what the live replay of their first steps gave.
    """

    names: list
    hs_impact: np.ndarray
    hs_magnitude: np.ndarray
    nll: dict
    k: dict
    outlier: dict
    tail: dict
    seconds: dict
    config: dict
    tokens: dict = field(default_factory=dict)
    losses: dict = field(default_factory=dict)
    replay: dict = field(default_factory=dict)
    cache: dict = field(default_factory=dict, repr=False)

    def ppl(self, label: str) -> float:
        """Held-out perplexity exp(mean per-window loss) of one PTQ variant."""
        return float(np.exp(np.mean(self.nll[label])))

    def tail_ppl(self, method: str, seed) -> float:
        """Held-out perplexity after one tail run."""
        return float(np.exp(np.mean(self.tail[(method, seed)])))


def run_real_model(cfg: dict, loaded=None, progress: bool = True) -> RealResult:
    """Steps 1 and 2 of Experiment A with the configuration ``cfg`` (a ``CONFIG[scale]['real']``); the inputs of
    step 3 (:func:`run_real_training`) are kept in ``cache``."""
    from .. import seeding
    from ..assets import load_smollm
    from .corpus import split_text, token_windows
    from .smollm import decoder_linears

    cfg = dict(cfg)
    cfg.setdefault("tail_seeds", seeding.seeds(cfg.get("n_tail_seeds", 3)))
    seconds = {}
    loaded = load_smollm(verbose=False) if loaded is None else loaded
    model, tok = loaded.model, loaded.tokenizer
    t0 = time.perf_counter()
    device = "cuda" if torch.cuda.is_available() else "cpu"     # full scale on a GPU; fast on the CPU
    model.to(device)
    train, held = split_text()
    calib = token_windows(tok, train, cfg["seq_len"], cfg["n_calib"]).to(device)
    evals = token_windows(tok, held, cfg.get("eval_len", cfg["seq_len"]), cfg["n_eval"], spread=True).to(device)
    n_train = cfg.get("n_train")
    train_ids = calib if not n_train else token_windows(tok, train, cfg["seq_len"], n_train, spread=True).to(device)
    mods = decoder_linears(model)
    names = list(mods)
    start = len(model.model.layers) - cfg["tail_blocks"]
    seconds["tokenize"] = time.perf_counter() - t0

    t0 = time.perf_counter()                        # 1. Fisher, E[x^2], tail inputs: one pass over calib
    with capture_block_input(model, start) as h_cal, input_second_moments(mods) as act_sq:
        H = fisher_lm(model, calib, mods, progress=progress)
    h_train = torch.cat(h_cal)
    if n_train:                                     # the training text of step 3: block inputs only, cached
        with capture_block_input(model, start) as h_tr, torch.no_grad():
            for i in range(0, len(train_ids), 8):
                model.model(input_ids=train_ids[i:i + 8])
        h_train = torch.cat(h_tr)
    hs_i = np.array([heterogeneity_score(H[n]) for n in names])
    hs_m = np.array([heterogeneity_score(mods[n].weight.abs()) for n in names])
    seconds["Fisher"] = time.perf_counter() - t0

    t0 = time.perf_counter()                        # cherries per criterion and share
    gen = torch.Generator().manual_seed(cfg["seed"])
    k = {f: {n: num_cherries(mods[n].in_features, f, multiple=1) for n in names} for f in cfg["fractions"]}
    picks = {}
    for crit in cfg["criteria"]:                    # top-k is sorted: the smaller share is a prefix of the larger
        fs = [f for f in cfg["fractions"] if f == cfg["fractions"][0] or cfg["ptq"] == "all" or (crit, f) in cfg["ptq"]]
        top = {n: select_cherries(cherry_scores(crit, mods[n].weight, H[n], act_sq[n], gen),
                                  max(k[f][n] for f in fs)) for n in names}
        for f in fs:
            picks[(crit, f)] = {n: top[n][:, :k[f][n]] for n in names}
    f0 = cfg["fractions"][0]
    outlier = {c: float(np.mean([outlier_column_share(picks[(c, f0)][n], tuple(mods[n].weight.shape))
                                 for n in names])) for c in cfg["criteria"]}
    del H
    seconds["cherries"] = time.perf_counter() - t0

    t0 = time.perf_counter()                        # 2. PTQ of all decoder matrices
    nll = {}
    with capture_block_input(model, start) as h_ev:
        nll["reference"] = lm_nll(model, evals)
    h_eval = torch.cat(h_ev)
    jobs = [(lab, None, g) for lab, g in GRIDS_RTN.items()]
    jobs += [(f"{c} {share_label(f)}", picks[(c, f)], "official") for f in cfg["fractions"] for c in cfg["criteria"]
             if cfg["ptq"] == "all" or (c, f) in cfg["ptq"]]
    for label, cherries, grid in tqdm(jobs, disable=None if progress else True, desc="PTQ", leave=False):
        with quantized_weights(mods, cfg["bits"], cfg["group_size"], cherries, grid):
            nll[label] = lm_nll(model, evals)
    seconds["PTQ"] = time.perf_counter() - t0

    return RealResult(names=names, hs_impact=hs_i, hs_magnitude=hs_m, nll=nll, k=k, outlier=outlier, tail={},
                      seconds=seconds, config=cfg,
                      tokens={"calibration": int(calib.numel()), "evaluation": int(evals.numel()),
                              "training": int(train_ids.numel())},
                      cache=dict(h_train=h_train, h_eval=h_eval, calib=train_ids, evals=evals, picks=picks,
                                 start=start))


def run_real_training(res: RealResult, loaded, progress: bool = True) -> RealResult:
    """Step 3 of Experiment A: QAT and CherryQ on the last ``tail_blocks`` blocks, for every seed (fills
    ``res.tail`` and ``res.losses`` and drops the cached hidden states). ``loaded`` is the model
    :func:`run_real_model` used."""
    cfg, cached, model = res.config, res.cache, loaded.model
    if not cached:
        raise ValueError("res holds no cached inputs: pass the result of run_real_model, once")
    t0 = time.perf_counter()                        # 3. QAT / CherryQ on the last blocks
    tail = {("reference", "PTQ"): tail_nll(model, tail_blocks(model, cfg["tail_blocks"]), cached["h_eval"],
                                           cached["evals"])}
    methods = tail_methods(res, model)
    runs = [(m, "PTQ") for m in methods] + [(m, s) for s in cfg["tail_seeds"] for m in methods]
    for method, seed in tqdm(runs, disable=None if progress else True, desc="QAT", leave=False):
        out = run_tail(res, loaded, method, seed, methods=methods)
        tail[(method, seed)] = out["nll"]
        if seed != "PTQ":
            res.losses[(method, seed)] = np.asarray(out["losses"], dtype=float)
    res.seconds["QAT"] = time.perf_counter() - t0
    res.tail.update(tail)
    res.cache = {}
    return res


def tail_methods(res: RealResult, model) -> dict:
    """method -> cherries of the tail's matrices (name inside the tail -> (out, k) indices; None for QAT), at the
    first cherry share: 'QAT' and 'CherryQ (<criterion>)' for each of ``tail_criteria``.

    Raises
    ------
    ValueError if ``res`` holds no cached inputs (it was trained already).
    """
    cfg, cached = res.config, res.cache
    if not cached:
        raise ValueError("res holds no cached inputs: pass the result of run_real_model, once")
    f0, start, picks = cfg["fractions"][0], cached["start"], cached["picks"]
    tail_names = tail_linear_names(tail_blocks(model, cfg["tail_blocks"]))
    full = {t: f"model.layers.{start + int(t.split('.')[0])}.{t.split('.', 1)[1]}" for t in tail_names}
    return {"QAT": None, **{f"CherryQ ({c})": {t: picks[(c, f0)][full[t]] for t in tail_names}
                            for c in cfg["tail_criteria"]}}


def run_tail(res: RealResult, loaded, method: str, seed, stop: int | None = None, methods: dict | None = None) -> dict:
    """One tail run of Experiment A from the cached inputs of ``res`` (not consumed).

    Parameters
    ----------
    method : a key of :func:`tail_methods` ('QAT', 'CherryQ (impact)', ...).
    seed : an int (``tail_steps`` steps of training) or 'PTQ' (0 steps: the quantized start).
    stop : run only the first ``stop`` steps of the ``tail_steps``-step schedule (a prefix of the full run).
    methods : the result of :func:`tail_methods` (computed when None).

    Returns
    -------
    dict 'nll' (N_eval,) per-window held-out loss after the run, 'losses' the training loss of every step run.

    Raises
    ------
    ValueError for an unknown method or a ``res`` without cached inputs.
    """
    cfg, cached = res.config, res.cache
    methods = tail_methods(res, loaded.model) if methods is None else methods
    if method not in methods:
        raise ValueError(f"method must be one of {sorted(methods)}, got {method!r}")
    tcfg = dict(steps=0 if seed == "PTQ" else cfg["tail_steps"], lr=cfg["tail_lr"], batch=cfg["tail_batch"],
                positions=cfg["tail_positions"], stop=stop)
    return run_tail_method(loaded.model, cached["h_train"], cached["calib"], cached["h_eval"], cached["evals"],
                           cfg["tail_blocks"], cfg["bits"], cfg["group_size"], methods[method], tcfg,
                           seed=0 if seed == "PTQ" else seed)
