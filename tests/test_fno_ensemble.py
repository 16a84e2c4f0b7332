"""The stacked training run (``train_fno_ensemble``) is the same set of runs as ``train_fno``, one at a time."""
import numpy as np
import pytest
import torch

from neurips24.fno.data import heat_dataset
from neurips24.fno.train import train_fno, train_fno_ensemble

KW = dict(depth=6, width=8, n_modes=4, sigma_b2=0.1, steps=12, batch=8)


@pytest.fixture(scope="module")
def data():
    u0, uT = heat_dataset(48, 32, seed=3)
    return u0[:32], uT[:32], u0[32:], uT[32:]


def test_ensemble_equals_separate_runs(data):
    torch.set_num_threads(1)
    sigma2, seeds = [0.5, 2.0, 2.0, 8.0], [0, 0, 1, 2]
    ens = train_fno_ensemble(*data, sigma2=sigma2, seeds=seeds, **KW)
    assert ens["train_loss"].shape == (4, KW["steps"]) and ens["test_loss"].shape == (4,)
    for g, (s, seed) in enumerate(zip(sigma2, seeds, strict=True)):
        one = train_fno(*data, sigma2=s, seed=seed, **KW)
        np.testing.assert_allclose(ens["train_loss"][g], one["train_loss"], rtol=1e-4)
        assert ens["test_loss"][g] == pytest.approx(one["test_loss"], rel=1e-4)
    # different seeds at the same σ² are different runs (the control of the comparison above)
    assert not np.allclose(ens["train_loss"][1], ens["train_loss"][2], rtol=1e-2)


def test_ensemble_diverged_network_stops_and_others_continue(data):
    # σ² = 1e12 over 6 layers overflows float32 at once (loss inf), as train_fno reports it
    ens = train_fno_ensemble(*data, sigma2=[2.0, 1e12], seeds=[0, 0], **KW)
    one = train_fno(*data, sigma2=1e12, seed=0, **KW)
    assert np.isinf(ens["train_loss"][1]).all() and ens["test_loss"][1] == np.inf
    np.testing.assert_array_equal(np.isinf(ens["train_loss"][1]), np.isinf(one["train_loss"]))
    assert np.all(np.isfinite(ens["train_loss"][0]))
    assert ens["test_loss"][0] == pytest.approx(train_fno(*data, sigma2=2.0, seed=0, **KW)["test_loss"], rel=1e-4)


@pytest.mark.parametrize("kw, err, word", [
    (dict(sigma2=[1.0, 2.0], seeds=[0]), ValueError, "seeds"),
    (dict(sigma2=[], seeds=[]), ValueError, "sigma2"),
    (dict(sigma2=[1.0], seeds=[-1]), ValueError, "seeds"),
    (dict(sigma2=[1.0], seeds=[0.5]), TypeError, "seeds"),
    (dict(sigma2=[1.0], seeds=[0], batch=0), ValueError, "batch"),
    (dict(sigma2=[1.0], seeds=[0], steps=1.5), TypeError, "steps"),
    (dict(sigma2=[1.0], seeds=[0], lr=float("nan")), ValueError, "lr"),
    (dict(sigma2=[-1.0], seeds=[0]), ValueError, "sigma2"),
])
def test_ensemble_rejects_bad_arguments(data, kw, err, word):
    args = dict(KW, **kw)
    with pytest.raises(err, match=word):
        train_fno_ensemble(*data, **args)


def test_ensemble_rejects_nan_data(data):
    u0 = data[0].copy()
    u0[3, 5] = np.nan
    with pytest.raises(ValueError, match="u0"):
        train_fno_ensemble(u0, *data[1:], sigma2=[1.0], seeds=[0], **KW)
