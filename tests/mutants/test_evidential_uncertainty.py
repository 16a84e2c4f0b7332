"""Planted bugs in the evidential-uncertainty chapter: each must make one of its claims fail.

Small size: the Gaussian-mixture experiment (the five claims that hold; the digits claims are recorded as not
reproduced and are left out) at λ = 0.1 only, 32-unit networks and shorter training, 3 seeds. A mutant
retrains only the networks its bug touches (``run_gaussian(..., reuse=base_run, retrain=...)``); the others
come from the unmutated run.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.edl import experiment, objectives, reproduction
from neurips24.edl.dirichlet import _kl

from .harness import assert_caught, outcomes

CHAPTER = "evidential_uncertainty"
SMALL = dict(lams=(0.1,), M=8, n_test=500, hidden=(32, 32), steps=500, boot_steps=800, distill_steps=400)


@pytest.fixture(scope="module")
def base_run():
    torch.set_num_threads(1)
    return experiment.run_gaussian("fast", overrides=SMALL)


@pytest.fixture(scope="module")
def base(base_run):
    return outcomes(reproduction.checks(base_run))


def rerun(base_run, *parts):
    return outcomes(reproduction.checks(experiment.run_gaussian("fast", overrides=SMALL, reuse=base_run,
                                                                retrain=parts)))


def test_relu_evidence(monkeypatch, base_run, base):
    def relu_plus_one(f):
        return torch.relu(f) + 1 if isinstance(f, torch.Tensor) else np.maximum(f, 0) + 1

    monkeypatch.setattr(objectives, "evidence", relu_plus_one)
    assert_caught(CHAPTER, "relu_evidence", "EDL's concentrations are relu(f) + 1 instead of exp(f) (the "
                  "parameterisation of Sensoy et al., not the one the paper analyses)", rerun(base_run, "edl"), base)


def test_regulariser_sign(monkeypatch, base_run, base):
    def flipped(alpha, onehot, nu, prior=1.0):
        fit = torch.special.digamma(alpha.sum(-1)) - (torch.special.digamma(alpha) * onehot).sum(-1)
        return (nu * fit.unsqueeze(-1)).squeeze(-1) - _kl(alpha, torch.full_like(alpha, prior))

    monkeypatch.setattr(objectives, "reverse_kl_terms", flipped)
    try:
        mutated = rerun(base_run, "edl")
    except ValueError as err:       # the evidence overflows: the run stops with a clear error, every claim gone
        assert "finite" in str(err) or "overflow" in str(err)
        mutated = {}
    assert_caught(CHAPTER, "regulariser_sign", "the KL regulariser toward the flat Dirichlet is subtracted "
                  "instead of added (the run stops: the evidence overflows)", mutated, base)


def test_regulariser_dropped(monkeypatch, base_run, base):
    def fit_only(alpha, onehot, nu, prior=1.0):
        fit = torch.special.digamma(alpha.sum(-1)) - (torch.special.digamma(alpha) * onehot).sum(-1)
        return (nu * fit.unsqueeze(-1)).squeeze(-1)

    monkeypatch.setattr(objectives, "reverse_kl_terms", fit_only)
    assert_caught(CHAPTER, "regulariser_dropped", "the KL regulariser toward the flat Dirichlet is left out "
                  "(the label term alone)", rerun(base_run, "edl"), base)


def test_bootstrap_without_resampling(monkeypatch, base_run, base):
    def no_resampling(pools, seeds, N_values, M):
        meta, datasets = [], []
        for s in seeds:
            X, y = pools[s]
            for N in N_values:
                for j in range(M):
                    meta.append((s, N, j))
                    datasets.append((X[:N], y[:N], None))           # every member sees the same N points
        return meta, datasets

    monkeypatch.setattr(experiment, "_bootstrap_datasets", no_resampling)
    assert_caught(CHAPTER, "bootstrap_without_resampling", "the bootstrap members train on the N points "
                  "themselves, not on resamples with replacement", rerun(base_run, "boot", "distill"), base)


def test_lambda_ignored(monkeypatch, base_run, base):
    real = objectives.reverse_kl_terms
    monkeypatch.setattr(objectives, "reverse_kl_terms", lambda alpha, onehot, nu, prior=1.0:
                        real(alpha, onehot, torch.ones_like(torch.as_tensor(nu)), prior))
    assert_caught(CHAPTER, "lambda_ignored", "the label term is weighted by 1 instead of ν = 1/λ (the "
                  "regulariser weight never reaches the loss)", rerun(base_run, "edl"), base)
