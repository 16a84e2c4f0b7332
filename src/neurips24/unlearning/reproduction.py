"""The chapter's reproduction checks: each claim's per-seed values, t-interval over seeds and control, ready for
``claims.check`` (the notebook's check cell and the mutant tests run the same rules).

Every claim rests on training, so it is judged on the seeds' aggregate: the mean over seeds must reach the
claim's threshold **and** the Student-t interval of the per-seed values must exclude "no effect" (0, or a ratio
of 1). The measurements come from :func:`.experiment.claim_measures`.
"""
from __future__ import annotations

import numpy as np

from ..claims import t_interval
from .experiment import RUM_LABELS, UnlearningResult, claim_measures

FULL_COMMAND = ("NEURIPS24_SCALE=full .venv/bin/python -m pytest --nbmake --nbmake-timeout=7200 "
                "notebooks/unlearning_difficulty.ipynb (MNIST 5,000, 200 memorization models, 6 seeds; one GPU)")
FORGET_TARGETED = ("NegGrad+", "SCRUB")


def _r(x) -> float:
    return float(f"{float(x):.4g}")


def _per_seed(res: UnlearningResult, values) -> dict:
    return {int(s): _r(v) for s, v in zip(res.seeds, values, strict=True)}


def _summary(values) -> dict:
    iv = t_interval(values)
    return {"mean": _r(iv.estimate), "interval low": _r(iv.low)}


def _aggregate(values, threshold: float, null: float = 0.0) -> tuple:
    """(measured dict, test, interval): mean > threshold and the t-interval's lower end > null."""
    return _summary(values), (lambda m: m["mean"] > threshold and m["interval low"] > null), t_interval(values)


def memorization_noise(res, meas) -> dict:
    measured, test, iv = _aggregate(meas["mem_gap"], 0.5)
    return dict(claim="the memorization estimate separates flipped-label points from clean ones: mean gap "
                      "mem(flipped) - mem(clean) > 0.5 over seeds (t-interval above 0)",
                measured=measured, test=test, interval=iv, per_seed=_per_seed(res, meas["mem_gap"]),
                paper="mislabelled/atypical points are highly memorized",
                paper_source="Sec. 3 (Feldman & Zhang estimator)",
                control={"name": "the same gap with the flag moved to as many random clean points (mean)",
                         "measured": _summary(meas["mem_gap_control"])})


def c_proxy(res, meas) -> dict:
    measured, test, iv = _aggregate(-meas["spearman"], 0.3)
    return dict(claim="the C-proxy is negatively rank-correlated with mem: minus Spearman's rho > 0.3 on average "
                      "over seeds (t-interval above 0)",
                measured=measured, test=test, interval=iv, per_seed=_per_seed(res, -meas["spearman"]),
                paper="C-proxy strongly (negatively) correlated with mem", paper_source="follow-up, arXiv 2410.16516",
                control={"name": "minus Spearman with the C-proxy shuffled across points (mean)",
                         "measured": _summary(-meas["spearman_control"])})


def tow_memorization(res, meas, method: str, metric: str = "tow") -> dict:
    key = f"drop_{method}" if metric == "tow" else f"drop_mia_{method}"
    name = "ToW" if metric == "tow" else "ToW-MIA"
    measured, test, iv = _aggregate(meas[key], 0.2)
    return dict(claim=f"{name} of '{method}' falls by > 0.2 from the low- to the high-memorization forget set "
                      f"(mean over seeds, t-interval above 0)",
                measured=measured, test=test, interval=iv, per_seed=_per_seed(res, meas[key]),
                paper="more memorized forget sets are harder to unlearn (ToW and ToW-MIA)",
                paper_source="abstract; Sec. 4",
                control={"name": f"{name}(low) - {name}(random set of the same size), mean",
                         "measured": _summary(meas[f"{key}_control"])})


