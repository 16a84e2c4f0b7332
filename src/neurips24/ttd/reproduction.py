"""The chapter's reproduction checks: each claim's measurement over training seeds, its interval and its control,
ready for ``claims.check`` (CHAPTER.md §7).

Every check runs at the paper's γ = 1 (Eq. 6) and at the official code's γ = 50, on each training seed's held-out
pairs. For the mechanism (covariance, direction of the weights, PSNR to the truth) a seed's value is the share of
its held-out pairs on which the property holds, and the claim holds when the interval of that share over the seeds
(a Student-t interval from 5 seeds; with fewer, the range of the values) lies above 1/2: "on most pairs" on every
seed of the range. For the paper's sharpness metrics (AG, SF; its Tables 1, 2, 4 report means) a seed's value is
the mean relative gain over its pairs, and the claim holds when its interval lies at or above the low end of the
paper's 1–7 %. The control goes through the same rule. SF has none: the reversed weights M − ω raise it by the
paper's amount at the code's γ (a sharpness metric that rewards any change of the weights), so their gain is shown
beside TTD's instead.
"""
from __future__ import annotations

import numpy as np

from ..claims import t_interval
from .experiment import N_SHUFFLES
from .weights import GAMMA_CODE, GAMMA_PAPER

MOST = 0.5          # "on most held-out pairs": the share's interval over seeds lies above one half
PAPER_GAIN = 0.01   # the low end of the paper's +1–7 % sharpness gains
MEAN_GAIN = ("AG", "SF")    # judged by their mean relative gain, as the paper's tables report them

# measurement key -> (the property of one pair, its control's name)
PROPERTIES = {
    "cov": (lambda v: v < 0, "the same weights with their pixels shuffled (their spread without their link to "
                             "each pixel's loss)"),
    "quality": (lambda v: v < 0, "the reconstruction-only network's weights"),
    "AG": (lambda v: v > 0, "reversed weights M − ω"),
    "SF": (lambda v: v > 0, "reversed weights M − ω"),
    "psnr": (lambda v: v >= 0, "reversed weights M − ω"),
}


CONTROL_NAMES = {"psnr_recon": "the reconstruction-only network's TTD over its static rule"}


def shares(results, gamma: float, key: str) -> dict:
    """{seed: share of that seed's held-out pairs where measurement ``key`` at ``gamma`` has its property}; for
    'AG' and 'SF' (:data:`MEAN_GAIN`): {seed: mean relative gain over that seed's pairs}.

    Parameters
    ----------
    results : list of :class:`~neurips24.ttd.experiment.FusionResult` (one per training seed, evaluated).
    gamma : a γ of :data:`~neurips24.ttd.experiment.GAMMAS`.
    key : a key of :data:`PROPERTIES`, or the same key + '_control'; or 'psnr_recon'.

    Raises
    ------
    ValueError for an unknown key or γ, or fewer than 3 results.
    """
    base = key.removesuffix("_control").removesuffix("_recon")
    if base not in PROPERTIES:
        raise ValueError(f"key must be one of {sorted(PROPERTIES)} (or with '_control'), got {key!r}")
    if len(results) < 3:
        raise ValueError(f"results must hold at least 3 training seeds, got {len(results)}")
    out = {}
    for r in results:
        if float(gamma) not in r.per_gamma:
            raise ValueError(f"gamma must be one of {sorted(r.per_gamma)}, got {gamma!r}")
        v = r.per_gamma[float(gamma)][key]
        out[int(r.seed)] = float(np.mean(v if base in MEAN_GAIN else PROPERTIES[base][0](v)))
    return out


def _summary(values: dict, key: str) -> dict:
    iv = t_interval(list(values.values()))
    name = "mean gain" if key in MEAN_GAIN else "mean share"
    return {name: round(iv.estimate, 4), "low": round(iv.low, 4), "high": round(iv.high, 4)}


def _check(results, gamma, key, claim, paper, paper_source, expect="holds", tried=None, fragile=None) -> dict:
    per_seed = {s: round(v, 4) for s, v in shares(results, gamma, key).items()}
    # at the paper's γ TTD's weights point the wrong way (see the chapter), so reversing them is no control for
    # the PSNR: the reconstruction network's TTD, whose weights point the wrong way at both γ, is
    control_key = "psnr_recon" if key == "psnr" and gamma == GAMMA_PAPER else key + "_control"
    control_name = CONTROL_NAMES.get(control_key, PROPERTIES[key][1])
    control = shares(results, gamma, control_key)
    test = (lambda m: m["low"] >= PAPER_GAIN) if key in MEAN_GAIN else (lambda m: m["low"] > MOST)
    measured = _summary(per_seed, key)
    if key == "SF":
        # the reversed weights raise SF by the paper's amount at the code's γ: SF cannot tell the weights'
        # direction, so its claim carries the reversed weights' gain beside it instead of as a control
        measured["reversed weights M − ω: mean gain"] = _summary(control, key)["mean gain"]
    kw = dict(claim=claim, measured=measured, test=test,
              control=None if key == "SF" else {"name": control_name, "measured": _summary(control, key)},
              interval=t_interval(list(per_seed.values())), per_seed=per_seed, paper=paper,
              paper_source=paper_source, expect=expect)
    if tried is not None:
        kw["tried"] = tried
    if fragile is not None:
        kw["fragile"] = fragile
    return kw


