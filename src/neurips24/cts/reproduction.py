"""The chapter's reproduction checks: each claim's measurement, interval and control, ready for ``claims.check``.

:func:`checks` turns the experiments' results into keyword arguments of :func:`neurips24.claims.check`, so the
notebook's check cell and a plain test run the same checks. Every check has a control measured the same way on a
case where the claim must fail, and an interval from SciPy (``scipy.stats.bootstrap`` over runs, or the Wilson
interval of ``claims.binomial_interval``).
"""
from __future__ import annotations

import numpy as np

from ..claims import Interval, binomial_interval
from .experiment import PAPER_FIG_B, READING_ERROR, RegretVsM

BCTS = ("B-CTS-Uniform", "B-CTS-Jeffreys")
STUCK_SHARE = 0.2          # the claim: at least a fifth of B-CTS runs stuck at the largest m
RATIO = 10.0               # ... and B-CTS's mean regret at least 10x BG-CTS's
ESCB_LOG_ERROR = 0.25      # mean |ln(ours / paper)| below which a curve "is" the paper's ESCB curve
LEVEL = 0.95


def _bootstrap(samples: tuple, statistic, paired: bool, seed: int = 0) -> tuple[float, float, float]:
    """(estimate, low, high) of ``statistic`` over one or several samples, SciPy's percentile bootstrap."""
    from scipy.stats import bootstrap

    samples = tuple(np.asarray(s, dtype=float) for s in samples)
    res = bootstrap(samples, statistic, paired=paired, vectorized=False, confidence_level=LEVEL,
                    n_resamples=2000, method="percentile", rng=np.random.default_rng(seed))
    return float(statistic(*samples)), float(res.confidence_interval.low), float(res.confidence_interval.high)


def ratio_interval(num, den) -> Interval:
    """Interval of mean(num) / mean(den) over paired runs (common random numbers pair them)."""
    est, lo, hi = _bootstrap((num, den), lambda a, b: a.mean() / b.mean(), paired=True)
    return Interval(est, lo, hi, LEVEL, f"bootstrap (percentile, paired) of the ratio of means, n={len(num)}")


def difference_interval(a, b) -> Interval:
    """Interval of mean(a) − mean(b) over two independent samples of runs."""
    est, lo, hi = _bootstrap((a, b), lambda x, y: x.mean() - y.mean(), paired=False)
    return Interval(est, lo, hi, LEVEL, f"bootstrap (percentile) of the difference of means, n={len(a)}, {len(b)}")


def _ratios(sweep: RegretVsM, m: int) -> dict:
    bg = sweep.pooled(m, "BG-CTS")
    return {lab: ratio_interval(sweep.pooled(m, lab), bg) for lab in BCTS}


def _r(x: float) -> float:
    return float(f"{x:.3g}")


def _seed_ratio(sweep: RegretVsM, m: int, seed: int, pick) -> float:
    """``pick`` (min or max) over both priors of mean B-CTS / mean BG-CTS regret of one seed's runs at m."""
    run = sweep.runs[(m, seed)]
    return _r(pick(run.of(lab).mean() / run.of("BG-CTS").mean() for lab in BCTS))


def paradox_ratio(sweep: RegretVsM) -> dict:
    """B-CTS (both priors) against BG-CTS at the largest m, all seeds pooled; control: the same at the smallest m.
    Per seed: the smaller of the two priors' ratios."""
    big, small = max(sweep.m_values), min(sweep.m_values)
    hi, lo = _ratios(sweep, big), _ratios(sweep, small)
    worst = min(hi.values(), key=lambda iv: iv.low)
    return dict(
        per_seed={s: _seed_ratio(sweep, big, s, min) for s in sweep.seeds_at(big)},
        claim=f"at m = {big}, B-CTS's mean regret is at least {RATIO:g}x BG-CTS's, for both priors "
              f"(lower bound of the {LEVEL:.0%} interval, {len(sweep.pooled(big, 'BG-CTS'))} runs)",
        measured={**{lab: _r(iv.estimate) for lab, iv in hi.items()}, "lower bound": _r(worst.low)},
        test=lambda v: v["lower bound"] >= RATIO,
        control={"name": f"the same ratio at m = {small}",
                 "measured": {**{lab: _r(iv.estimate) for lab, iv in lo.items()},
                              "lower bound": _r(min(iv.low for iv in lo.values()))}},
        interval=worst, paper="B-CTS regret exponential in m, BG-CTS polynomial (Thm 1); Fig. 1b at m = 65: "
                              "≈ 5.5e4 and 7e4 against ≈ 480", paper_source="Sec. 6, Fig. 1b")


