"""The chapter's experiments (dlq.experiment) at the chapter's fast sizes, with the notebook's criteria, and the
figures on small inputs."""
from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pytest

from neurips24.dlq import experiment as E
from neurips24.dlq import plots
from neurips24.dlq.junta import make_junta
from neurips24.dlq.network import train_online


@pytest.fixture(scope="module")
def det():
    return E.run_detectability("fast")


@pytest.mark.slow
def test_detectability_tables_at_the_chapter_size(det):
    for inputs in ("gaussian", "boolean"):
        # CSQ (= DLQ with the squared loss) sees no single coordinate and no pair; it sees S* itself
        assert det.csq_max_t(inputs) < det.z_star < det.support_t(inputs, "y")
        # the l1 loss at the initial output u = 0 sees every relevant coordinate; the squared loss none
        assert det.support_singles_t(inputs, E.dlq_name("l1", 0.0)).min() > det.z_star
        assert det.support_singles_t(inputs, E.dlq_name("squared", 0.0)).max() < det.z_star
        lc = det.leap_cover(inputs)
        assert [lc[c][1] for c in ("CSQ", "DLQ squared", "DLQ l1", "DLQ huber", "SQ")] == [3, 3, 1, 1, 1]
        assert [lc[c][2] for c in ("CSQ", "DLQ l1", "SQ")] == [3, 1, 1]
        # Huber with δ = 1 is blind to single coordinates exactly at u = 0 (its leap there is 2)
        assert det.leap_cover(inputs, u0_only=True)["DLQ huber"][1] == 2
        for row in det.rows(inputs):                 # Monte Carlo within 4.5 SE of the exact values
            for cls in ("CSQ", "DLQ squared", "DLQ l1", "DLQ huber", "SQ"):
                est, se, exact = row[cls]
                assert abs(est - exact) < 4.5 * se + 1e-12, (inputs, row["U"], cls)
    md = det.markdown("gaussian")
    assert md.count("\n") == 1 + 7 + 2 and "Leap / Cover" in md


@pytest.mark.slow
def test_recovery_at_the_chapter_size():
    rec = E.run_recovery("fast")
    assert min(rec.fractions("l1").values()) >= 0.25
    assert max(rec.fractions("squared").values()) <= 0.10
    assert set(rec.fractions("l1")) == {(d, s) for d in (32, 64) for s in (0, 1, 2)}


@pytest.mark.slow
def test_scaling_at_the_chapter_size():
    sc = E.run_scaling("fast")
    alpha = sc.local_exponent("boolean", "l1")
    assert np.all(np.isfinite(alpha)) and 0.75 <= alpha.mean() <= 1.25
    assert np.all(np.isinf(sc.local_exponent("boolean", "squared")))      # no recovery within 40 d at d = 128
    assert sc.local_exponent("gaussian", "l1").mean() > 1.25               # the book's log factor
    T = sc.steps_to_recovery("boolean", "l1")
    assert T.shape == (3, 3) and np.all(T <= 40 * np.array(sc.d_values)[:, None])


def test_local_exponent_by_hand():
    sc = E.Scaling(runs={}, cases=(), d_values=(32, 64), seeds=(0, 1), level=0.2, horizon_per_d=40, scale="fast")
    sc.steps_to_recovery = lambda inputs, loss: np.array([[100.0, 100.0], [200.0, math.inf]])
    alpha = sc.local_exponent("boolean", "l1")
    assert alpha[0] == pytest.approx(1.0) and math.isinf(alpha[1])


def test_unknown_scale():
    with pytest.raises(ValueError, match="run scale"):
        E.run_recovery("huge")


def test_figures_on_small_inputs():
    small = E.run_detectability("fast", d=6, n_samples=2 ** 12)
    for fn in (plots.plot_singles, plots.plot_u_curves):
        fn(small)
    plots.plot_pairs(small, "boolean")
    runs = {(loss, 8): train_online(make_junta(8), loss, 32, seeds=(0, 1)) for loss in ("l1", "squared")}
    plots.plot_recovery(E.Recovery(runs=runs, seeds=(0, 1), d_values=(8,), scale="fast"))
    sruns = {(i, loss, d): train_online(make_junta(d, inputs=i), loss, 40 * d, seeds=(0,), stop_at=0.2)
             for i, loss in E.SCALING_CASES for d in (8, 16)}
    plots.plot_scaling(E.Scaling(runs=sruns, cases=E.SCALING_CASES, d_values=(8, 16), seeds=(0,), level=0.2,
                                 horizon_per_d=40, scale="fast"))
    j, run = E.explore_run("huber", 8, "boolean", 0.3)
    plots.plot_explore(j, run)
    assert len(plt.get_fignums()) >= 6
    plt.close("all")


def test_scaling_fit_and_doubling_increments_by_hand():
    class _Run:
        def __init__(self, T):
            self.T = np.asarray(T, dtype=float)

        def first_passage(self, level):
            return self.T

    d = (32, 64, 128)
    T = {32: [100.0, 50.0], 64: [400.0, 100.0], 128: [800.0, np.inf]}       # seed 0: α 2 then 1; seed 1: α 1, lost
    sc = E.Scaling(runs={("boolean", "l1", k): _Run(T[k]) for k in d}, cases=(("boolean", "l1"),), d_values=d,
                   seeds=(0, 1), level=0.2, horizon_per_d=40, scale="fast")
    inc = sc.doubling_increments("boolean", "l1")
    np.testing.assert_allclose(inc[:, 0], [2.0, 1.0])
    assert inc[0, 1] == pytest.approx(1.0) and np.isinf(inc[1, 1])
    alpha = sc.fitted_exponent("boolean", "l1")
    assert alpha[0] == pytest.approx(np.polyfit(np.log(d), np.log([100, 400, 800]), 1)[0]) and np.isinf(alpha[1])
