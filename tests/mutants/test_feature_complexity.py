"""Planted bugs in the feature-complexity chapter: each must make one of its claims fail.

Small size: the chapter's digits ResNets (its seeds, checkpoints cached by ``cached_training``), analysed after
training and after the first epoch without the noise and timing measures; EfficientNet-Lite0 is left out. The
claims judged: the spread of complexity (asserted) and the two importance claims (recorded as not reproduced).
The bugs are in the complexity and importance code, so each mutant recomputes K and Γ of the same features
(``experiment.rescore``) instead of refitting the dictionaries.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from neurips24.complexity import experiment, reproduction, vinfo
from neurips24.complexity.resnet import digits_tensors

from .harness import assert_caught, outcomes

CHAPTER = "feature_complexity"
KEPT = ("complexity.spread", "complexity.importance", "complexity.no_relation_at_epoch1")
_IMPORTANCE = vinfo.importance


@pytest.fixture(scope="module")
def digits():
    torch.set_num_threads(1)
    s = experiment.SIZES["fast"]
    x, y = digits_tensors()
    perm = np.random.default_rng(0).permutation(len(y))
    train, test = perm[: 2 * len(y) // 3], perm[2 * len(y) // 3:]
    res = experiment.DigitsResult({}, {}, {}, {}, {}, {}, {})
    for seed in experiment.seeding.seeds(s["n_seeds"]):
        run = experiment.cached_training(x, y, train, test, seed, s["epochs"], s["width"], s["n_blocks"])
        for epoch, into in ((None, res.trained), (1, res.early)):
            into[seed] = experiment.digits_analysis(run, x, s["k_digits"], seed, s["n_blocks"], epoch=epoch,
                                                    n_draws=0)
    return res


def judged(digits):
    d = dataclasses.replace(digits, trained={s: experiment.rescore(a) for s, a in digits.trained.items()},
                            early={s: experiment.rescore(a) for s, a in digits.early.items()})
    return outcomes(reproduction.checks(None, d, only=KEPT))


@pytest.fixture(scope="module")
def base(digits):
    return judged(digits)


def test_importance_without_gradient(monkeypatch, digits, base):
    monkeypatch.setattr(experiment, "importance", lambda Z, D, W_fc, predicted: np.abs(Z).mean(0))
    assert_caught(CHAPTER, "gamma_abs_z", "Γ = E|z|: the gradient of the logit (the head) is left out of "
                  "gradient x input", judged(digits), base)


def test_importance_without_absolute_value(monkeypatch, digits, base):
    def signed(Z, D, W_fc, predicted):
        return (np.asarray(Z) * (np.asarray(W_fc) @ np.asarray(D).T)[np.asarray(predicted)]).mean(0)

    monkeypatch.setattr(experiment, "importance", signed)
    assert_caught(CHAPTER, "gamma_signed", "Γ = E[∂y_c/∂z · z] without the absolute value, so inhibiting "
                  "features cancel", judged(digits), base)


def test_in_sample_r2_without_ridge_is_caught_by_the_unit_test_not_by_a_claim(monkeypatch, digits, base):
    """V-information as the in-sample R² of an unregularised decoder. No claim catches it reliably: it lowers the
    spread of K, but on the mutant size the IQR(K) of digits seeds 3 and 4 stays at 0.102 and 0.107 against the
    rule's 0.1 (base 0.107 and 0.200), so whether complexity.spread fails depends on the last bits of training on a
    given CPU (it failed on the CI machine of 2026-12-04 and passes here), and the importance claims keep their
    verdicts (ρ(K, Γ / sd z) 0.212 [-0.015, 0.439] against 0.174 [-0.084, 0.431]). It is recorded with its
    outcomes, and the unit test that scores V-information against scikit-learn's Ridge with r2_score on held-out
    rows (tests/test_complexity_measures.py) must fail under it."""
    from neurips24 import complexity
    from tests import test_complexity_measures as unit

    def in_sample(F, Z, train, test, lam=1.0):
        Ftr, _ = vinfo._standardise(F[train], F[test])
        Ztr, _ = vinfo._standardise(Z[train], Z[test])
        W = np.linalg.lstsq(Ftr, Ztr, rcond=None)[0]       # no ridge, scored on the rows it was fitted on
        sst = ((Ztr - Ztr.mean(0)) ** 2).sum(0)
        return np.clip(1 - ((Ztr - Ftr @ W) ** 2).sum(0) / np.where(sst > 0, sst, 1.0), 0.0, 1.0)

    for module in (complexity, vinfo):
        monkeypatch.setattr(module, "v_information", in_sample)
    mutated = judged(digits)
    assert mutated["complexity.importance"] == base["complexity.importance"]      # the importance verdicts stay
    with pytest.raises(AssertionError):
        unit.test_v_information_matches_sklearn_ridge_and_r2_score()


def test_importance_read_on_logit_0_is_caught_by_the_unit_tests_not_by_a_claim(monkeypatch):
    """Γ read on logit 0: ∂y_0/∂z_i · z_i for every input instead of the predicted class's logit y_c(x). No claim
    of the chapter catches it. On the mutant size (digits seeds 0-4) the outcomes stay as they are: the paper's
    mean ρ(K, Γ) moves from -0.713 to -0.570, ρ(K, Γ / sd z) from 0.174 [-0.084, 0.431] to 0.102 [-0.190, 0.393]
    (not reproduced either way) and the epoch-1 ρ(K, Γ) from -0.432 [-0.578, -0.286] to -0.407 [-0.739, -0.074]
    (still below 0); the spread does not involve Γ. The chapter's point is that Γ's ranking of the features is
    driven by their magnitude E|z|, which the mutant keeps (its Γ ranks the features like the right one with
    Spearman 0.67-0.75 per seed). What it breaks is the definition itself, which two unit tests check
    (tests/test_complexity_measures.py): Γ equals autograd's gradient x input of the full head on each input's
    predicted logit, and relabelling the classes (permuting the head's rows with the predictions) leaves Γ
    unchanged; this test plants the bug where those tests call it and says that both fail."""
    from neurips24 import complexity
    from tests import test_complexity_measures as unit

    def logit_0(Z, D, W_fc, predicted):
        return np.abs(np.asarray(Z) * (np.asarray(W_fc) @ np.asarray(D).T)[0]).mean(0)

    for module in (complexity, vinfo, experiment):
        monkeypatch.setattr(module, "importance", logit_0)
    for unit_test in (unit.test_importance_equals_autograd_gradient_times_input,
                      unit.test_importance_is_unchanged_by_relabelling_the_classes):
        with pytest.raises(AssertionError):
            unit_test()
