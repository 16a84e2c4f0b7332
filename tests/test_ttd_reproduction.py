"""The chapter's claim rules (ttd.reproduction) on hand-made results, the identity Σ_m ω_m = M (a unit test, not
a claim), the uni-source loss against its own source, and SCD's refusal of a blank fused image."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from neurips24 import claims
from neurips24.ttd import metrics as Me
from neurips24.ttd import reproduction as Re
from neurips24.ttd import weights as We

KEYS = ("cov", "quality", "AG", "SF", "psnr")


@pytest.mark.parametrize("M", [2, 3, 5])
@pytest.mark.parametrize("form", ["exp", "neg", "static"])
@pytest.mark.parametrize("gamma", [We.GAMMA_PAPER, We.GAMMA_CODE, 1e4])
def test_weights_sum_to_M_at_every_pixel(M, form, gamma):
    loss = np.random.default_rng(M).exponential(0.05, (M, 9, 7))
    w = We.rd_weights(loss, gamma, form)
    np.testing.assert_allclose(w.sum(0), M, atol=1e-12)
    assert w.min() >= 0


def test_component_loss_is_against_its_own_source():
    c = np.stack([np.zeros((4, 4)), np.ones((4, 4))])
    x = np.stack([np.full((4, 4), 0.5), np.full((4, 4), 3.0)])
    np.testing.assert_allclose(We.component_loss(c, x), np.stack([np.full((4, 4), 0.25), np.full((4, 4), 4.0)]))
    with pytest.raises(ValueError, match="one shape"):
        We.component_loss(c, x[:, :2])


def test_scd_refuses_a_constant_fused_image():
    rng = np.random.default_rng(0)
    A, B = rng.random((16, 16)), rng.random((16, 16))
    with pytest.raises(ValueError, match="constant"):
        Me.scd(np.full((16, 16), 0.5), A, B)
    assert -2 <= Me.scd(0.5 * (A + B), A, B) <= 2


def _fake(seed, values, control):
    """A result whose every measurement has the given per-pair values (and its control the other ones)."""
    per = {k: np.asarray(values[k], float) for k in KEYS}
    per.update({k + "_control": np.asarray(control[k], float) for k in KEYS})
    per["psnr_recon"] = per["psnr_control"]
    return SimpleNamespace(seed=seed, pairs=[None] * len(per["cov"]), per_gamma={1.0: per, 50.0: per})


def _results(share_good, share_control):
    def vals(share, n=10):
        good = int(round(share * n))
        return {"cov": [-1.0] * good + [1.0] * (n - good), "quality": [-0.5] * good + [0.5] * (n - good),
                "AG": [0.01] * good + [-0.01] * (n - good), "SF": [0.01] * good + [-0.01] * (n - good),
                "psnr": [0.1] * good + [-0.1] * (n - good)}
    return [_fake(s, vals(a), vals(b)) for s, a, b in zip((0, 1, 2), share_good, share_control, strict=True)]


def test_shares_count_the_property_of_each_pair():
    res = _results((0.8, 0.7, 0.6), (0.2, 0.3, 0.4))
    assert Re.shares(res, 50.0, "cov") == {0: 0.8, 1: 0.7, 2: 0.6}
    assert Re.shares(res, 1.0, "psnr_control") == {0: 0.2, 1: 0.3, 2: 0.4}


def test_claim_holds_only_when_every_seed_has_a_majority():
    for good, want in (((0.8, 0.7, 0.6), "pass"), ((0.8, 0.7, 0.4), "fail")):
        kw = Re._check(_results(good, (0.2, 0.3, 0.4)), 50.0, "quality", "c", "p", "s")
        assert kw["per_seed"] == dict(zip((0, 1, 2), good, strict=True))
        assert kw["interval"].level is None                 # three seeds: a range, not a "95 %" interval
        assert claims.outcome("ttd.x", **kw) == want
    kw = Re._check(_results((0.8, 0.7, 0.6), (0.9, 0.8, 0.7)), 50.0, "psnr", "c", "p", "s")
    assert claims.outcome("ttd.x", **kw) == "control holds"


def test_sharpness_is_judged_by_the_mean_gain_against_the_papers_one_percent():
    res = _results((1.0, 1.0, 0.6), (0.0, 0.0, 0.0))        # AG gains +1 %, +1 %, +0.2 % per seed
    np.testing.assert_allclose(list(Re.shares(res, 50.0, "AG").values()), [0.01, 0.01, 0.002])
    assert claims.outcome("ttd.x", **Re._check(res, 50.0, "AG", "c", "p", "s")) == "fail"
    res = _results((1.0, 1.0, 1.0), (0.0, 0.0, 0.0))
    assert claims.outcome("ttd.x", **Re._check(res, 50.0, "SF", "c", "p", "s")) == "pass"


def test_checks_cover_both_gammas_and_every_measure():
    ids = Re.checks(_results((0.8, 0.7, 0.6), (0.2, 0.3, 0.4))).keys()
    for name in ("covariance_negative", "weights_follow_quality", "ag_gain", "sf_gain", "closer_to_truth"):
        assert f"ttd.{name}" in ids and f"ttd.{name}_gamma1" in ids


@pytest.mark.parametrize("call", [
    lambda r: Re.shares(r, 50.0, "sharpness"),
    lambda r: Re.shares(r, 7.0, "cov"),
    lambda r: Re.shares(r[:2], 50.0, "cov"),
])
def test_bad_inputs(call):
    with pytest.raises(ValueError):
        call(_results((0.8, 0.7, 0.6), (0.2, 0.3, 0.4)))
