"""The digits experiment at a small size: training keeps every epoch and the analysis is well formed."""
import numpy as np
import pytest
import torch

from neurips24 import complexity as cx
from neurips24.complexity import experiment as ex

torch.set_num_threads(1)


def test_training_keeps_a_checkpoint_per_epoch_and_learns():
    x, y = cx.resnet.digits_tensors()
    perm = np.random.default_rng(0).permutation(len(y))
    run = cx.train_resnet(x, y, perm[:1000], perm[1000:], seed=0, epochs=5, width=16, n_blocks=2)
    assert len(run.checkpoints) == 6 and run.test_accuracy[-1] > run.test_accuracy[0] + 0.1
    assert not torch.equal(run.checkpoints[0]["fc.weight"], run.checkpoints[-1]["fc.weight"])
    a = ex.digits_analysis(run, x, k=6, seed=0, n_blocks=2)
    assert a.K.shape == a.gamma.shape == (6,) and ((a.K >= 0) & (a.K <= 1)).all()
    assert a.per_block.shape == (3, 6) and -1 <= a.rho <= 1
    assert a.redundancy.shape == a.sensitivity.shape == (6,) and ((a.redundancy >= 0) & (a.redundancy <= 1)).all()
    assert (a.sensitivity >= 0).all() and -1 <= a.rho_redundancy <= 1 and -1 <= a.rho_sensitivity <= 1
    simple, complex_ = a.terciles()
    assert len(simple) == len(complex_) == 2 and a.K[simple].max() <= a.K[complex_].min()
    hist = ex.penultimate_history(run, x)
    assert ex.temporal_score(hist, a.Z, seed=0).shape == (5, 6)
    with pytest.raises(ValueError, match="t must be"):
        run.at_epoch(9)


def test_scale_and_weights_are_validated():
    with pytest.raises(ValueError, match="run scale"):
        ex.run_digits("huge")
    with pytest.raises(ValueError, match="weights"):
        ex.efficientnet_activations("pretrained", 4, 32)
    with pytest.raises(ValueError, match="weights"):
        ex.efficientnet_model("pretrained")
    with pytest.raises(ValueError, match="weights"):
        ex.efficientnet_noisy("pretrained", 4, 32, 2, 1)
    with pytest.raises(ValueError, match="n_noisy"):
        ex.efficientnet_noisy("imagenet", 4, 32, 5, 1)


def test_one_blas_thread_keeps_results_and_limits_blas():
    from threadpoolctl import threadpool_info

    @ex.one_blas_thread
    def blas_threads():
        return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]

    assert all(n == 1 for n in blas_threads())
    assert ex.one_blas_thread(np.add)(2, 3) == 5


def test_spearman_interval_matches_a_per_resample_spearmanr_bootstrap():
    from scipy.stats import bootstrap, spearmanr

    rng = np.random.default_rng(0)
    a = rng.random(64)
    b = a + rng.random(64)
    b[:5] = b[0]                                   # ties
    iv = ex.spearman_interval(a, b, seed=3)
    ref = bootstrap((a, b), lambda x, y: spearmanr(x, y).statistic, paired=True, vectorized=False,
                    confidence_level=0.95, method="percentile", n_resamples=999, rng=np.random.default_rng(3))
    assert iv.estimate == pytest.approx(spearmanr(a, b).statistic)
    assert iv.low == pytest.approx(ref.confidence_interval.low, abs=1e-12)
    assert iv.high == pytest.approx(ref.confidence_interval.high, abs=1e-12)
