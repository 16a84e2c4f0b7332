"""The chapter's reproduction checks (Cabannes et al. 2024, §3–§5), ready for ``claims.check``.

:func:`checks` turns the experiments' results into keyword arguments of :func:`neurips24.claims.check`, so the
notebook's check cell and the planted-bug tests (``tests/mutants``) run the same rules. Every claim rests on
training, so it is judged on a **count of seeds**: a seed passes when its own final measurement passes the
threshold, and the claim holds when more than half of the seeds pass (the count comes with its Wilson
interval, :func:`neurips24.claims.binomial_interval`, and every seed's value). Each control is the same count on
the models that should fail: without CoT, with one layer.
"""
from __future__ import annotations

import numpy as np

from ..claims import binomial_interval
from .experiment import HEAD, Emergence, Transfer

ACC = 0.95
"""Test accuracy at which a seed has *learned* the task (the paper's models reach 1)."""

TRANSFER_COMMAND = "python scripts/iteration_heads_transfer.py"
"""The command that measures the transfer where parity cannot be memorised (L_max = 8, tested on L = 7, 8)."""


def _r(x: float) -> float:
    return round(float(x), 3)


def majority(count: dict) -> bool:
    """The rule of every claim: more than half of the seeds pass (``count`` = {'k': passing, 'n': seeds})."""
    return 2 * count["k"] > count["n"]


def count_above(values, threshold: float) -> dict:
    """{'k': number of values >= threshold, 'n': number of values} (NaN counts as not passing).

    Raises
    ------
    ValueError if ``values`` is empty or not 1-d.
    """
    values = np.asarray(values, dtype=float)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"values must be a non-empty 1-d array of per-seed values, got shape {values.shape}")
    return {"k": int(np.sum(values >= threshold)), "n": int(values.size)}


def long_lengths(L_max: int) -> list[int]:
    """The lengths of the two-layer check: the upper half, L > L_max / 2 (at L_max = 4: L = 3, 4)."""
    return list(range(L_max // 2 + 1, L_max + 1))


def long_accuracy(by_len, L_max: int) -> np.ndarray:
    """(S,) mean accuracy over :func:`long_lengths` from ``by_len`` (S, L_max), the per-length accuracies."""
    by_len = np.asarray(by_len, dtype=float)
    if by_len.ndim != 2 or by_len.shape[1] != L_max:
        raise ValueError(f"by_len must be (S, L_max = {L_max}), got shape {by_len.shape}")
    return by_len[:, [L - 1 for L in long_lengths(L_max)]].mean(axis=1)


def _count_check(values, control_values, threshold, seeds) -> dict:
    count = count_above(values, threshold)
    return dict(measured=count, test=majority, interval=binomial_interval(count["k"], count["n"]),
                per_seed={int(s): _r(v) for s, v in zip(seeds, values, strict=True)},
                control_measured=count_above(control_values, threshold))


def checks(em: Emergence, one, tr: Transfer | None = None, scale: str = "fast") -> dict:
    """{claim_id: keyword arguments of ``claims.check``} for the chapter's four claims.

    Parameters
    ----------
    em : :func:`run_emergence`'s result.   one : :func:`run_one_layer`'s :class:`History`.
    tr : :func:`run_transfer`'s result (used at ``full`` scale; at ``fast`` the transfer claim is NOT RUN HERE).
    scale : 'fast' or 'full'.

    Raises
    ------
    ValueError if the runs have different seeds.
    """
    cfg = em.config
    seeds, S, L_max = list(cfg["seeds"]), len(cfg["seeds"]), cfg["L_max"]
    if len(one.extra["final_acc"]) != S:
        raise ValueError(f"one must have as many seeds as em ({S}), got {len(one.extra['final_acc'])}")
    budget = (f"{S} seeds, {cfg['epochs']} epochs, L <= {L_max}, d = {cfg['d']}, lr {cfg['lr']:g}, "
              f"batch {cfg['batch_size']}")
    out = {}

    c = _count_check(em.cot.extra["final_acc"], em.no_cot.extra["final_acc"], ACC, seeds)
    out["iteration_heads.cot_accuracy"] = dict(
        claim=f"with CoT, a 2-layer 1-head transformer learns polynomial iteration: test accuracy >= {ACC} on "
              f"more than half of the seeds ({budget})",
        measured=c["measured"], test=c["test"], interval=c["interval"], per_seed=c["per_seed"],
        control={"name": "the same seeds without CoT", "measured": c["control_measured"]},
        paper="CoT models learn the task; without CoT they fail", paper_source="abstract; §3")

    lengths = long_lengths(L_max)
    c = _count_check(long_accuracy(em.cot.extra["final_acc_by_len"], L_max),
                     long_accuracy(one.extra["final_acc_by_len"], L_max), ACC, seeds)
    out["iteration_heads.two_layers"] = dict(
        claim=f"the CoT task needs two layers: on the longer lengths L = {lengths[0]} … {lengths[-1]}, 2-layer "
              f"test accuracy >= {ACC} on more than half of the seeds",
        measured=c["measured"], test=c["test"], interval=c["interval"], per_seed=c["per_seed"],
        control={"name": "the same task, data and seeds on 1 layer", "measured": c["control_measured"]},
        paper="two layers implement the iteration head", paper_source="§4 (Fig. 5)")

    c = _count_check(em.cot.extra["final_peaky1"], em.no_cot.extra["final_peaky1"], HEAD, seeds)
    out["iteration_heads.iteration_head"] = dict(
        claim=f"an iteration head forms: layer-2 peakiness (attention from chain position L+t to x_t) >= {HEAD} "
              "on more than half of the seeds",
        measured=c["measured"], test=c["test"], interval=c["interval"], per_seed=c["per_seed"],
        control={"name": "the same score on the models without CoT", "measured": c["control_measured"]},
        paper="peakiness -> 1 as the head emerges", paper_source="§4; AttentionEval in src/cot/evals/cot.py")

    transfer = dict(
        claim="parity fine-tuned from the polynomial models learns faster than from scratch where parity cannot "
              "be memorised (L_max = 8, tested on L = 7, 8): fewer epochs to test accuracy >= 0.95 on more than "
              "half of the seeds",
        paper="the iteration head transfers: parity learned faster after polynomial pre-training",
        paper_source="§5")
    if scale == "fast" or tr is None:
        out["iteration_heads.transfer"] = dict(
            transfer, expect="needs full scale", command=TRANSFER_COMMAND, measured=None)
    else:
        c = _count_check(tr.finetuned.extra["final_acc"], tr.scratch.extra["final_acc"], ACC, seeds)
        out["iteration_heads.transfer"] = dict(
            transfer, claim=f"parity fine-tuned from the polynomial models reaches test accuracy >= {ACC} in "
                            f"{tr.config['ft_epochs']} epochs on more than half of the seeds",
            measured=c["measured"], test=c["test"], interval=c["interval"], per_seed=c["per_seed"],
            control={"name": "parity from scratch, same data and epochs", "measured": c["control_measured"]})
    return out