def _gname(gamma: float) -> str:
    return f"γ = {gamma:g} ({'the paper' + chr(39) + 's Eq. 6' if gamma == GAMMA_PAPER else 'the official code'})"


def checks(results) -> dict:
    """The keyword arguments of :func:`neurips24.claims.check` for each claim of the chapter, by claim id.

    Parameters
    ----------
    results : list of evaluated :class:`~neurips24.ttd.experiment.FusionResult`, one per training seed (≥ 3),
        e.g. :func:`~neurips24.ttd.experiment.run_seeds`.
    """
    n_seeds, n_pairs = len(results), len(results[0].pairs)
    tried = (f"{n_seeds} training seeds, {n_pairs} held-out pairs each, the official code's sum rule, at the "
             f"paper's γ = {GAMMA_PAPER:g} (Eq. 6) and the code's γ = {GAMMA_CODE:g}; {{}}")
    out = {}
    for gamma, suffix in ((GAMMA_CODE, ""), (GAMMA_PAPER, "_gamma1")):
        g = _gname(gamma)
        out[f"ttd.covariance_negative{suffix}"] = dict(
            claim=f"Theorem 3.1's Σ_m Cov(ω̃_m, ℓ_m) is negative, below its value for every one of "
                  f"{N_SHUFFLES} pixel shuffles of the weights (p < 0.05), on most held-out pairs, {g}",
            paper="weights negatively correlated with ℓ_m lower the bound", paper_source="Theorem 3.1, Eq. 6")
        out[f"ttd.weights_follow_quality{suffix}"] = dict(
            claim=f"corr(ω₁, δ₁ − δ₂) < 0 (more weight where the source is better) on most pairs, {g}",
            paper="RD: a source dominates where its uni-source loss is low", paper_source="Sec. 4, Fig. 3")
        out[f"ttd.ag_gain{suffix}"] = dict(
            claim=f"TTD raises the mean AG over the static rule by at least 1 % (the paper's low end), {g}",
            paper="+1–7 % (IFCNN on LLVIP: AG 5.18 → 5.48)", paper_source="Tables 1, 2, 4")
        out[f"ttd.sf_gain{suffix}"] = dict(
            claim=f"TTD raises the mean SF over the static rule by at least 1 % (the paper's low end), {g}",
            paper="+1–7 % (IFCNN on LLVIP: SF 18.18 → 19.40)", paper_source="Tables 1, 2, 4")
        out[f"ttd.closer_to_truth{suffix}"] = dict(
            claim=f"PSNR to the ground truth: TTD ≥ static on most pairs, {g}",
            paper="not measured (no ground truth)", paper_source="—")
    keys = {"covariance_negative": "cov", "weights_follow_quality": "quality", "ag_gain": "AG", "sf_gain": "SF",
            "closer_to_truth": "psnr"}
    for cid, text in out.items():
        name = cid.split(".", 1)[1]
        gamma = GAMMA_PAPER if name.endswith("_gamma1") else GAMMA_CODE
        key = keys[name.removesuffix("_gamma1")]
        exp = EXPECT.get(cid, {})
        out[cid] = _check(results, gamma, key, text["claim"], text["paper"], text["paper_source"],
                          expect=exp.get("expect", "holds"),
                          tried=tried.format(exp["tried"]) if "tried" in exp else None, fragile=exp.get("fragile"))
    return out


# The recorded expectations (measured on seeds 0–2 and 1000–1002 at 'fast'; see the chapter's text).
_NR = "not reproduced"
EXPECT: dict = {
    "ttd.sf_gain": dict(expect=_NR, tried="SF's mean gain stays below 1 % at both γ, while the reversed weights "
                                          "M − ω raise it by more at γ = 50"),
    "ttd.sf_gain_gamma1": dict(expect=_NR, tried="SF's mean gain stays below 1 % at both γ"),
    "ttd.ag_gain": dict(fragile="AG's mean gain at the code's γ sits near the paper's 1 % low end: the training seeds "
                                 "0-2 give 1.72 %, 2.25 % and 2.93 % (range above 1 %), the seeds 1000-1002 2.55 %, "
                                 "0.81 % and 1.41 % (range [0.81 %, 2.55 %]), so whether every seed clears 1 % depends "
                                 "on the training seeds"),
    "ttd.ag_gain_gamma1": dict(expect=_NR, tried="AG rises by at least 1 % at the code's γ = 50 only"),
    "ttd.weights_follow_quality_gamma1": dict(
        expect=_NR, tried="at γ = 1 the weights follow the edges, where both sources' losses are largest, and "
                          "point the wrong way on most pairs; at γ = 50 the right way"),
    "ttd.closer_to_truth_gamma1": dict(expect=_NR, tried="the PSNR to the truth improves on most pairs at the "
                                                         "code's γ = 50 only"),
}
