"""The chapter's figures and tables draw from results without error and show what they say (cts.plots, cts.tables)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from neurips24.cts import plots, tables, theory
from neurips24.cts.experiment import RegretVsM
from neurips24.cts.runs import SimResult


def _result(m=5, T=10, R=4, labels=("B-CTS-Uniform", "B-CTS-Jeffreys", "BG-CTS")):
    ts = np.arange(1, T + 1)
    cum = np.stack([np.cumsum(np.full((R, T), float(j + 1)), axis=1) for j in range(len(labels))])
    return SimResult(labels=list(labels), ts=ts, cum_regret=cum, final=cum[:, :, -1].copy(), linear=0.2 * m * T,
                     m=m, T=T, seed=0, first_optimal=np.full((len(labels), R), 2))


def test_band_hand_case():
    c = np.array([[0.0, 10.0], [4.0, 10.0]])                   # mean (2, 10), sd (2, 0)
    lo, hi = plots._band(c, "2sd")
    np.testing.assert_allclose(lo, [0.0, 10.0])                # 2 − 4 clipped at 0
    np.testing.assert_allclose(hi, [6.0, 10.0])
    lo, hi = plots._band(c, (0, 100))
    np.testing.assert_allclose(lo, [0.0, 10.0]) and np.testing.assert_allclose(hi, [4.0, 10.0])


def test_figures_draw_every_policy():
    r = _result()
    ax = plots.plot_curves(r, extra=_result(labels=("ESCB",)))
    assert [line.get_label() for line in ax.get_lines()] == r.labels + ["ESCB"]
    ax = plots.plot_final_vs_m({5: r, 9: _result(m=9)}, labels=["BG-CTS"])
    assert ax.get_lines()[0].get_ydata().tolist() == [30.0, 30.0]        # BG-CTS: 3 per round, T = 10
    fig = plots.plot_explore(r)
    assert len(fig.axes) == 2
    est = {(5, "B-CTS-Uniform"): theory.escape_estimate(5, "uniform", 10)}
    plots.plot_first_play({(5, "B-CTS-Uniform"): np.array([1, 1, 3, 11])}, est)
    ax = plots.plot_recorded_curves(None)
    assert ax.texts[0].get_text() == "no recorded full-scale run"
    curve = {"ts": [1, 2], "m": 5, "T": 2, "runs": 3, "BG-CTS": {"mean": [1.0, 2.0], "sd": [0.1, 0.2]}}
    ax = plots.plot_recorded_curves({"arm": curve, "decision": {**curve, "BG-CTS": {"mean": [0, 1], "sd": [0, 0]}}})
    assert len(ax.get_lines()) == 2
    plt.close("all")


def test_tables_format_the_results():
    sweep = RegretVsM(m_values=(5,), seeds=(0,), T=10, R=4)
    sweep.runs[(5, 0)] = _result()
    text = tables.sweep_table(sweep)
    assert "| 5 | 10 (100%) | 20 (100%) | 30 (100%) |" in text            # linear regret 10: all stuck
    est = {(5, lab): theory.escape_estimate(5, lab.split("-")[-1].lower(), 10)
           for lab in ("B-CTS-Uniform", "B-CTS-Jeffreys")}
    assert "1.00 [0.51, 1.00] (4 runs)" in tables.theory_table(sweep, est)        # Wilson interval of 4/4
    rec = {"sweep": {"65": {"0": {"BG-CTS": {"mean": 500.0, "stuck": 0, "runs": 150}},
                            "1": {"BG-CTS": {"mean": 460.0, "stuck": 1, "runs": 150}}}}}
    assert "| 65 | 480 (1/300) |" in tables.record_sweep_table(rec)


@pytest.mark.parametrize(("x", "text"), [(1234.5, "1,234"), (56.78, "56.8"), (float("nan"), "—")])
def test_number_format(x, text):
    assert tables._fmt(x) == text