def stuck_runs(sweep: RegretVsM) -> dict:
    """Share of stuck B-CTS runs (regret > half of Δ T) at the largest m, pooled, Wilson interval; control BG-CTS."""
    big = max(sweep.m_values)
    ivs = {lab: binomial_interval(*sweep.stuck(big, lab)) for lab in BCTS}
    worst = min(ivs.values(), key=lambda iv: iv.low)
    bg = binomial_interval(*sweep.stuck(big, "BG-CTS"))
    return dict(
        per_seed={s: _r(min(sweep.runs[(big, s)].stuck_share()[sweep.runs[(big, s)].labels.index(lab)]
                            for lab in BCTS)) for s in sweep.seeds_at(big)},
        claim=f"at m = {big}, at least {STUCK_SHARE:.0%} of B-CTS runs are stuck (regret > half the linear "
              f"maximum), for both priors (lower bound of the Wilson {LEVEL:.0%} interval, seeds pooled)",
        measured={**{lab: _r(iv.estimate) for lab, iv in ivs.items()}, "lower bound": _r(worst.low)},
        test=lambda v: v["lower bound"] > STUCK_SHARE,
        control={"name": "BG-CTS, same runs and rule", "measured": {"BG-CTS": _r(bg.estimate),
                                                                     "lower bound": _r(bg.low)}},
        interval=worst, paper="B-CTS runs at full linear regret in the authors' logs (never find A*); "
                              "BG-CTS never", paper_source="Sec. 6; CTSCode.ipynb logs")


def small_m(sweep: RegretVsM) -> dict:
    """At the smallest m B-CTS beats BG-CTS (upper bound of the ratio < 1); control: the same at the largest m."""
    big, small = max(sweep.m_values), min(sweep.m_values)
    lo, hi = _ratios(sweep, small), _ratios(sweep, big)
    worst = max(lo.values(), key=lambda iv: iv.high)
    return dict(
        per_seed={s: _seed_ratio(sweep, small, s, max) for s in sweep.seeds_at(small)},
        claim=f"at m = {small}, B-CTS (both priors) has less regret than BG-CTS "
              f"(upper bound of the {LEVEL:.0%} interval of the ratio < 1)",
        measured={**{lab: _r(iv.estimate) for lab, iv in lo.items()}, "upper bound": _r(worst.high)},
        test=lambda v: v["upper bound"] < 1,
        control={"name": f"the same ratio at m = {big}",
                 "measured": {**{lab: _r(iv.estimate) for lab, iv in hi.items()},
                              "upper bound": _r(max(iv.high for iv in hi.values()))}},
        interval=worst, paper="m = 5: B-CTS ≈ 9–13 against BG-CTS ≈ 65", paper_source="Fig. 1b")


def pooled_setup(setup: dict, label: str) -> dict:
    """m -> pooled final regrets of ``label`` over the seeds of a :func:`run_paper_setup` result."""
    ms = sorted(next(iter(setup.values())))
    return {m: np.concatenate([setup[s][m].of(label) for s in setup]) for m in ms}


def _vs_paper(runs: dict, paper_label: str, statistic) -> tuple[float, float, float]:
    ms = sorted(m for m in runs if m in PAPER_FIG_B)
    ref = np.array([PAPER_FIG_B[m][paper_label] for m in ms])

    def stat(*samples):
        return statistic(np.array([s.mean() for s in samples]) / ref)

    return _bootstrap(tuple(runs[m] for m in ms), stat, paired=False)


def max_deviation(ratios: np.ndarray) -> float:
    """max over m of |ours / paper − 1|."""
    return float(np.max(np.abs(ratios - 1)))


def mean_log_error(ratios: np.ndarray) -> float:
    """mean over m of |ln(ours / paper)|."""
    return float(np.mean(np.abs(np.log(ratios))))


