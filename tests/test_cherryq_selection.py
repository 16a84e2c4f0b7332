"""Selection criteria, activation statistics, outlier-column share and overlap, by hand (cherryq.selection)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.cherryq.quantizer import select_cherries
from neurips24.cherryq.selection import cherry_overlap, cherry_scores, input_second_moments, outlier_column_share


def test_input_second_moments_is_the_mean_square_over_tokens():
    torch.manual_seed(0)
    lin = torch.nn.Linear(5, 3)
    x1, x2 = torch.randn(4, 7, 5), torch.randn(2, 5)
    with input_second_moments({"l": lin}) as act:
        lin(x1)
        lin(x2)
    expect = torch.cat([x1.reshape(-1, 5), x2]).double().pow(2).mean(0)
    torch.testing.assert_close(act["l"], expect)
    assert not lin._forward_pre_hooks                                   # hooks removed


def test_scores_of_each_criterion():
    w = torch.tensor([[0.1, -3.0, 0.2], [2.0, 0.0, -0.5]])
    H = torch.tensor([[5.0, 0.0, 1.0], [0.0, 9.0, 1.0]])
    act = torch.tensor([1.0, 4.0, 2.0])
    np.testing.assert_array_equal(select_cherries(cherry_scores("magnitude", w), 1), [[1], [0]])
    np.testing.assert_array_equal(select_cherries(cherry_scores("impact", w, impact=H), 1), [[0], [1]])
    np.testing.assert_array_equal(select_cherries(cherry_scores("activation", w, act_sq=act), 2), [[1, 2], [1, 2]])
    r1 = cherry_scores("random", w, generator=torch.Generator().manual_seed(3))
    r2 = cherry_scores("random", w, generator=torch.Generator().manual_seed(3))
    assert torch.equal(r1, r2) and r1.shape == (2, 3) and 0 <= float(r1.min()) and float(r1.max()) < 1


def test_score_errors():
    w = torch.ones(2, 3)
    with pytest.raises(ValueError, match="criterion must be one of"):
        cherry_scores("hessian", w)
    with pytest.raises(ValueError, match="needs impact"):
        cherry_scores("impact", w)
    with pytest.raises(ValueError, match="act_sq must have shape"):
        cherry_scores("activation", w, act_sq=torch.ones(2))
    with pytest.raises(ValueError, match="impact must be finite and non-negative"):
        cherry_scores("impact", w, impact=torch.tensor([[1.0, float("nan"), 0.0], [0.0, 0.0, 0.0]]))
    with pytest.raises(ValueError, match="impact must be finite and non-negative"):
        cherry_scores("impact", w, impact=-torch.ones(2, 3))
    with pytest.raises(ValueError, match="finite"):
        cherry_scores("magnitude", torch.tensor([[1.0, float("nan"), 0.0], [0.0, 0.0, 0.0]]))


def test_outlier_column_share_and_overlap_by_hand():
    idx = np.array([[0, 1], [0, 2], [0, 1]])          # column counts 3, 2, 1: top-2 columns hold 5 of 6
    assert outlier_column_share(idx, (3, 4)) == pytest.approx(5 / 6)
    assert outlier_column_share(np.array([[2, 3]] * 4), (4, 8)) == 1.0
    b = np.array([[1, 0], [3, 1], [2, 3]])             # rows share 2, 0, 0 of 2
    assert cherry_overlap(idx, b, (3, 4)) == pytest.approx((1 + 0 + 0) / 3)
    with pytest.raises(ValueError, match="at least one cherry"):
        outlier_column_share(np.zeros((3, 0), dtype=int), (3, 4))
    with pytest.raises(ValueError, match="same shape"):
        cherry_overlap(idx, idx[:, :1], (3, 4))


def test_random_selection_is_not_concentrated():
    rng_idx = select_cherries(cherry_scores("random", torch.ones(576, 576), generator=torch.Generator().manual_seed(0)),
                              3)
    assert outlier_column_share(rng_idx, (576, 576)) < 0.05           # about 3/576 plus the maximum's excess
