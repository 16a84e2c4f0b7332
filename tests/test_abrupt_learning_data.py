"""Matrix completion as MLM (abrupt_learning.data): the official tokenisation worked by hand, the rank and the
variance of the sampled matrices, the masking rate, and the bad inputs."""
import numpy as np
import pytest
import torch
from scipy import stats

from neurips24.abrupt_learning import data


def test_tokenizer_by_hand():
    tok = data.Tokenizer()
    assert tok.vocab_size == 2002                        # MASK + 2001 values −10.00 … 10.00 (official code)
    X = torch.tensor([[[-10.0, 0.0], [0.01, 10.0]]])
    ids = tok.encode(X, torch.ones_like(X, dtype=torch.bool))
    assert ids.tolist() == [[1, 1001, 1002, 2001]]       # 1 + round(100 x) + 1000
    hidden = tok.encode(X, torch.tensor([[[True, False], [True, True]]]))
    assert hidden.tolist() == [[1, 0, 1002, 2001]]
    back = tok.decode(hidden)
    assert torch.isnan(back[0, 1]) and torch.allclose(back[0, [0, 2, 3]], torch.tensor([-10.0, 0.01, 10.0]))


@pytest.mark.parametrize("m,n,r", [(7, 7, 2), (5, 4, 1), (3, 3, 3)])
def test_samples_have_rank_r_and_official_tokens(m, n, r):
    b = data.sample_batch(64, m, n, r, 0.3, torch.Generator().manual_seed(0))
    assert b.tokens.shape == (64, m * n) and b.X.shape == (64, m, n)
    U, V = b.U.numpy().astype(np.float64), b.V.numpy().astype(np.float64)
    assert all(np.linalg.matrix_rank(u @ v.T) == r for u, v in zip(U, V, strict=True))
    assert np.abs(b.X.numpy() - U @ V.transpose(0, 2, 1)).max() <= 0.005 + 1e-6      # rounded to 2 decimals
    obs = b.observed.reshape(64, -1)
    assert (b.tokens[~obs] == 0).all() and (b.tokens[obs] > 0).all()
    decoded = data.Tokenizer().decode(b.tokens)[obs]
    assert torch.allclose(decoded, b.X.reshape(64, -1)[obs], atol=1e-6)


def test_entry_variance_is_r_over_nine():
    b = data.sample_batch(4000, 7, 7, 2, 0.3, torch.Generator().manual_seed(1))
    x = b.X[:, 0, 0].numpy().astype(np.float64)     # one entry per matrix: independent draws
    lo, hi = stats.bootstrap((x,), np.var, n_resamples=2000, random_state=0).confidence_interval
    assert data.entry_variance(2) == pytest.approx(2 / 9)
    assert lo < 2 / 9 < hi


def test_masking_rate_is_p_mask():
    b = data.sample_batch(200, 7, 7, 2, 0.3, torch.Generator().manual_seed(2))
    k, nn = int((~b.observed).sum()), b.observed.numel()
    ci = stats.binomtest(k, nn).proportion_ci(0.999)
    assert ci.low < 0.3 < ci.high


@pytest.mark.parametrize("kw,match", [
    (dict(r=8), "rank"), (dict(m=3, n=4, r=4), "rank"), (dict(p_mask=0.0), "p_mask"), (dict(p_mask=1.0), "p_mask"),
    (dict(p_mask=1.5), "p_mask"), (dict(p_mask=float("nan")), "p_mask"), (dict(m=0), "m"), (dict(B=0), "B")])
def test_bad_problems_raise(kw, match):
    args = dict(B=4, m=7, n=7, r=2, p_mask=0.3) | kw
    with pytest.raises(ValueError, match=match):
        data.sample_batch(**args)


def test_non_integer_size_and_non_finite_matrix_raise():
    with pytest.raises(TypeError, match="m"):
        data.sample_batch(4, 7.0, 7, 2, 0.3)
    X = torch.tensor([[[0.5, float("nan")]]])
    with pytest.raises(ValueError, match="finite"):
        data.Tokenizer().encode(X, torch.ones_like(X, dtype=torch.bool))
    with pytest.raises(ValueError, match="lie in"):
        data.Tokenizer().encode(torch.full((1, 1, 1), 11.0), torch.ones((1, 1, 1), dtype=torch.bool))
