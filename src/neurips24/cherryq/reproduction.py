"""The chapter's reproduction checks: each claim beside a control measured the same way (book's own).

:func:`paired_ratio` turns two methods' per-window losses on the same held-out windows into the ratio of their
perplexities with a bootstrap interval over windows (SciPy, through :func:`neurips24.claims.bootstrap_interval`);
:func:`checks` returns the keyword arguments of every :func:`neurips24.claims.check` of the chapter.
"""
from __future__ import annotations

import numpy as np

from ..claims import Interval, bootstrap_interval
from .experiment import PAPER_HS
from .real import RealResult, share_label


def paired_ratio(nll_a, nll_b, level: float = 0.95) -> Interval:
    """Perplexity ratio ppl_a / ppl_b = exp(mean(nll_a − nll_b)) with a paired bootstrap interval over windows.

    Parameters
    ----------
    nll_a, nll_b : (N,) per-window mean losses (nats) of two methods on the same N ≥ 2 windows of equal length;
        or (S, N) for S seeds, averaged over seeds first (a paired comparison per seed, pooled).

    Returns
    -------
    :class:`~neurips24.claims.Interval` of the ratio (estimate, low, high; exp of the bootstrap interval of the
    mean difference). A ratio below 1 means method a has the lower perplexity.

    Raises
    ------
    ValueError if the shapes differ, there are fewer than 2 windows, or a value is not finite.
    """
    a, b = np.asarray(nll_a, dtype=float), np.asarray(nll_b, dtype=float)
    if a.shape != b.shape or a.ndim not in (1, 2) or a.shape[-1] < 2:
        raise ValueError(f"nll_a and nll_b must have the same shape (N,) or (S, N) with N >= 2, got {a.shape}, "
                         f"{b.shape}")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("nll_a and nll_b must be finite")
    d = (a - b).reshape(-1, a.shape[-1]).mean(axis=0)
    iv = bootstrap_interval(d, level=level)
    return Interval(float(np.exp(iv.estimate)), float(np.exp(iv.low)), float(np.exp(iv.high)), iv.level,
                    f"paired {iv.method} over held-out windows, as a perplexity ratio")


def _ratio_record(iv: Interval) -> dict:
    return {"ratio": round(iv.estimate, 4), "95% high": round(iv.high, 4)}


def tail_nll(res: RealResult, method: str) -> np.ndarray:
    """(S, N) per-window losses of one tail method over the run's seeds."""
    return np.stack([res.tail[(method, s)] for s in res.config["tail_seeds"]])


def checks(real: RealResult, toy) -> dict:
    """claim_id -> keyword arguments of :func:`neurips24.claims.check`, for Experiments A (``real``) and B."""
    f = share_label(real.config["fractions"][0])
    lower = lambda r: r["95% high"] < 1          # noqa: E731  the interval's upper end below 1: a margin
    out = {}

    med_i, med_m = float(np.median(real.hs_impact)), float(np.median(real.hs_magnitude))
    lo, hi = PAPER_HS["impact"]
    out["cherryq.heterogeneity"] = dict(
        claim=f"the median impact heterogeneity score of SmolLM2's decoder matrices lies in the paper's range "
              f"{lo:g} to {hi:g}", measured=round(med_i, 3), test=lambda m: lo <= m <= hi,
        interval=bootstrap_interval(real.hs_impact, statistic=np.median),
        control={"name": "the same score of the magnitudes |w|", "measured": round(med_m, 3)},
        paper=f"impact HS {lo:g} to {hi:g}, magnitude HS {PAPER_HS['magnitude'][0]:g} to "
              f"{PAPER_HS['magnitude'][1]:g} per matrix", paper_source="official README, heterogeneity figure")

    zp = real.nll["RTN, zero-point (asymmetric)"]
    iv = paired_ratio(real.nll[f"impact {f}"], zp)
    ctrl = paired_ratio(real.nll[f"random {f}"], zp)
    out["cherryq.cherries_vs_rtn"] = dict(
        claim=f"3-bit PTQ keeping {f} of each row (cherries by impact, official grid) has lower perplexity than "
              f"zero-point RTN (ratio < 1, 95% interval)", measured=_ratio_record(iv), test=lower, interval=iv,
        control={"name": f"random cherries, {f}", "measured": _ratio_record(ctrl)},
        paper="CherryQ below the RTN-type baselines at 3 bits (with training)", paper_source="Sec. 6.2, Table 1")

    for other, paper in (("magnitude", "impact is the best selection criterion"),
                         ("activation", "impact is the best selection criterion (weight, activation, impact)")):
        iv = paired_ratio(real.nll[f"impact {f}"], real.nll[f"{other} {f}"])
        ctrl = paired_ratio(real.nll[f"random {f}"], real.nll[f"{other} {f}"])
        what = "magnitude" if other == "magnitude" else "input activation"
        out[f"cherryq.impact_vs_{other}"] = dict(
            claim=f"cherries chosen by impact beat cherries chosen by {what} (3-bit PTQ, {f}; ratio < 1)",
            measured=_ratio_record(iv), test=lower, interval=iv,
            control={"name": f"random cherries against {other}", "measured": _ratio_record(ctrl)},
            paper=paper, paper_source="Sec. 6.4")

    iv = paired_ratio(tail_nll(real, "CherryQ (impact)"), tail_nll(real, "QAT"))
    ctrl = paired_ratio(tail_nll(real, "CherryQ (random)"), tail_nll(real, "QAT"))
    n_seeds = len(real.config["tail_seeds"])
    out["cherryq.cherryq_vs_qat"] = dict(
        claim=f"CherryQ (impact cherries) ends below QAT after the same training of SmolLM2's last "
              f"{real.config['tail_blocks']} block(s), paired over {n_seeds} seeds (ratio < 1)",
        measured=_ratio_record(iv), test=lower, interval=iv,
        control={"name": "CherryQ with random cherries against QAT", "measured": _ratio_record(ctrl)},
        paper="CherryQ 7.34 vs QAT 8.74 (C4, LLaMA2-7B, 3-bit g64)", paper_source="Table 1")

    toy_hs = [toy.hs[(s, n)][0] for s in toy.seeds for n in ("fc1", "fc2")]
    toy_mag = [toy.hs[(s, n)][2] for s in toy.seeds for n in ("fc1", "fc2")]
    out["cherryq.toy_heterogeneity"] = dict(
        claim=f"the character MLP trained here is as heterogeneous as an LLM: median impact HS "
              f"({toy.config['n_fisher']} Fisher samples) in {lo:g} to {hi:g}",
        measured=round(float(np.median(toy_hs)), 3), test=lambda m: lo <= m <= hi, expect="not reproduced",
        interval=bootstrap_interval(toy_hs, statistic=np.median),
        control={"name": "the same score of the magnitudes", "measured": round(float(np.median(toy_mag)), 3)},
        paper=f"impact HS {lo:g} to {hi:g} (LLMs of 7B to 13B)", paper_source="official README")
    return out
