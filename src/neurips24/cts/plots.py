"""Figures of the chapter: regret curves (Fig. 1a), final regret against m (Fig. 1b), first optimal play, explore."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .experiment import PAPER_FIG_B
from .runs import SimResult

COLORS = {"B-CTS-Uniform": "C3", "B-CTS-Jeffreys": "C1", "BG-CTS": "C0", "ESCB": "C2", "CUCB": "C7",
          "ESCB (as written)": "C5", "G-CTS": "C9", "BG-CTS (λ=1)": "C4"}


def _band(c: np.ndarray, band):
    """Lower and upper edge over runs (axis 0): mean ± 2 sd for band='2sd' (the lower edge clipped at 0, as
    regret is never negative), else the given percentiles."""
    if band == "2sd":
        mean, sd = c.mean(axis=0), c.std(axis=0)
        return np.maximum(mean - 2 * sd, 0.0), mean + 2 * sd
    return np.percentile(c, band, axis=0)


def plot_curves(res: SimResult, ax=None, band="2sd", extra: SimResult | None = None):
    """Cumulative regret against t: mean (line) and a band over runs, one colour per policy (Fig. 1a).

    band : '2sd' (mean ± two empirical standard deviations, the paper's Fig. 1a, clipped at 0) or percentiles such as
    (5, 95) (the band of the authors' Fig. 1b). ``extra``: a second result on the same instance (e.g. the
    decision-level ESCB runs), drawn dashed.
    """
    ax = ax or plt.subplots(figsize=(6.4, 4.0))[1]
    for r, style in ((res, "-"), (extra, "--")):
        if r is None:
            continue
        for j, lab in enumerate(r.labels):
            c = r.cum_regret[j]
            lo, hi = _band(c, band)
            col = COLORS.get(lab)
            ax.plot(r.ts, c.mean(axis=0), style, color=col, label=lab)
            ax.fill_between(r.ts, lo, hi, color=col, alpha=0.12, lw=0)
    ax.set_yscale("symlog", linthresh=10)
    ax.set_xlabel("round t")
    ax.set_ylabel("cumulative pseudo-regret")
    what = "mean ± 2 sd, ≥ 0" if band == "2sd" else f"{band[0]}–{band[1]} % of runs"
    ax.set_title(f"two sets, m = {res.m}, T = {res.T}, {res.final.shape[1]} runs (band: {what})", fontsize=9)
    ax.legend(fontsize=7)
    return ax


def plot_final_vs_m(results: dict, ax=None, paper: bool = True, band=(5, 95), labels=None, title: str = ""):
    """Final mean regret against m (log scale), with the 5–95 % band over runs (as ``finalmeanregret.png``).

    results : dict m -> :class:`~neurips24.cts.runs.SimResult` (one seed).   paper : overlay the paper's Fig. 1b
    values (dotted, ×).   labels : the policies to draw (default: all).
    """
    ax = ax or plt.subplots(figsize=(6.4, 4.0))[1]
    ms = sorted(results)
    first = results[ms[0]]
    for lab in labels or first.labels:
        means = [results[m].of(lab).mean() for m in ms]
        lo, hi = np.array([np.percentile(results[m].of(lab), band) for m in ms]).T
        ax.plot(ms, means, "o-", color=COLORS.get(lab), label=lab, ms=4)
        ax.fill_between(ms, np.maximum(lo, 1e-1), np.maximum(hi, 1e-1), color=COLORS.get(lab), alpha=0.1, lw=0)
    if paper:
        pm = sorted(PAPER_FIG_B)
        for lab in PAPER_FIG_B[pm[0]]:
            ax.plot(pm, [PAPER_FIG_B[m][lab] for m in pm], "x:", color=COLORS.get(lab), alpha=0.8)
        ax.plot([], [], "kx:", label="paper, Fig. 1b (T = 10⁴)")
    ax.set_yscale("log")
    ax.set_xlabel("m (decision size; d = 2m arms)")
    ax.set_ylabel(f"mean regret at T = {first.T}")
    ax.set_title(title or f"T = {first.T}, {first.final.shape[1]} runs; band: {band[0]}–{band[1]} % of runs",
                 fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    return ax


def plot_first_play(survival: dict, estimates: dict, ax=None):
    """P(τ > k), the chance that the first optimal play comes after round k: measured (steps) and the
    mean-field estimate (:func:`~neurips24.cts.theory.escape_estimate`, dashed), per (m, prior).

    survival : dict (m, label) -> (R,) first optimal rounds.   estimates : dict (m, label) -> escape_estimate dict.
    """
    ax = ax or plt.subplots(figsize=(6.4, 4.0))[1]
    for i, ((m, lab), tau) in enumerate(sorted(survival.items())):
        T = estimates[(m, lab)]["T"]
        k = np.arange(0, T + 1)
        measured = (np.asarray(tau)[None, :] > k[:, None]).mean(axis=1)
        style = "-" if lab.endswith("Uniform") else ":"
        col = f"C{i % 10}"
        ax.step(k[1:], measured[1:], style, where="post", color=col, label=f"{lab}, m = {m}")
        ax.plot(k[1:], estimates[(m, lab)]["survival"][1:], "--", color=col, alpha=0.6, lw=1)
    ax.plot([], [], "k--", lw=1, label="estimate (Theory)")
    ax.set_xscale("log")
    ax.set_xlabel("round k")
    ax.set_ylabel("P(first optimal play after k)")
    ax.set_ylim(0, 0.65)
    ax.legend(fontsize=7, ncol=2)
    return ax


def plot_explore(res: SimResult):
    """Left: cumulative regret curves (mean, 5–95 % band); right: histogram of the final regret."""
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.6))
    plot_curves(res, ax=a1, band=(5, 95))
    bins = np.linspace(0, max(res.linear, 1.0), 31)
    for j, lab in enumerate(res.labels):
        a2.hist(res.final[j], bins=bins, alpha=0.6, color=COLORS.get(lab), label=lab)
    a2.axvline(0.5 * res.linear, color="k", ls="--", lw=1, label="stuck threshold")
    a2.set_yscale("log")
    a2.set_xlabel("final regret")
    a2.set_ylabel("runs")
    a2.legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_recorded_curves(curve: dict | None, ax=None):
    """Fig. 1a from the recorded full-scale run (``load_full_record()['curve']``): mean ± 2 sd per policy.

    ``curve`` holds 'arm' and 'decision' entries (ts, m, T, runs, and per label 'mean' and 'sd' at the checkpoints);
    the decision-level ones (ESCB) are dashed. Without a record the panel says so.
    """
    ax = ax or plt.subplots(figsize=(6.4, 4.0))[1]
    if curve is None:
        ax.text(0.5, 0.5, "no recorded full-scale run", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return ax
    for part, style in (("arm", "-"), ("decision", "--")):
        c = curve[part]
        ts = np.asarray(c["ts"])
        for lab, v in c.items():
            if not isinstance(v, dict):
                continue
            mean, sd = np.asarray(v["mean"]), np.asarray(v["sd"])
            ax.plot(ts, mean, style, color=COLORS.get(lab), label=lab)
            ax.fill_between(ts, np.maximum(mean - 2 * sd, 0.0), mean + 2 * sd, color=COLORS.get(lab), alpha=0.12,
                            lw=0)
    arm = curve["arm"]
    ax.set_yscale("symlog", linthresh=10)
    ax.set_xlabel("round t")
    ax.set_ylabel("cumulative pseudo-regret")
    ax.set_title(f"recorded full-scale run: m = {arm['m']}, T = {arm['T']}, {arm['runs']} runs "
                 "(band: mean ± 2 sd, ≥ 0)", fontsize=9)
    ax.legend(fontsize=7)
    return ax
