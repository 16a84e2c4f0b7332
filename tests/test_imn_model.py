"""IMN model: the per-instance linear head against a hand loop, the hypernetwork's shapes, the schedule's
snapshots, training on separable data, and every bad input."""
import numpy as np
import pytest
import torch

from neurips24 import imn

torch.set_num_threads(1)


def test_linear_head_matches_a_loop_and_impacts_sum_to_the_logit():
    g = torch.Generator().manual_seed(0)
    x, W = torch.randn(5, 4, generator=g), torch.randn(5, 5, 3, generator=g)
    logits, impacts = imn.linear_head(x, W)
    for i in range(5):
        for k in range(3):
            ref = sum(float(x[i, m] * W[i, m, k]) for m in range(4)) + float(W[i, 4, k])
            assert logits[i, k].item() == pytest.approx(ref, abs=1e-5)
            assert impacts[i, :, k].sum().item() + W[i, 4, k].item() == pytest.approx(ref, abs=1e-5)


def test_linear_head_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match="W"):
        imn.linear_head(torch.zeros(3, 4), torch.zeros(3, 4, 1))


def test_hypernet_emits_one_linear_model_per_instance():
    net = imn.HyperNet(7, 3, width=16)
    assert net(torch.randn(9, 7)).shape == (9, 8, 3)


def _blobs(n=160, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.standard_normal((n, 3)) + 2.0 * y[:, None] * np.array([1.0, -1.0, 0.0])
    return X, y


def test_fit_separable_data_three_snapshots_probabilities_and_impacts():
    X, y = _blobs()
    m = imn.IMN(imn.IMNConfig(width=16, epochs=15, batch_size=32), seed=0).fit(X, y)
    assert len(m.snapshots) == 3                      # restarts = 3 snapshots, as in the official schedule
    p = m.predict_proba(X)
    assert p.shape == (160, 2) and np.allclose(p.sum(1), 1)
    assert imn.auroc(y, p) > 0.95
    a, W = m.impacts(X), m.weights(X)
    assert a.shape == (160, 3) and W.shape == (160, 4, 1)
    assert np.allclose(a, X * W[:, :3, 0], atol=1e-5)  # eq. 3 from the emitted weights
    # the noise feature (index 2) matters least on average
    assert np.abs(a).mean(0).argmin() == 2


def test_multiclass_impacts_have_a_class_axis():
    rng = np.random.default_rng(1)
    X, y = rng.standard_normal((90, 4)), np.repeat([0, 1, 2], 30)
    m = imn.IMN(imn.IMNConfig(width=8, epochs=2), seed=0).fit(X, y)
    assert m.impacts(X).shape == (90, 4, 3) and m.predict_proba(X).shape == (90, 3)


def test_final_batch_of_one_is_skipped_not_fatal():
    X, y = _blobs(n=65)                               # 64 + 1
    imn.IMN(imn.IMNConfig(width=8, epochs=6), seed=0).fit(X, y)


@pytest.mark.parametrize("X, y, err, match", [
    (np.array([[0.0, np.nan], [1.0, 2.0]]), [0, 1], ValueError, "non-finite"),
    (np.array([[0.0, np.inf], [1.0, 2.0]]), [0, 1], ValueError, "non-finite"),
    (np.zeros((3, 2)), [0, 1], ValueError, "mismatched"),
    (np.zeros((3, 2)), [1, 1, 1], ValueError, "at least 2 classes"),
    (np.array([["a", "b"], ["c", "d"]]), [0, 1], TypeError, "numeric"),
    (np.array([[1, "b"], [2, "d"]], dtype=object), [0, 1], TypeError, "numeric"),
    (np.zeros(4), [0, 1, 0, 1], ValueError, "2-d"),
    (np.zeros((4, 2)), np.zeros((4, 1)), ValueError, "1-d"),
])
def test_bad_inputs_raise_clear_errors(X, y, err, match):
    with pytest.raises(err, match=match):
        imn.IMN().fit(X, y)


def test_predict_checks_feature_count_and_fit_state():
    with pytest.raises(RuntimeError):
        imn.IMN().predict_proba(np.zeros((2, 3)))
    m = imn.IMN(imn.IMNConfig(width=8)).init(3, 2)
    with pytest.raises(ValueError, match="features"):
        m.predict_proba(np.zeros((2, 4)))


def test_forward_seconds_splits_hypernetwork_and_head():
    m = imn.IMN(imn.IMNConfig(width=8)).init(3, 2)
    t = imn.forward_seconds(m, np.zeros((16, 3)), repeats=3)
    assert set(t) == {"hypernetwork", "linear head"} and all(np.isfinite(v) and v >= 0 for v in t.values())
    with pytest.raises(ValueError, match="repeats"):
        imn.forward_seconds(m, np.zeros((16, 3)), repeats=0)
    with pytest.raises(ValueError, match="features"):
        imn.forward_seconds(m, np.zeros((16, 4)))