def forget_targeted(res, meas) -> dict:
    gains = {m: meas[f"targeted_{m}"] for m in FORGET_TARGETED}
    ivs = {m: t_interval(g) for m, g in gains.items()}
    worst = min(FORGET_TARGETED, key=lambda m: ivs[m].low)
    return dict(claim="methods that act on the forget set (NegGrad+, SCRUB) unlearn the most memorized set: "
                      "ToW(method, high) - ToW(nothing, high) > 0.2 on average over seeds, t-interval above 0, "
                      "for each",
                measured={m: {"mean": _r(iv.estimate), "interval low": _r(iv.low)} for m, iv in ivs.items()},
                test=lambda d: all(v["mean"] > 0.2 and v["interval low"] > 0 for v in d.values()),
                interval=ivs[worst],
                per_seed={int(s): {m: _r(gains[m][i]) for m in FORGET_TARGETED} for i, s in enumerate(res.seeds)},
                paper="unlearning algorithms improve on the original model (ToW), most on hard forget sets",
                paper_source="Sec. 4, Figs. 2-3",
                control={"name": "the same gain on the low-memorization set, where doing nothing is already "
                                 "close to retraining (means)",
                         "measured": {m: _summary(meas[f"targeted_{m}_control"]) for m in FORGET_TARGETED}})


def es_ordering(res, meas) -> dict:
    iv, civ = t_interval(np.log(meas["es_ratio"])), t_interval(np.log(meas["es_ratio_control"]))
    return dict(claim="the forget set nearest the embedding's centroid has a higher ES than the farthest: geometric "
                      "mean of ES(near) / ES(far) over seeds > 1.5, t-interval of the log ratio above 0",
                measured={"geometric mean": _r(np.exp(iv.estimate)), "interval low": _r(np.exp(iv.low))},
                test=lambda m: m["geometric mean"] > 1.5 and m["interval low"] > 1,
                interval=iv, per_seed=_per_seed(res, meas["es_ratio"]),
                paper="points closer to the centroid give a higher ES", paper_source="official cluster.py / overlap.py",
                control={"name": "the same builder on row-shuffled embeddings (median of 25 random pairs), "
                                 "geometric mean over seeds",
                         "measured": {"geometric mean": _r(np.exp(civ.estimate)), "interval low": _r(np.exp(civ.low))}})


def es_tow_mean(res, meas) -> dict:
    measured, test, iv = _aggregate(meas["es_tow_seed"], 0.05)
    return dict(claim="ToW(low-ES set) - ToW(high-ES set), averaged over the six methods, > 0.05 on average over "
                      "seeds (t-interval above 0)",
                measured=measured, test=test, interval=iv, per_seed=_per_seed(res, meas["es_tow_seed"]),
                paper="higher ES gives lower ToW", paper_source="abstract; Sec. 4",
                control={"name": "ToW(random) - ToW(low-mem), two sets of similar ES (mean)",
                         "measured": _summary(meas["es_tow_seed_control"])},
                expect="not reproduced",
                tried=f"{len(res.seeds)} seeds at fast (and as many others in the reseed build): digits MLP, k = 30, "
                      "U = 30 full-batch Adam steps; the mean gap is positive on both seed sets but one seed in six "
                      "reverses it, so the t-interval's lower end sits near 0 (just below it at seeds 0-5, just "
                      "above it at seeds 1000-1005); the paper's CIFAR-10 / ResNet-18 with 3,000-point sets is not "
                      "run",
                fragile="the interval's lower end sits near 0 on both seed sets tried (one seed in six has a "
                        "negative gap): just below it at seeds 0-5 and just above it at seeds 1000-1005, so the "
                        "verdict depends on the seed set")