def _measure_vs_paper(setup: dict, label: str, paper_label: str, statistic, name: str) -> tuple[dict, Interval]:
    """Mean final regret of ``label`` per m, and ``statistic`` of ours / paper (Fig. 1b, ``paper_label``) over m
    with its bootstrap interval; the row of values shown on the claim card, under ``name``."""
    runs = pooled_setup(setup, label)
    est, lo, hi = _vs_paper(runs, paper_label, statistic)
    ms = sorted(runs)
    values = {**{f"m = {m}": _r(runs[m].mean()) for m in ms}, name: _r(est), "upper bound": _r(hi)}
    return values, Interval(est, lo, hi, LEVEL, f"bootstrap (percentile) over runs, n={len(runs[ms[0]])} per m")


def per_seed_vs_paper(setup: dict, label: str, paper_label: str, statistic) -> dict:
    """seed -> ``statistic`` of (mean regret of that seed's runs / paper) over the m of Fig. 1b."""
    out = {}
    for s, by_m in setup.items():
        ms = sorted(m for m in by_m if m in PAPER_FIG_B)
        out[s] = _r(statistic(np.array([by_m[m].of(label).mean() / PAPER_FIG_B[m][paper_label] for m in ms])))
    return out


def bgcts_vs_paper(setup: dict) -> dict:
    """BG-CTS at the paper's set-up within 10 % of Fig. 1b at every m; control: BG-CTS with the theorem's λ = 1."""
    name = "max |ours/paper − 1|"
    measured, iv = _measure_vs_paper(setup, "BG-CTS", "BG-CTS", max_deviation, name)
    control, _ = _measure_vs_paper(setup, "BG-CTS (λ=1)", "BG-CTS", max_deviation, name)
    return dict(
        per_seed=per_seed_vs_paper(setup, "BG-CTS", "BG-CTS", max_deviation),
        claim=f"BG-CTS at the paper's set-up is within {READING_ERROR:.0%} of the paper's Fig. 1b at every m "
              f"(upper bound of the {LEVEL:.0%} interval of the largest deviation)",
        measured=measured, test=lambda v: v["upper bound"] <= READING_ERROR,
        control={"name": "BG-CTS with the theorem's λ = 1, against the same values", "measured": control},
        interval=iv, paper={f"m = {m}": PAPER_FIG_B[m]["BG-CTS"] for m in sorted(PAPER_FIG_B)},
        paper_source="Fig. 1b (read off a log axis, ±10 %)")


def escb_is_the_code(setup: dict) -> dict:
    """The paper's ESCB curve is the as-written model's: mean |ln(ours/paper)| < 0.25; control: intended ESCB."""
    name = "mean |ln(ours/paper)|"
    measured, iv = _measure_vs_paper(setup, "ESCB (as written)", "ESCB", mean_log_error, name)
    control, _ = _measure_vs_paper(setup, "ESCB", "ESCB", mean_log_error, name)
    return dict(
        per_seed=per_seed_vs_paper(setup, "ESCB (as written)", "ESCB", mean_log_error),
        claim=f"the paper's ESCB curve is the authors' index as written (the bug model): mean |ln(ours/paper)| "
              f"over m below {ESCB_LOG_ERROR} (upper bound of the {LEVEL:.0%} interval)",
        measured=measured, test=lambda v: v["upper bound"] < ESCB_LOG_ERROR,
        control={"name": "ESCB as intended (Combes et al. 2015), same runs", "measured": control},
        interval=iv, paper={f"m = {m}": PAPER_FIG_B[m]["ESCB"] for m in sorted(PAPER_FIG_B)},
        paper_source="Fig. 1b")


def escb_intended(setup: dict) -> dict:
    """The intended ESCB has less regret than BG-CTS at every m (upper bound of the ratio < 1); control: the bug
    model, which is above BG-CTS at m = 5 as in the paper."""
    def measure(label):
        runs, bg = pooled_setup(setup, label), pooled_setup(setup, "BG-CTS")
        ivs = {m: ratio_interval(runs[m], bg[m]) for m in sorted(runs)}
        worst = max(ivs.values(), key=lambda iv: iv.high)
        return {**{f"m = {m}": _r(iv.estimate) for m, iv in ivs.items()}, "upper bound": _r(worst.high)}, worst

    measured, iv = measure("ESCB")
    control, _ = measure("ESCB (as written)")
    per_seed = {s: _r(max(by_m[m].of("ESCB").mean() / by_m[m].of("BG-CTS").mean() for m in by_m))
                for s, by_m in setup.items()}
    return dict(
        per_seed=per_seed,
        claim="ESCB as intended has less regret than BG-CTS at every m of the paper's set-up "
              f"(ratio ESCB / BG-CTS; upper bound of the worst {LEVEL:.0%} interval < 1)",
        measured=measured, test=lambda v: v["upper bound"] < 1,
        control={"name": "ESCB as written (the bug model), same runs", "measured": control},
        interval=iv, paper={f"m = {m}": _r(PAPER_FIG_B[m]["ESCB"] / PAPER_FIG_B[m]["BG-CTS"])
                            for m in sorted(PAPER_FIG_B)},
        paper_source="Fig. 1b, ESCB / BG-CTS")


