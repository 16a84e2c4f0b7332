"""Tests of the feature-complexity measures (neurips24.complexity) against independent references."""
import numpy as np
import pytest
import torch
from sklearn.linear_model import Ridge
from sklearn.metrics import r2_score

from neurips24 import complexity as cx

torch.set_num_threads(1)


def _data(n=200, p=12, k=5, seed=0):
    rng = np.random.default_rng(seed)
    F = rng.normal(size=(n, p))
    Z = F[:, :k] @ rng.normal(size=(k, k)) + 0.5 * rng.normal(size=(n, k))
    Z[:, -1] = rng.normal(size=n)            # a feature no linear decoder can read
    return F, Z


def test_v_information_matches_sklearn_ridge_and_r2_score():
    F, Z = _data()
    tr, te = cx.split_halves(len(F), seed=1)
    lam = 0.3
    mu, sd = F[tr].mean(0), F[tr].std(0)
    zmu, zsd = Z[tr].mean(0), Z[tr].std(0)
    ref = Ridge(alpha=lam * len(tr)).fit((F[tr] - mu) / sd, (Z[tr] - zmu) / zsd)
    pred = ref.predict((F[te] - mu) / sd)
    expected = np.clip(r2_score((Z[te] - zmu) / zsd, pred, multioutput="raw_values"), 0, 1)
    np.testing.assert_allclose(cx.v_information(F, Z, tr, te, lam), expected, atol=1e-10)


def test_v_information_is_clipped_at_zero_and_near_one_for_a_linear_feature():
    F, Z = _data()
    Z[:, 0] = F @ np.arange(1, 13)
    tr, te = cx.split_halves(len(F))
    iv = cx.v_information(F, Z, tr, te, lam=1e-6)
    assert iv[0] > 0.999 and iv[-1] == 0.0 and (iv >= 0).all() and (iv <= 1).all()


def test_complexity_is_one_minus_mean_decodability():
    F, Z = _data()
    tr, te = cx.split_halves(len(F))
    blocks = {"a": F[:, :3], "b": F}
    per = np.stack([cx.v_information(F[:, :3], Z, tr, te), cx.v_information(F, Z, tr, te)])
    np.testing.assert_allclose(cx.complexity(blocks, Z, tr, te), 1 - per.mean(0))


def test_linear_cka_hand_cases():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4))
    Q, _ = np.linalg.qr(rng.normal(size=(4, 4)))
    assert cx.linear_cka(X, X) == pytest.approx(1.0)
    assert cx.linear_cka(X, 3.0 * X @ Q) == pytest.approx(1.0)   # rotation and scale invariant
    Xc = X - X.mean(0)
    hand = np.linalg.norm(Xc[:, :2].T @ Xc) ** 2 / (np.linalg.norm(Xc.T @ Xc) * np.linalg.norm(Xc[:, :2].T @ Xc[:, :2]))
    assert cx.linear_cka(X, X[:, :2]) == pytest.approx(hand)


def test_importance_equals_autograd_gradient_times_input():
    rng = np.random.default_rng(0)
    Z, D, W = rng.random((30, 6)), rng.random((6, 8)), rng.normal(size=(4, 8))
    c = rng.integers(0, 4, size=30)
    z = torch.tensor(Z, requires_grad=True)
    logits = (z @ torch.tensor(D)) @ torch.tensor(W).T
    logits[torch.arange(30), torch.tensor(c)].sum().backward()
    expected = (z.grad * z).abs().mean(0).detach().numpy()
    np.testing.assert_allclose(cx.importance(Z, D, W, c), expected, rtol=1e-12)


def test_importance_is_unchanged_by_relabelling_the_classes():
    """Γ reads each input's predicted logit, so no class is privileged: permuting the head's rows and renaming
    the predictions with the same permutation gives the same Γ (a Γ read on one fixed logit would change)."""
    rng = np.random.default_rng(1)
    Z, D, W = rng.random((40, 6)), rng.random((6, 8)), rng.normal(size=(5, 8))
    c = rng.integers(0, 5, size=40)
    perm = rng.permutation(5)
    while perm[0] == 0:
        perm = rng.permutation(5)
    new_of = np.argsort(perm)                          # old class j sits in row new_of[j] of W[perm]
    np.testing.assert_allclose(cx.importance(Z, D, W[perm], new_of[c]), cx.importance(Z, D, W, c), rtol=1e-12)


def test_dictionary_reconstructs_and_encodes_like_its_fit():
    rng = np.random.default_rng(0)
    A = rng.random((80, 5)) @ rng.random((5, 16))
    dic = cx.fit_dictionary(A, 5)
    assert dic.D.shape == (5, 16) and (dic.Z >= 0).all() and (dic.D >= 0).all()
    assert np.linalg.norm(A - dic.Z @ dic.D) / np.linalg.norm(A) < 0.05
    np.testing.assert_allclose(dic.encode(A[:10]) @ dic.D, A[:10], atol=0.1 * A.max())


