"""Redundancy (CKA under neuron masks) and robustness (sensitivity to input noise) of features, and linear CKA
against a direct HSIC computation on centred Gram matrices."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24 import complexity as cx
from neurips24.complexity import redundancy as R
from neurips24.complexity import robustness as S

torch.set_num_threads(1)


def hsic_cka(X, Y):
    """CKA from its definition: HSIC(K, L) / sqrt(HSIC(K, K) HSIC(L, L)), K = XXᵀ, L = YYᵀ, HSIC = tr(KHLH)/(n-1)²."""
    n = len(X)
    H = np.eye(n) - np.ones((n, n)) / n
    K, L = X @ X.T, Y @ Y.T
    hsic = lambda A, B: np.trace(A @ H @ B @ H) / (n - 1) ** 2   # noqa: E731
    return hsic(K, L) / np.sqrt(hsic(K, K) * hsic(L, L))


@pytest.mark.parametrize("p, q", [(24, 8), (24, 1), (5, 30)])
def test_linear_cka_equals_hsic_on_centred_gram_matrices(p, q):
    rng = np.random.default_rng(p + q)
    X = rng.normal(size=(120, p)) + 3.0                      # uncentred on purpose
    Y = np.abs(X[:, :3] @ rng.normal(size=(3, q)) + rng.normal(size=(120, q)))
    assert cx.linear_cka(X, Y) == pytest.approx(hsic_cka(X, Y), rel=1e-10)


def test_masked_ratios_equal_cka_of_the_masked_layer_one_mask_and_feature_at_a_time():
    rng = np.random.default_rng(0)
    F = np.abs(rng.normal(size=(200, 24)))
    Z = np.abs(F[:, :6] @ rng.random((6, 8)) + 0.2 * rng.random((200, 8)))
    masks = R.random_neuron_masks(24, keep=0.5, n_masks=5, seed=1)
    got = R.masked_cka_ratios(F, Z, masks)
    for m in range(5):
        for j in range(8):
            direct = hsic_cka(F * masks[m], Z[:, [j]]) / hsic_cka(F, Z[:, [j]])
            assert got[m, j] == pytest.approx(direct, rel=1e-9)
    np.testing.assert_allclose(R.redundancy(F, Z, 0.5, 5, seed=1), np.minimum(got, 1).mean(0))


def test_redundancy_orders_a_spread_feature_above_a_one_neuron_feature():
    rng = np.random.default_rng(0)
    F = rng.normal(size=(400, 20))
    F[:, 10:] = F[:, :10] + 0.1 * rng.normal(size=(400, 10))    # every neuron has a near copy
    Z = np.stack([F[:, :10].sum(1), F[:, 0] - F[:, 10]], 1)   # spread vs one difference direction
    r = R.redundancy(F, Z, keep=0.3, n_masks=200)
    assert r[0] > r[1] + 0.1 and ((r >= 0) & (r <= 1)).all()
    # without the clip the mean cannot tell them apart (the numerator is linear in the mask)
    raw = R.masked_cka_ratios(F, Z, R.random_neuron_masks(20, 0.3, 200)).mean(0)
    assert abs(raw[0] - raw[1]) < 0.05
    assert np.all(R.masked_cka_ratios(F, Z, np.ones((1, 20), bool)) == pytest.approx(1.0))   # no mask: 1


def test_masks_keep_the_right_count_and_differ():
    m = R.random_neuron_masks(10, keep=0.3, n_masks=50, seed=0)
    assert m.dtype == bool and m.shape == (50, 10) and (m.sum(1) == 3).all()
    assert len({tuple(r) for r in m}) > 10
    assert R.random_neuron_masks(10, keep=0.01, n_masks=2).sum(1).tolist() == [1, 1]


@pytest.mark.parametrize("kw, match", [({"keep": 0.0}, "keep"), ({"keep": 1.5}, "keep"), ({"keep": np.nan}, "keep"),
                                       ({"n_masks": 0}, "n_masks"), ({"n_masks": 2.0}, "n_masks")])
def test_redundancy_rejects_bad_mask_settings(kw, match):
    F = np.random.default_rng(0).normal(size=(30, 6))
    with pytest.raises(ValueError, match=match):
        R.redundancy(F, F[:, :2], **kw)


def test_redundancy_rejects_bad_arrays():
    rng = np.random.default_rng(0)
    F, Z = rng.normal(size=(30, 6)), rng.normal(size=(30, 2))
    with pytest.raises(ValueError, match="same rows"):
        R.redundancy(F, Z[:-1])
    with pytest.raises(ValueError, match="boolean"):
        R.masked_cka_ratios(F, Z, np.ones((2, 6)))
    with pytest.raises(ValueError, match="boolean"):
        R.masked_cka_ratios(F, Z, np.ones((2, 5), bool))
    with pytest.raises(ValueError, match="constant"):
        R.redundancy(np.ones((30, 6)), Z)
    Zc = Z.copy()
    Zc[:, 1] = 4.0
    with pytest.raises(ValueError, match=r"feature\(s\) \[1\]"):
        R.redundancy(F, Zc)
    Fn = F.copy()
    Fn[0, 0] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        R.redundancy(Fn, Z)
    with pytest.raises(ValueError, match="p must be"):
        R.random_neuron_masks(0)


def test_noise_sensitivity_by_hand():
    Zc = np.array([[0.0, 1.0], [2.0, 1.0], [4.0, 4.0]])
    Zn = np.stack([Zc + np.array([1.0, 0.0]), Zc - np.array([1.0, 3.0])])
    # feature 0 moves by ±1 (mean square 1), variance 8/3; feature 1 by 0 or 3 (mean square 4.5), variance 2
    np.testing.assert_allclose(S.noise_sensitivity(Zc, Zn), [1 / (8 / 3), 4.5 / 2])
    assert (S.noise_sensitivity(Zc, Zc[None]) == 0).all()
    np.testing.assert_allclose(S.noise_sensitivity(Zc, Zn, variance=[2.0, 4.5]), [0.5, 1.0])


def test_noise_sensitivity_rejects_bad_inputs():
    Zc = np.random.default_rng(0).random((5, 3))
    with pytest.raises(ValueError, match="Z_noisy must be"):
        S.noise_sensitivity(Zc, Zc)
    with pytest.raises(ValueError, match="Z_noisy must be"):
        S.noise_sensitivity(Zc, np.zeros((0, 5, 3)))
    bad = np.stack([Zc, Zc])
    bad[1, 0, 0] = np.inf
    with pytest.raises(ValueError, match="non-finite"):
        S.noise_sensitivity(Zc, bad)
    const = Zc.copy()
    const[:, 2] = 1.0
    with pytest.raises(ValueError, match=r"feature\(s\) \[2\]"):
        S.noise_sensitivity(const, const[None])
    assert S.noise_sensitivity(const, const[None], variance=[1.0, 1.0, 1.0]).tolist() == [0, 0, 0]
    with pytest.raises(ValueError, match="variance must be"):
        S.noise_sensitivity(Zc, Zc[None], variance=[1.0, 1.0])
    with pytest.raises(ValueError, match=r"feature\(s\) \[1\]"):
        S.noise_sensitivity(Zc, Zc[None], variance=[1.0, 0.0, 1.0])


def test_noisy_activations_and_feature_sensitivity_on_a_small_resnet():
    model = cx.build_resnet(width=6, n_blocks=1)
    x = torch.rand(40, 1, 8, 8)
    clean = cx.pooled_activations(model, x, ["pool"])["pool"]
    noisy = S.noisy_activations(model, x, "pool", sigma=0.2, n_draws=3, seed=0)
    assert noisy.shape == (3, 40, 6) and not np.allclose(noisy[0], noisy[1])
    np.testing.assert_array_equal(noisy, S.noisy_activations(model, x, "pool", sigma=0.2, n_draws=3, seed=0))
    # a direct draw with the same generator reproduces the first noisy pass
    gen = torch.Generator().manual_seed(0)
    first = cx.pooled_activations(model, x + 0.2 * torch.randn(x.shape, generator=gen), ["pool"])["pool"]
    np.testing.assert_allclose(noisy[0], first, rtol=1e-12)
    dic = cx.fit_dictionary(clean, 3)
    sens = S.feature_sensitivity(dic, clean, noisy)
    expected = S.noise_sensitivity(dic.encode(clean), np.stack([dic.encode(a) for a in noisy]))
    np.testing.assert_allclose(sens, expected)
    small = S.feature_sensitivity(dic, clean, S.noisy_activations(model, x, "pool", sigma=0.01, n_draws=3))
    assert (small < sens).all() and (sens > 0).all()
    with pytest.raises(ValueError, match="noisy_acts must be"):
        S.feature_sensitivity(dic, clean, noisy[0])


@pytest.mark.parametrize("kw, match", [({"sigma": 0.0}, "sigma"), ({"sigma": np.inf}, "sigma"),
                                       ({"n_draws": 0}, "n_draws"), ({"layer": "blocks.9"}, "do not exist")])
def test_noisy_activations_rejects_bad_inputs(kw, match):
    model = cx.build_resnet(width=4, n_blocks=1)
    args = {"layer": "pool", "sigma": 0.1, "n_draws": 1} | kw
    with pytest.raises(ValueError, match=match):
        S.noisy_activations(model, torch.rand(4, 1, 8, 8), **args)


def _analysis(seed, k=9, blocks=4):
    from neurips24.complexity.experiment import Analysis

    rng = np.random.default_rng(seed)
    a = Analysis(f"toy {seed}", rng.random(k), rng.random(k) + 0.1, rng.random((blocks, k)),
                 [f"blocks.{i}" for i in range(blocks)], rng.random(blocks), rng.random(blocks), rng.random((20, k)),
                 rng.random((k, 5)))
    a.redundancy, a.sensitivity = rng.random(k), rng.random(k) + 0.01
    return a


def test_new_plots_draw_every_series():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = cx.plots.plot_flow({"toy": [("trained", [_analysis(0), _analysis(1)], "-"), ("init", [_analysis(2)], ":")]})
    ax = fig.axes[0]
    assert len(ax.lines) == 2 * 2 + 2 * 1 + 2 and ax.get_ylabel().startswith("linear CKA")   # seeds + means
    plt.close(fig)
    fig = cx.plots.plot_redundancy_robustness([("a", _analysis(0), "C0", "o"), ("b", _analysis(1), "C3", "^")])
    assert [len(ax.collections) for ax in fig.axes] == [2, 2] and fig.axes[1].get_yscale() == "log"
    assert "ρ =" in fig.axes[0].get_legend().get_texts()[0].get_text()
    plt.close(fig)


@pytest.mark.parametrize("train, test, match", [([0], [2, 3], "train must be"), ([0, 1], [2, 9], "test must be"),
                                                ([0, 1], [1, 2], "disjoint"), ([0.0, 1.0], [2, 3], "train must be")])
def test_check_split_rejects_bad_splits(train, test, match):
    with pytest.raises(ValueError, match=match):
        cx.vinfo.check_split(train, test, 6)
    tr, te = cx.vinfo.check_split([0, 1], [2, 3], 6)
    assert tr.tolist() == [0, 1] and te.tolist() == [2, 3]
