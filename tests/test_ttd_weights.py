"""TTD's weights and fusion (ttd.weights): closed forms of the softmax weights for M = 2, the code's range
[0.54, 1.46], the uni-source component as a special case of the weighted fusion, Theorem 3.1's terms on stub
networks worked by hand, and bad inputs."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.special import softmax

from neurips24.ttd import network as Ne
from neurips24.ttd import weights as We

torch.set_num_threads(1)
RNG = np.random.default_rng(0)
LOSS = RNG.random((2, 16, 12)) * 0.05


def test_rd_weights_two_sources_closed_form():
    for gamma in (We.GAMMA_PAPER, We.GAMMA_CODE, 7.0):
        w = We.rd_weights(LOSS, gamma, "exp")
        z = np.exp(-gamma * LOSS)
        np.testing.assert_allclose(w[0], 2 / (1 + np.exp(z[1] - z[0])), rtol=1e-12)
        np.testing.assert_allclose(w.sum(0), 2.0, atol=1e-12)


def test_rd_weights_range_is_the_codes():
    ell = np.zeros((2, 8, 8))
    ell[1] = 1e3                                    # source 1 perfect, source 2 hopeless: z = (1, 0)
    w = We.rd_weights(ell, We.GAMMA_CODE)
    np.testing.assert_allclose(w[0], 2 * np.e / (1 + np.e), rtol=1e-12)     # ≈ 1.46
    np.testing.assert_allclose(w[1], 2 / (1 + np.e), rtol=1e-12)            # ≈ 0.54


def test_neg_form_is_scipy_softmax_and_static_is_one():
    ell = RNG.random((3, 9, 9))
    np.testing.assert_allclose(We.rd_weights(ell, 4.0, "neg"), 3 * softmax(-4.0 * ell, axis=0), rtol=1e-12)
    np.testing.assert_array_equal(We.rd_weights(ell, 4.0, "static"), np.ones_like(ell))


def test_weights_fall_with_the_sources_own_loss():
    ell = np.stack([np.linspace(0, 0.05, 50)[None].repeat(3, 0), np.full((3, 50), 0.02)])
    w = We.rd_weights(ell)
    assert np.all(np.diff(w[0], axis=1) < 0)


@pytest.fixture(scope="module")
def net():
    torch.manual_seed(0)
    return Ne.FusionNet(4).eval()


@pytest.mark.parametrize("rule, full_weight", [("sum", 1.0), ("mean", 2.0)])
def test_fuse_static_equals_weights_of_one_and_single_source_weight_gives_uni_source(rule, full_weight):
    torch.manual_seed(0)
    net = Ne.FusionNet(4, rule).eval()
    x = RNG.random((2, 24, 20)).astype(np.float32)
    np.testing.assert_allclose(We.fuse(net, x), We.fuse(net, x, np.ones_like(x)), atol=1e-6)
    onehot = np.zeros_like(x)
    onehot[0] = full_weight                          # ω = (1, 0) for the sum, (M, 0) for the mean: D(E(x_1))
    comp = We.uni_source_components(net, x)
    np.testing.assert_allclose(We.fuse(net, x, onehot, normalise=False), comp[0], atol=1e-5)
    np.testing.assert_allclose(We.uni_source_loss(net, x), (comp - x) ** 2, atol=1e-6)


def test_fuse_is_min_max_normalised(net):
    out = We.fuse(net, RNG.random((2, 24, 20)))
    assert out.min() == 0.0 and out.max() == pytest.approx(1.0)


def test_ttd_fuse_runs_algorithm_one(net):
    x = RNG.random((2, 24, 20)).astype(np.float32)
    out = We.ttd_fuse(net, x, gamma=50.0)
    np.testing.assert_allclose(out["weights"], We.rd_weights(We.uni_source_loss(net, x), 50.0), atol=1e-12)
    np.testing.assert_allclose(out["fused"], We.fuse(net, x, out["weights"]), atol=1e-6)


class _Scale(torch.nn.Module):
    """Stub network: every uni-source component is c · x_m."""

    def __init__(self, c):
        super().__init__()
        self.c = c

    def forward(self, sources, weights=None):
        w = torch.ones_like(sources) if weights is None else weights
        return self.c * (w * sources).mean(1)


def test_bound_terms_identity_network_by_hand():
    x = RNG.random((2, 10, 10))
    t = We.bound_terms(_Scale(1.0), x, np.ones_like(x))
    # ℓ_m = 0; expectation = (1/2) [(2-1) c_{2,1} + (2-1) c_{1,2}] = mean((x_1 − x_2)²)
    assert t["covariance"] == 0.0
    np.testing.assert_allclose(t["expectation"], np.mean((x[0] - x[1]) ** 2), rtol=1e-6)


def test_bound_terms_covariance_against_numpy_cov():
    x = RNG.random((2, 10, 10))
    w = We.rd_weights(RNG.random((2, 10, 10)))
    t = We.bound_terms(_Scale(2.0), x, w)
    ell = (2 * x - x) ** 2                                              # ℓ_m = x_m²
    ref = sum(np.cov(w[m].ravel() / 2, ell[m].ravel(), bias=True)[0, 1] for m in range(2))
    np.testing.assert_allclose(t["covariance"], ref, rtol=1e-5)
    assert t["bound"] == pytest.approx(t["covariance"] + t["expectation"])


@pytest.mark.parametrize("call", [
    lambda: We.rd_weights(LOSS[:1]),                          # M < 2
    lambda: We.rd_weights(LOSS, gamma=0.0),                   # γ ≤ 0
    lambda: We.rd_weights(LOSS, gamma=-50.0),
    lambda: We.rd_weights(LOSS, gamma=np.inf),
    lambda: We.rd_weights(np.where(LOSS > 0.02, np.nan, LOSS)),
    lambda: We.rd_weights(-LOSS),
    lambda: We.rd_weights(LOSS, form="max"),
    lambda: We.stack_sources(np.zeros((16, 16)), np.zeros((16, 12))),  # sources of different shapes
    lambda: We.stack_sources(np.zeros((16, 16))),                      # one source
    lambda: We.uni_source_loss(None, np.full((2, 16, 16), np.inf)),    # non-finite pixels
    lambda: We.bound_terms(_Scale(1.0), np.zeros((2, 16, 16)), np.ones((2, 16, 16)) * 0.3),  # Σ ω ≠ M
])
def test_bad_inputs_raise_value_error(call):
    with pytest.raises(ValueError):
        call()


def test_bad_weights_shape_in_fuse(net):
    with pytest.raises(ValueError):
        We.fuse(net, np.zeros((2, 16, 16)), np.ones((2, 8, 8)))