def _replay_counts(replay: dict, model: str) -> tuple[int, int]:
    """(runs identical to the one-run model, runs) of ``model``, over every seed and m of a
    :func:`~neurips24.cts.experiment.run_escb_replay`."""
    same = sum(int(r.identical[model].sum()) for by_m in replay.values() for r in by_m.values())
    return same, sum(r.R for by_m in replay.values() for r in by_m.values())


def escb_replay(replay: dict) -> dict:
    """The vectorised bug model plays, run by run, exactly the action sequence of the independent one-run model of
    the authors' code (:class:`~neurips24.cts.escb_replay.ESCBOneRun`; every run of every seed and m); control:
    ESCB as intended against the same one-run model. Per seed: the share of the model's runs (all m) identical.

    ``replay`` is what :func:`~neurips24.cts.experiment.run_escb_replay` returns: seed -> m -> Replay.
    Raises ValueError for an empty replay or one without both models.
    """
    if not isinstance(replay, dict) or not replay or not all(isinstance(v, dict) and v for v in replay.values()):
        raise ValueError("replay must be a non-empty dict seed -> m -> Replay (see run_escb_replay)")
    first = next(iter(next(iter(replay.values())).values()))
    missing = [k for k in ("as written", "intended") if k not in first.identical]
    if missing:
        raise ValueError(f"replay must hold the models 'as written' and 'intended', missing {missing}")

    def measure(model):
        same, n = _replay_counts(replay, model)
        return {"runs": n, "runs that differ": n - same, "share identical": _r(same / n)}, same, n

    measured, same, n = measure("as written")
    control, _, _ = measure("intended")
    ms = sorted(next(iter(replay.values())))
    return dict(
        per_seed={s: _r(sum(int(r.identical["as written"].sum()) for r in by_m.values())
                        / sum(r.R for r in by_m.values())) for s, by_m in replay.items()},
        claim=f"the package's model of the authors' ESCB (cts.escb_code, vectorised over runs) plays exactly the "
              f"decisions of an independent one-run-at-a-time model of the same code (cts.escb_replay.ESCBOneRun), "
              f"round by round, in every "
              f"run of every seed, on shared rewards (m = {', '.join(map(str, ms))}, T = {first.T}, {first.R} runs "
              f"per m and seed)",
        measured=measured, test=lambda v: v["runs that differ"] == 0,
        control={"name": "ESCB as intended (Combes et al. 2015), against the same one-run model and rewards",
                 "measured": control},
        interval=binomial_interval(same, n),
        paper="the class that drew Fig. 1b's ESCB curve: ESCBbonus and cbanditsAlgo.select / update",
        paper_source="CTSCode.ipynb (official code, commit c10df02)")


def checks(sweep: RegretVsM, setup: dict, replay: dict) -> dict:
    """claim_id -> keyword arguments of :func:`neurips24.claims.check` for every claim of the chapter.

    ``sweep``: :func:`~neurips24.cts.experiment.run_regret_vs_m`; ``setup``:
    :func:`~neurips24.cts.experiment.run_paper_setup`; ``replay``: :func:`~neurips24.cts.experiment.run_escb_replay`.
    """
    return {"cts.paradox_ratio": paradox_ratio(sweep), "cts.stuck_runs": stuck_runs(sweep),
            "cts.small_m": small_m(sweep), "cts.bgcts_vs_paper": bgcts_vs_paper(setup),
            "cts.escb_is_the_code": escb_is_the_code(setup), "cts.escb_replay": escb_replay(replay),
            "cts.escb_intended": escb_intended(setup)}
