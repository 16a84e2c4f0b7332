"""Chain sampler, estimators and bad inputs."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.markov import chain


def test_stationary_is_left_eigenvector():
    P = chain.transition_matrix(0.3, 0.6)
    pi = chain.stationary(0.3, 0.6)
    np.testing.assert_allclose(pi @ P, pi, atol=1e-15)
    assert pi.sum() == pytest.approx(1.0)


def test_binary_entropy_hand_values():
    assert chain.binary_entropy(0.5) == pytest.approx(np.log(2))
    assert chain.binary_entropy(0.0) == 0.0 and chain.binary_entropy(1.0) == 0.0
    with pytest.raises(ValueError, match="x must lie"):
        chain.binary_entropy(1.5)


def test_sampler_statistics():
    x = chain.sample_chain(0.2, 0.3, 400, 200, torch.Generator().manual_seed(0))
    assert x.shape == (400, 200) and x.dtype == torch.int64
    p_hat, q_hat = chain.estimate_switching(x)
    assert p_hat == pytest.approx(0.2, abs=0.01) and q_hat == pytest.approx(0.3, abs=0.01)
    assert x[:, 0].float().mean().item() == pytest.approx(0.4, abs=0.07)     # π₁ = 0.2 / 0.5
    # the true predictor's empirical loss is near the entropy rate
    prob = torch.where(x[:, :-1] == 1, 0.7, 0.2).numpy()
    assert chain.predictor_loss(x, prob) == pytest.approx(chain.bigram_loss(0.2, 0.3), abs=0.01)


def test_sampler_is_reproducible():
    a = chain.sample_chain(0.9, 0.9, 3, 10, torch.Generator().manual_seed(5))
    b = chain.sample_chain(0.9, 0.9, 3, 10, torch.Generator().manual_seed(5))
    assert torch.equal(a, b)


@pytest.mark.parametrize(("kwargs", "match"), [(dict(length=1), "length"), (dict(batch=0), "batch"),
                                               (dict(p=1.0), "p must"), (dict(q=0.0), "q must"),
                                               (dict(initial="x"), "initial")])
def test_sampler_bad_input(kwargs, match):
    args = dict(p=0.5, q=0.5, batch=2, length=5) | kwargs
    with pytest.raises(ValueError, match=match):
        chain.sample_chain(**args)


@pytest.mark.parametrize(("x", "match"), [([[0, 1, 2]], "binary"), ([[0, -1, 1]], "binary"),
                                          ([[1]], "length T >= 2"), (np.zeros((2, 2, 2)), "shape")])
def test_non_binary_or_short_sequences_raise(x, match):
    with pytest.raises(ValueError, match=match):
        chain.estimate_switching(x)