@pytest.mark.parametrize("k", [0, 17, 81, 2.5, True])
def test_fit_dictionary_rejects_k_larger_than_the_data_allows(k):
    A = np.random.default_rng(0).random((80, 16))
    with pytest.raises(ValueError, match="k must be"):
        cx.fit_dictionary(A, k)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -1.0])
def test_fit_dictionary_rejects_non_finite_or_negative_activations(bad):
    A = np.random.default_rng(0).random((20, 6))
    A[3, 2] = bad
    with pytest.raises(ValueError, match="non-finite|non-negative"):
        cx.fit_dictionary(A, 3)


def test_v_information_rejects_bad_inputs():
    F, Z = _data()
    tr, te = cx.split_halves(len(F))
    G = F.copy()
    G[0, 0] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        cx.v_information(G, Z, tr, te)
    with pytest.raises(ValueError, match="same rows"):
        cx.v_information(F[:-1], Z, tr[:-1], te[:-1])
    with pytest.raises(ValueError, match="disjoint"):
        cx.v_information(F, Z, tr, tr)
    with pytest.raises(ValueError, match="lam"):
        cx.v_information(F, Z, tr, te, lam=0.0)
    with pytest.raises(TypeError):
        cx.v_information(np.array([["a"]] * 4), Z[:4], [0, 1], [2, 3])


def test_importance_rejects_bad_classes_and_shapes():
    rng = np.random.default_rng(0)
    Z, D, W = rng.random((5, 3)), rng.random((3, 4)), rng.normal(size=(2, 4))
    with pytest.raises(ValueError, match="predicted"):
        cx.importance(Z, D, W, np.array([0, 1, 2, 0, 1]))
    with pytest.raises(ValueError, match="chain"):
        cx.importance(Z, D.T, W, np.zeros(5, dtype=int))


def test_pooled_activations_rejects_a_layer_that_does_not_exist_and_pools_the_rest():
    model = cx.build_resnet(width=4, n_blocks=2)
    x = torch.rand(6, 1, 8, 8)
    with pytest.raises(ValueError, match="do not exist"):
        cx.pooled_activations(model, x, ["blocks.7"])
    acts = cx.pooled_activations(model, x, ["blocks.1", "pool"])
    with torch.no_grad():
        h = model.blocks(model.stem(x))
    np.testing.assert_allclose(acts["blocks.1"], h.mean((2, 3)).double().numpy(), rtol=1e-6)
    np.testing.assert_allclose(acts["pool"], torch.relu(h).mean((2, 3)).double().numpy(), rtol=1e-6)
    assert acts["logits"].shape == (6, 10)


def test_pooled_activations_rejects_non_finite_activations():
    model = cx.build_resnet(width=4, n_blocks=1)
    x = torch.rand(3, 1, 8, 8)
    x[0, 0, 0, 0] = float("nan")
    with pytest.raises(ValueError, match="non-finite"):
        cx.pooled_activations(model, x, ["stem"])


def test_encode_is_nnls_for_small_dictionaries_and_nmf_transform_for_large():
    from scipy.optimize import nnls

    from neurips24.complexity.features import EXACT_NNLS_MAX

    rng = np.random.default_rng(1)
    A = rng.random((60, 24)) ** 2
    dic = cx.fit_dictionary(A, 24)
    assert dic.D.size <= EXACT_NNLS_MAX
    Z = dic.encode(A[:15])
    for z, a in zip(Z, A[:15], strict=True):
        best = np.linalg.norm(a - nnls(dic.D.T, a, maxiter=5000)[0] @ dic.D)
        assert (z >= 0).all() and np.linalg.norm(a - z @ dic.D) <= best + 1e-3 * np.linalg.norm(a)
    # rank-deficient dictionary (two equal atoms): the code is unique and moves little under a small change
    D = np.vstack([dic.D[:3], dic.D[:1]])
    tiny = cx.features.Dictionary(D=D, Z=np.zeros((1, 4)), nmf=None)
    a = 0.7 * D[0] + 0.2 * D[1]
    z1, z2 = tiny.encode(np.stack([a, a + 1e-6 * D[2]]))
    assert z1[0] == pytest.approx(z1[3], rel=1e-6) and np.abs(z1 - z2).max() < 1e-4
    big = rng.random((70, 80)) ** 2
    dic_big = cx.fit_dictionary(big, 60)
    assert dic_big.D.size > EXACT_NNLS_MAX
    np.testing.assert_allclose(dic_big.encode(big[:5]), dic_big.nmf.transform(big[:5]))
    with pytest.raises(ValueError, match="units"):
        dic.encode(A[:, :5])
    with pytest.raises(ValueError, match="non-negative"):
        dic.encode(-A[:3])
