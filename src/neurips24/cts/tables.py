"""The chapter's tables, as Markdown text from the experiments' results (numbers formatted, never typed).

Each function returns a Markdown table; the notebook shows it with
``neurips24.tables.show_table(*parse_pipes(table))`` (an HTML table; math in ``$...$`` is typeset). The paper's
values come from :data:`~neurips24.cts.experiment.PAPER_FIG_B` (Fig. 1b, read off a log axis).
"""
from __future__ import annotations

import numpy as np

from ..claims import binomial_interval
from .experiment import PAPER_FIG_B, RegretVsM, record_means


def _fmt(x: float) -> str:
    """3 significant digits, no exponent below 10⁵."""
    if x is None or not np.isfinite(x):
        return "—"
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def _md(head: list, rows: list) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _pooled_mean(setup: dict, m: int, label: str) -> float:
    return float(np.concatenate([setup[s][m].of(label) for s in setup]).mean())


def switch_table(rows: list) -> str:
    """From :func:`~neurips24.cts.theory.switch_probability` dicts: p_m and the wait 1/p_m for both priors."""
    return _md(["m", "p_m uniform (exact)", "$e^{-m I}$ uniform", "p_m Jeffreys (grid)", "$e^{-m I}$ Jeffreys",
                "wait 1/p_m uniform (rounds)", "wait 1/p_m Jeffreys (rounds)"],
               [[r["m"], f"{r['uniform_exact']:.2e}", f"{r['uniform_chernoff']:.2e}", f"{r['jeffreys']:.2e}",
                 f"{r['jeffreys_chernoff']:.2e}", f"{r['uniform_wait']:.3g}", f"{r['jeffreys_wait']:.3g}"]
                for r in rows])


def fig_b_table(setup: dict, record: dict | None = None) -> str:
    """Fig. 1b at the paper's set-up: mean regret at T = 10⁴, ours / paper, ratio ours / paper in brackets.

    BG-CTS and both ESCB indices come from ``setup`` (this run, decision level, seeds pooled); B-CTS from the
    recorded full-scale run (``record``), when there is one.
    """
    head = ["m", "BG-CTS", "ESCB (intended)", "ESCB (as written)", "B-CTS-Uniform", "B-CTS-Jeffreys"]
    rows = []
    for m in sorted(PAPER_FIG_B):
        p = PAPER_FIG_B[m]
        cells = [m]
        for lab, ref in (("BG-CTS", "BG-CTS"), ("ESCB", "ESCB"), ("ESCB (as written)", "ESCB")):
            ours = _pooled_mean(setup, m, lab) if m in next(iter(setup.values())) else np.nan
            cells.append(f"{_fmt(ours)} / {_fmt(p[ref])} ({ours / p[ref]:.2f})")
        full = record_means(record) if record else {}
        for lab in ("B-CTS-Uniform", "B-CTS-Jeffreys"):
            if m in full:
                ours = full[m][lab]
                cells.append(f"{_fmt(ours)} / {_fmt(p[lab])} ({ours / p[lab]:.2f})")
            else:
                cells.append(f"— / {_fmt(p[lab])}")
        rows.append(cells)
    return _md(head, rows)


def escb_table(setup: dict) -> str:
    """ESCB as written (bug model) and as intended beside the paper's ESCB and our BG-CTS, at the paper's set-up."""
    rows = []
    for m in sorted(next(iter(setup.values()))):
        rows.append([m, _fmt(_pooled_mean(setup, m, "ESCB (as written)")), _fmt(_pooled_mean(setup, m, "ESCB")),
                     _fmt(PAPER_FIG_B.get(m, {}).get("ESCB", np.nan)), _fmt(_pooled_mean(setup, m, "BG-CTS"))])
    return _md(["m", "ESCB as written (bug model)", "ESCB as intended", "paper's ESCB (Fig. 1b)", "BG-CTS (ours)"],
               rows)


def boost_table(setup: dict) -> str:
    """G-CTS (no boost), BG-CTS (λ = 0, the experiments') and BG-CTS (λ = 1, the theorem's) at the paper's set-up."""
    labels = ("G-CTS", "BG-CTS", "BG-CTS (λ=1)")
    rows = [[m] + [_fmt(_pooled_mean(setup, m, lab)) for lab in labels] for m in sorted(next(iter(setup.values())))]
    return _md(["m", "G-CTS: N(μ̂, σ²/N)", "BG-CTS, λ = 0", "BG-CTS, λ = 1"], rows)


def sweep_table(sweep: RegretVsM) -> str:
    """The arm-level sweep (first seed): mean regret at T and, in brackets, the share of stuck runs."""
    tab = sweep.table()
    rows = [[m] + [f"{_fmt(tab[m][lab][0])} ({tab[m][lab][1]:.0%})" for lab in sweep.labels] for m in sweep.m_values]
    return _md(["m"] + sweep.labels, rows)


def theory_table(sweep: RegretVsM, estimates: dict) -> str:
    """B-CTS's first optimal play against theory, per m and prior: the wait 1/p_m, the share of runs that start on
    A_1 (theory ½), and the stuck share, estimated (:func:`~neurips24.cts.theory.escape_estimate`) and measured
    (seeds pooled, Wilson 95 % interval)."""
    rows = []
    for m in sweep.m_values:
        for lab in ("B-CTS-Uniform", "B-CTS-Jeffreys"):
            e = estimates[(m, lab)]
            tau = sweep.pooled_first(m, lab)
            k, n = sweep.stuck(m, lab)
            iv = binomial_interval(k, n)
            rows.append([m, lab, f"{e['wait']:.3g}", f"{(tau > 1).mean():.2f}", f"{e['stuck_asymptotic']:.2f}",
                         f"{e['stuck_estimate']:.2f}", f"{iv.estimate:.2f} [{iv.low:.2f}, {iv.high:.2f}] ({n} runs)"])
    return _md(["m", "prior", "wait 1/p_m (rounds)", "measured: τ > 1", "stuck: $\\tfrac12 (1 - p_m)^{T/2}$",
                "stuck: estimate", "stuck: measured [95 %]"], rows)


def record_sweep_table(record: dict) -> str:
    """The recorded full-scale sweep: mean regret at T (stuck runs / runs), all seeds of each m."""
    sweep = record["sweep"]
    labels = list(next(iter(next(iter(sweep.values())).values())))
    rows = []
    for m, by_seed in sweep.items():
        cells = [m]
        for lab in labels:
            means = [by_seed[s][lab]["mean"] for s in by_seed]
            stuck = sum(by_seed[s][lab]["stuck"] for s in by_seed)
            runs = sum(by_seed[s][lab]["runs"] for s in by_seed)
            cells.append(f"{_fmt(float(np.mean(means)))} ({stuck}/{runs})")
        rows.append(cells)
    return _md(["m"] + labels, rows)
