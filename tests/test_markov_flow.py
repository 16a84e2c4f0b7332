"""Batched flow: agreement with a scalar loop, the basin map, the bench, bad input."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.markov import experiment, flow, reduced


def test_batched_flow_equals_one_point_at_a_time():
    e0, w0 = np.array([0.3, 1.2, -0.8]), np.array([0.5, -1.1, -0.2])
    batch = flow.gradient_flow_reference(e0, w0, 0.6, 0.7, lr=0.05, steps=300)
    for i in range(3):   # independent scalar loop on the closed-form gradient
        e, w = e0[i], w0[i]
        for _ in range(300):
            ge, gw, _ = reduced.gradient(e, w, reduced.optimal_bias(e, w, 0.6, 0.7), 0.6, 0.7)
            e, w = e - 0.05 * ge, w - 0.05 * gw
        assert batch["e"][i] == pytest.approx(e, rel=1e-12, abs=1e-14)
        assert batch["w"][i] == pytest.approx(w, rel=1e-12, abs=1e-14)


def test_free_bias_descends_the_loss():
    out = flow.gradient_flow_reference(1.0, -1.0, 0.9, 0.9, lr=0.02, steps=500, bias="free", b0=2.0)
    assert out["loss"] < reduced.loss(1.0, -1.0, 2.0, 0.9, 0.9)


def test_small_portrait_agreement():
    res = experiment.run_portrait(0.9, 0.9, n=16, steps=2000)
    assert res.final_loss.shape == (16, 16)
    assert res.agreement() >= 0.9 and res.converged() >= 0.95


def test_bench_rows():
    rows = flow.bench_flow([(8, 5)])
    assert rows and all(isinstance(n, str) and s > 0 and b == 48 * 64 * 5 for n, s, b in rows)


@pytest.mark.parametrize(("kwargs", "match"), [(dict(lr=0.0), "lr"), (dict(steps=-1), "steps"),
                                               (dict(bias="x"), "bias"), (dict(p=1.5), "p must")])
def test_flow_bad_input(kwargs, match):
    args = dict(p=0.5, q=0.5, lr=0.01, steps=2) | kwargs
    with pytest.raises(ValueError, match=match):
        flow.gradient_flow_reference(0.1, 0.1, **args)


def test_kernel_check_without_gpu_is_none_or_dict():
    out = flow.kernel_check(n=4, steps=2)
    assert out is None or out["max_abs_diff"] < 1e-10


def test_a_diverging_flow_raises_instead_of_returning_nan():
    # lr = 2 jumps out of the landscape from (e, w) = (2, −1): the loss would be NaN, which a portrait reads
    # as "not global"; the flow must say so instead
    with pytest.raises(ValueError, match=r"lr=2\.0 is too large"):
        flow.gradient_flow_reference(2.0, -1.0, 0.9, 0.9, lr=2.0, steps=200)
    out = flow.gradient_flow_reference(2.0, -1.0, 0.9, 0.9, lr=0.02, steps=200)   # the same start, small steps
    assert np.isfinite(out["loss"])


@pytest.mark.parametrize(("kwargs", "match"), [(dict(e0=np.array([0.1, np.nan])), "e0"),
                                               (dict(w0=np.inf), "w0"), (dict(b0=np.nan, bias="free"), "b0"),
                                               (dict(lr=np.inf), "lr"), (dict(lr=float("nan")), "lr")])
def test_flow_non_finite_input(kwargs, match):
    args = dict(e0=0.1, w0=0.1, p=0.5, q=0.7, lr=0.01, steps=2) | kwargs
    with pytest.raises(ValueError, match=match):
        flow.gradient_flow_reference(**args)


@pytest.mark.parametrize(("kwargs", "match"), [(dict(extent=np.inf), "^extent"), (dict(extent=0.0), "^extent"),
                                               (dict(extent=np.nan), "^extent"), (dict(n=2.5), "^n must"),
                                               (dict(n=1), "^n must"), (dict(band=-0.1), "^band"),
                                               (dict(lr=5.0), "too large")])
def test_portrait_bad_input(kwargs, match):
    args = dict(p=0.9, q=0.9, n=4, steps=50) | kwargs
    with pytest.raises(ValueError, match=match):
        experiment.run_portrait(**args)


def test_memoryless_chain_counts_every_point_as_global():
    # p + q = 1: the chain has no memory, bigram = unigram, and predictor and flow agree everywhere
    res = experiment.run_portrait(0.3, 0.7, n=8, steps=200)
    assert res.bigram == pytest.approx(res.unigram)
    assert res.agreement() == 1.0 and res.reached_global.all()