def es_tow_all(res, meas) -> dict:
    by = meas["es_tow_by_method_seed"]
    control = {m: np.array(v) for m, v in meas["es_tow_by_method_seed_control"].items()}
    return dict(claim="for every method, ToW(low-ES set) - ToW(high-ES set) > 0 (mean over seeds, t-interval above 0)",
                measured={m: _summary(v) for m, v in by.items()},
                test=lambda d: all(v["mean"] > 0 and v["interval low"] > 0 for v in d.values()),
                per_seed={int(s): {m: _r(v[i]) for m, v in by.items()} for i, s in enumerate(res.seeds)},
                paper="higher ES gives lower ToW, for all algorithms", paper_source="abstract; Sec. 4",
                control={"name": "the same with ToW(random) - ToW(low-mem)",
                         "measured": {m: _summary(v) for m, v in control.items()}},
                expect="not reproduced",
                tried=f"{len(res.seeds)} seeds at fast (and as many others in the reseed build): digits MLP, k = 30, "
                      "U = 30 full-batch Adam steps, the official hyper-parameters' roles (SCRUB msteps, T, gamma, "
                      "beta; NegGrad+ alpha); the method whose gap is near 0 changes with the seeds (random labels "
                      "or NegGrad+); the paper's CIFAR-10 / ResNet-18 with 3,000-point sets is not run")


def rum_gain(res, meas) -> dict:
    iv, civ = t_interval(meas["rum_gain"]), t_interval(meas["rum_gain_control"])
    R = res.rum_table()
    return dict(claim="the best RUM variant beats the best vanilla algorithm at equal compute (3U steps) by > 0.02 "
                      "ToW on the mix set (mean over seeds, t-interval above 0); inconclusive at this scale",
                measured={"mean gain": _r(iv.estimate), "interval": [_r(iv.low), _r(iv.high)],
                          "best RUM": _r(max(R[k].mean() for k in RUM_LABELS)),
                          "best vanilla at 3U (the baseline)": _r(meas["rum_baseline"].mean()),
                          "vanilla NegGrad+ at U": _r(R["vanilla NegGrad+ (U)"].mean())},
                test=lambda m: m["mean gain"] > 0.02 and m["interval"][0] > 0, interval=iv,
                per_seed=_per_seed(res, meas["rum_gain"]), expect="needs full scale", command=FULL_COMMAND,
                fragile="on seeds 0-5 the gain changes sign from seed to seed (interval across 0); on seeds "
                        "1000-1005 it is positive on every seed, while the best RUM stays below vanilla NegGrad+ at U "
                        "on both",
                tried="fast: 6 seeds, digits, k = 30, U = 30 steps; the interval of the gain contains 0 and the "
                      "equal-compute baseline (best vanilla at 3U) is weaker than vanilla NegGrad+ at U, so the "
                      "miniature cannot decide; the paper's CIFAR-10/ResNet-18 with 3,000-point sets is not run",
                paper="RUM substantially improves the top algorithms", paper_source="abstract; Sec. 5",
                control={"name": "doing nothing minus the best equal-compute vanilla",
                         "measured": {"mean gain": _r(civ.estimate), "interval": [_r(civ.low), _r(civ.high)]}})


def checks(res: UnlearningResult) -> dict:
    """``{claim_id: keyword arguments of claims.check}`` for the chapter's claims, from a run of
    :func:`.experiment.run_unlearning` (at least 3 seeds)."""
    meas = claim_measures(res)
    out = {"unlearning.memorization_noise": memorization_noise(res, meas),
           "unlearning.c_proxy": c_proxy(res, meas)}
    for m in ("nothing", "FT"):
        out[f"unlearning.tow_memorization_{m.lower()}"] = tow_memorization(res, meas, m)
    out["unlearning.tow_mia_memorization_nothing"] = tow_memorization(res, meas, "nothing", "tow_mia")
    out["unlearning.forget_targeted"] = forget_targeted(res, meas)
    out["unlearning.es_ordering"] = es_ordering(res, meas)
    out["unlearning.es_tow_mean"] = es_tow_mean(res, meas)
    out["unlearning.es_tow_all"] = es_tow_all(res, meas)
    if len(meas["rum_gain"]):
        out["unlearning.rum_gain"] = rum_gain(res, meas)
    return out
