"""The reduced (e, w, b) model written into the LayerNorm-free transformer, and (e, w) read back off it."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.markov import canonical, chain, reduced
from neurips24.markov import model as mdl
from neurips24.markov.train import TrainResult, oracle_loss

POINTS = [(0.8, 0.3, 0.1), (1.5, -1.2, -0.4), (0.3, -0.2, 0.7), (1.1, 0.9, 0.0), (-0.6, -2.5, 0.2)]


def _embedded(points, length=16, alpha=None):
    m = mdl.EnsembleTransformer(len(points), 8, length, variant="simple")
    for i, (e, w, b) in enumerate(points):
        canonical.embed_reduced(m, i, e, w, b, alpha=alpha)
    return m


@pytest.mark.parametrize("alpha", [None, np.linspace(-1.0, 2.0, 8)])
def test_embedded_transformer_has_the_reduced_logits(alpha):
    m = _embedded(POINTS, alpha=alpha)
    x = chain.sample_chain(0.6, 0.7, 5, 16, torch.Generator().manual_seed(0)).expand(len(POINTS), 5, 16)
    with torch.no_grad():
        logits = m(x)
    z = (logits[..., 1] - logits[..., 0]).double()
    for i, (e, w, b) in enumerate(POINTS):
        f0, f1 = reduced.logits(e, w, b)                       # the paper's logit, from the reduced module
        want = torch.where(x[i] == 1, float(f1), float(f0)).double()
        torch.testing.assert_close(z[i], want, rtol=1e-5, atol=1e-5)


def test_reading_recovers_the_embedded_coordinates():
    m = _embedded(POINTS)
    x = chain.sample_chain(0.6, 0.7, 4, 16, torch.Generator().manual_seed(1)).expand(len(POINTS), 4, 16)
    out = canonical.read_coordinates(m, x)
    np.testing.assert_allclose(out["e"], [abs(p[0]) for p in POINTS], rtol=1e-6)
    np.testing.assert_allclose(out["w"], [p[1] for p in POINTS], rtol=1e-4, atol=1e-5)
    f0 = reduced.logits(np.array([p[0] for p in POINTS]), np.array([p[1] for p in POINTS]),
                        np.array([p[2] for p in POINTS]))[0]
    np.testing.assert_allclose(out["intercept"], f0, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(("p", "q"), [(0.5, 0.8), (0.2, 0.3)])
def test_embedded_transformer_loss_is_the_population_loss(p, q):
    # the transformer's cross-entropy on many sampled sequences against the closed-form L(e, w, b) (nats);
    # the difference to the true predictor's loss on the same sequences cancels most sampling noise
    pts = [(1.0, -1.1, 0.2), (0.5, 0.4, -0.3)]
    m = _embedded(pts, length=64)
    x = chain.sample_chain(p, q, 400, 64, torch.Generator().manual_seed(2)).expand(len(pts), 400, 64)
    with torch.no_grad():
        got = m.loss_per_model(x).double().numpy() - float(oracle_loss(x[0], p, q))
    want = np.array([reduced.loss(e, w, b, p, q) for e, w, b in pts]) - chain.bigram_loss(p, q)
    np.testing.assert_allclose(got, want, atol=3e-3)


def test_bigram_and_unigram_points_give_progress_one_and_zero():
    # the progress measure of the trainer, on transformers put exactly at the two minima of the reduced model
    p, q = 0.5, 0.8
    w = -1.3
    e = float(reduced.global_minimum_e(w, p, q))
    pts = [(e, w, float(reduced.optimal_bias(e, w, p, q))), (0.0, 0.4, float(np.log(p / q)))]
    m = _embedded(pts, length=128)
    x = chain.sample_chain(p, q, 256, 128, torch.Generator().manual_seed(3))
    with torch.no_grad():
        final = m.loss_per_model(x.expand(2, 256, 128)).double().numpy()
    oracle = float(oracle_loss(x, p, q))
    r = TrainResult(p, q, [0, 0], ["good", "standard"], np.zeros((2, 1)), np.zeros((2, 1)), final,
                    np.full(2, oracle), chain.bigram_loss(p, q), chain.unigram_loss(p, q))
    np.testing.assert_allclose(r.progress(), [1.0, 0.0], atol=0.03)


def test_reading_at_e_zero_gives_nan_w():
    m = mdl.initialize(mdl.EnsembleTransformer(1, 8, 16, variant="simple"), [0], ["good"])   # wte rows equal
    x = chain.sample_chain(0.5, 0.8, 4, 16, torch.Generator().manual_seed(0))[None]
    out = canonical.read_coordinates(m, x)
    assert out["e"][0] == 0 and np.isnan(out["w"][0])


@pytest.mark.parametrize(("kwargs", "match"), [(dict(e=float("nan")), "^e must"), (dict(w=float("inf")), "^w must"),
                                               (dict(b="1"), "^b must"), (dict(alpha=np.zeros(8)), "^alpha"),
                                               (dict(alpha=np.ones(3)), "^alpha"), (dict(m=2), "^m must")])
def test_embed_bad_input(kwargs, match):
    m = mdl.EnsembleTransformer(2, 8, 8, variant="simple")
    args = dict(m=0, e=1.0, w=0.5, b=0.0) | kwargs
    with pytest.raises(ValueError, match=match):
        canonical.embed_reduced(m, **args)


def test_embed_refuses_the_layernorm_model():
    with pytest.raises(ValueError, match="variant 'simple'"):
        canonical.embed_reduced(mdl.EnsembleTransformer(1, 8, 8, variant="llm"), 0, 1.0, 0.5)


@pytest.mark.parametrize("variant", ["simple", "llm"])
def test_counterfactual_logits_with_the_actual_token_are_the_forward_pass(variant):
    torch.manual_seed(4)
    m = mdl.initialize(mdl.EnsembleTransformer(2, 8, 16, variant), [0, 1], ["standard", "good"])
    with torch.no_grad():
        for p in m.parameters():
            p.add_(0.3 * torch.randn_like(p))
    x = torch.randint(0, 2, (2, 3, 16))
    with torch.no_grad():
        logits = m(x)
    z = logits[..., 1] - logits[..., 0]
    z0, z1 = canonical.counterfactual_logits(m, x, 0), canonical.counterfactual_logits(m, x, 1)
    tol = 1e-5 * float(z.abs().max())
    torch.testing.assert_close(torch.where(x == 1, z1, z0), z, rtol=1e-5, atol=tol)
    assert (z1 - z0)[x == 1].abs().max() > 10 * tol          # the other token does change the prediction


def test_counterfactual_bad_token():
    m = mdl.EnsembleTransformer(1, 8, 8, variant="simple")
    with pytest.raises(ValueError, match="token"):
        canonical.counterfactual_logits(m, torch.zeros(1, 1, 8, dtype=torch.long), 2)
    with pytest.raises(ValueError, match="x must be binary"):
        canonical.read_coordinates(m, torch.full((1, 1, 8), 2))
