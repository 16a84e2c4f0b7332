"""edl.reproduction: the energy identity as a unit test (no training), and the checks' rules on hand-made runs."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from neurips24 import claims
from neurips24.edl import experiment, reproduction, uncertainties
from neurips24.edl.data import GaussianMixture


@pytest.mark.parametrize("C, scale", [(3, 1.0), (5, 2.0), (10, 3.0)])
def test_mutual_information_ranks_like_the_energy_for_any_logits(C, scale):
    """With α = exp(f), MI ≈ (C − 1) / (2 (1 + e^{−E})): a monotone function of the energy for *any* logits.
    Untrained (random) logits already rank like the energy, which is why this is not a reproduction check."""
    f = np.random.default_rng(C).normal(scale=scale, size=(2000, C))
    u = uncertainties(np.exp(f))
    rho = spearmanr(u["epistemic"], -np.log(u["alpha0"])).statistic
    assert rho > 0.95


def _fake_run(edl_mi: dict, boot_mi: dict, dist_mi: dict, alpha0_dev: float = 0.02) -> experiment.GaussianRun:
    """A GaussianRun whose summaries are replaced by given per-N means (seeds 0, 1, 2; λ = 0.1)."""
    seeds, Ns, lam = (0, 1, 2), (100, 1000, 10_000), 0.1
    run = experiment.GaussianRun(config={"seeds": seeds, "N_values": Ns, "lams": (lam,)}, mixture=GaussianMixture(),
                                 X_test=None, y_test=None, eta_test=None, pools={}, edl_meta=[], boot_meta=[],
                                 distill_meta=[], edl_alpha=None, boot_probs=None, distill_alpha=None)
    one = np.ones(3)
    run.edl_stats = lambda: {(N, lam): {"alpha0": 13 * (1 + alpha0_dev) * one, "epistemic": edl_mi[N] * one}
                             for N in Ns}
    run.boot_stats = lambda: {N: {"epistemic": boot_mi[N] * one} for N in Ns}
    run.distill_stats = lambda: {N: {"alpha0": 500 * one, "epistemic": dist_mi[N] * one} for N in Ns}
    return run


GOOD = dict(edl_mi={100: 0.07, 1000: 0.067, 10_000: 0.066}, boot_mi={100: 0.08, 1000: 0.012, 10_000: 0.002},
            dist_mi={100: 0.07, 1000: 0.01, 10_000: 0.0015})


def _outcomes(run):
    return {cid: claims.outcome(cid, scale="fast", **kw) for cid, kw in reproduction.checks(run).items()}


def test_checks_pass_on_the_expected_pattern():
    assert set(_outcomes(_fake_run(**GOOD)).values()) == {"pass"}


def test_level_check_fails_for_an_ensemble_that_never_disagrees():
    """Without resampling the ensemble's MI is tiny at every N: the ratio across N may still look fine."""
    quiet = dict(GOOD, boot_mi={100: 0.003, 1000: 0.0006, 10_000: 0.0006 * 0.15})
    out = _outcomes(_fake_run(**quiet))
    assert out["edl.boot_level"] == "fail" and out["edl.boot_vanishes"] == "pass"


def test_evidence_far_from_theory_fails():
    assert _outcomes(_fake_run(**GOOD, alpha0_dev=0.3))["edl.total_evidence"] == "fail"


def test_checks_need_the_three_sizes():
    run = _fake_run(**GOOD)
    run.config = dict(run.config, N_values=(100, 1000))
    with pytest.raises(ValueError, match="needs N"):
        reproduction.checks(run)


def test_overrides_are_validated():
    with pytest.raises(ValueError, match="unknown keys"):
        experiment.run_gaussian("fast", overrides={"stepz": 3})
    with pytest.raises(ValueError, match="retrain"):
        experiment.run_gaussian("fast", overrides={"M": 2}, reuse=_fake_run(**GOOD), retrain=("nets",))
