"""The fused causal-attention kernel: its torch reference against the model's own attention and a hand case;
the kernel against the reference on a GPU (marked gpu)."""
from __future__ import annotations

import pytest
import torch

from neurips24.iteration_heads import kernels
from neurips24.iteration_heads.model import EnsembleTransformer


def test_reference_by_hand():
    # T = 2, dh = 1: row 0 sees only key 0; row 1 has scores (1*1, 1*3) -> softmax(1, 3)
    q = torch.tensor([[[1.0], [1.0]]])
    k = torch.tensor([[[1.0], [3.0]]])
    v = torch.tensor([[[2.0], [4.0]]])
    z, A = kernels.attention_reference(q, k, v)
    w = torch.softmax(torch.tensor([1.0, 3.0]), 0)
    torch.testing.assert_close(A[0], torch.tensor([[1.0, 0.0], [w[0], w[1]]]))
    torch.testing.assert_close(z[0, :, 0], torch.tensor([2.0, 2 * w[0] + 4 * w[1]]))


def test_reference_matches_the_models_attention():
    torch.manual_seed(0)
    model = EnsembleTransformer(2, 16, n_head=2, max_len=11).eval()
    h = torch.randn(2, 3 * 11, 16)
    with torch.no_grad():
        _, maps = model.attention(h, 0, 3, 11)                             # (M, B, H, T, T)
        q, k, v = torch.bmm(h, model.qkv[0]).split(16, dim=-1)
        q, k, v = (t.reshape(2, 3, 11, 2, 8).transpose(2, 3).reshape(-1, 11, 8) for t in (q, k, v))
        _, A = kernels.attention_reference(q, k, v)
    torch.testing.assert_close(A, maps.reshape(-1, 11, 11))


def test_the_model_goes_through_the_dispatcher_and_the_cpu_uses_the_reference(monkeypatch):
    q, k, v = kernels._inputs(4, 5, 3)
    assert not kernels.use_kernel(q)                                      # CPU tensors: the torch reference
    z, A = kernels.causal_attention(q, k, v)
    z_ref, A_ref = kernels.attention_reference(q, k, v)
    torch.testing.assert_close(A, A_ref)
    calls = []
    monkeypatch.setattr("neurips24.iteration_heads.model.causal_attention",
                        lambda *a: calls.append(1) or kernels.attention_reference(*a))
    EnsembleTransformer(1, 8, max_len=5)(torch.zeros(1, 2, 5, dtype=torch.long))
    assert len(calls) == 2                                                # one call per layer


def test_bad_shapes():
    with pytest.raises(ValueError, match="shape"):
        kernels.attention_reference(torch.zeros(2, 3, 4), torch.zeros(2, 3, 4), torch.zeros(2, 3, 5))
    rows = kernels.bench_attention(G=8, T=5, dh=4)
    assert rows and rows[0][1] > 0


@pytest.mark.gpu
def test_kernel_matches_reference():
    check = kernels.kernel_check()
    assert check["max_abs_diff_A"] < 1e-5 and check["max_abs_diff_z"] < 1e-4
