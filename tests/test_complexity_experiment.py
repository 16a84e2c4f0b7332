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
    hist = ex.penultimate_history(run, x)
    assert ex.temporal_score(hist, a.Z, seed=0).shape == (5, 6)
    with pytest.raises(ValueError, match="t must be"):
        run.at_epoch(9)


def test_scale_and_weights_are_validated():
    with pytest.raises(ValueError, match="run scale"):
        ex.run_digits("huge")
    with pytest.raises(ValueError, match="weights"):
        ex.efficientnet_activations("pretrained", 4, 32)
