"""The ensemble transformer against an independent one-model reference built from torch.nn modules, and the
attention metrics against hand-made maps (Cabannes et al. 2024; github.com/facebookresearch/pal)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from neurips24.iteration_heads import metrics, tasks
from neurips24.iteration_heads.model import EnsembleTransformer
from neurips24.iteration_heads.train import cot_loss


def _reference_logits(model: EnsembleTransformer, m: int, x: torch.Tensor) -> torch.Tensor:
    """Model m written with nn.Linear / nn.LayerNorm(bias=False) / SDPA, the code's overwriting pre-norm."""
    d, T = model.d, x.shape[-1]
    h = model.tok[m][x] + model.pos[m, :T]
    for layer in range(model.n_layer):
        ln1 = nn.LayerNorm(d, bias=False)
        ln2 = nn.LayerNorm(d, bias=False)
        ln1.weight.data, ln2.weight.data = model.norm1[layer, m].data, model.norm2[layer, m].data
        qkv, proj = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d, bias=False)
        qkv.weight.data, proj.weight.data = model.qkv[layer, m].T.data, model.proj[layer, m].T.data
        fc1, fc2 = nn.Linear(d, 4 * d, bias=False), nn.Linear(4 * d, d, bias=False)
        fc1.weight.data, fc2.weight.data = model.fc1[layer, m].T.data, model.fc2[layer, m].T.data
        h = ln1(h)                                             # x = norm_1(x) in the code's block
        H = model.n_head
        q, k, v = (t.reshape(len(x), T, H, d // H).transpose(1, 2) for t in qkv(h).chunk(3, dim=-1))
        z = F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(len(x), T, d)
        h = h + proj(z)
        h = h + fc2(F.gelu(fc1(ln2(h))))
        out = nn.LayerNorm(d, bias=False)
    out.weight.data = model.norm_out[m].data
    return out(h) @ model.out[m]


@pytest.mark.parametrize("n_layer,n_head", [(2, 1), (1, 1), (2, 4)])
def test_ensemble_matches_reference(n_layer, n_head):
    torch.manual_seed(0)
    model = EnsembleTransformer(3, 16, n_layer, n_head, max_len=13, dropout=0.1, seeds=[4, 5, 6]).eval()
    x = torch.randint(0, 64, (3, 5, 13))
    logits, maps = model(x, return_attention=True)
    assert logits.shape == (3, 5, 13, 64) and maps.shape == (n_layer, 3, 5, n_head, 13, 13)
    with torch.no_grad():
        for m in range(3):
            torch.testing.assert_close(logits[m], _reference_logits(model, m, x[m]), atol=2e-5, rtol=1e-4)
    torch.testing.assert_close(maps.sum(-1), torch.ones(maps.shape[:-1]))
    assert torch.all(maps.triu(diagonal=1) == 0)                         # causal


def test_initialisation_is_pytorch_default_and_per_seed():
    a = EnsembleTransformer(2, 32, seeds=[7, 8])
    b = EnsembleTransformer(1, 32, seeds=[8])
    torch.testing.assert_close(a.qkv[:, 1], b.qkv[:, 0])                # a model depends on its seed only
    assert abs(float(a.tok.detach().std()) - 1) < 0.05                            # nn.Embedding: N(0, 1)
    bound = float(a.fc2.detach().abs().max())
    assert bound <= 1 / math.sqrt(128) and bound > 0.95 / math.sqrt(128)  # nn.Linear: U(+-1/sqrt(fan_in))


def test_models_do_not_interact():
    model = EnsembleTransformer(2, 16, max_len=9, dropout=0.0)
    x = torch.tensor(np.stack([tasks.encode("parity", [[1, 0, 1]], L_max=3)] * 2)).reshape(2, 1, 9)
    cot_loss(model, x)[0].backward()
    assert model.qkv.grad[:, 1].abs().sum() == 0 and model.qkv.grad[:, 0].abs().sum() > 0


def test_load_member_copies_one_model():
    a, b = EnsembleTransformer(2, 16, seeds=[0, 1]), EnsembleTransformer(3, 16, seeds=[5, 6, 7])
    b.load_member(2, a, 1)
    x = torch.randint(0, 64, (1, 2, 10))
    a.eval(), b.eval()
    torch.testing.assert_close(b(x.expand(3, -1, -1))[2], a(x.expand(2, -1, -1))[1])
    with pytest.raises(ValueError, match="d"):
        b.load_member(0, EnsembleTransformer(1, 8), 0)


def test_cot_loss_against_cross_entropy_by_hand():
    model = EnsembleTransformer(1, 16, max_len=9, dropout=0.0).eval()
    seq = torch.tensor(tasks.encode("polynomial", [[3, 4, 5]], L_max=3))[None]       # (1, 1, 9)
    logits = model(seq[..., :-1])[0, 0]
    targets = seq[0, 0, 1:]
    picked = [-torch.log_softmax(logits[i], -1)[targets[i]] for i in range(4, 8)]   # s1, s2, s3, EoS
    torch.testing.assert_close(cot_loss(model, seq)[0], torch.stack(picked).mean())


def test_bad_model_arguments():
    with pytest.raises(ValueError, match="divisible by n_head"):
        EnsembleTransformer(1, 30, n_head=4)
    with pytest.raises(ValueError, match="n_layer"):
        EnsembleTransformer(1, 32, n_layer=0)
    with pytest.raises(ValueError, match="dropout"):
        EnsembleTransformer(1, 32, dropout=1.0)
    with pytest.raises(ValueError, match="seeds"):
        EnsembleTransformer(2, 32, seeds=[0])
    model = EnsembleTransformer(1, 8, max_len=9)
    with pytest.raises(ValueError, match="token ids"):
        model(torch.full((1, 1, 5), 64))
    with pytest.raises(TypeError, match="integer"):
        model(torch.zeros(1, 1, 5))
    with pytest.raises(ValueError, match="shape"):
        model(torch.zeros(1, 1, 10, dtype=torch.long))


def _perfect_maps(lengths, T, M=1):
    """Layer 1: every CoT row on EoI; layer 2: row L + t on x_t (the iteration head)."""
    N = len(lengths)
    maps = torch.zeros(2, M, N, 1, T, T)
    for n, L in enumerate(lengths):
        for t in range(1, L + 1):
            maps[0, :, n, 0, L + 1 + t, L + 1] = 1.0
            maps[1, :, n, 0, L + t, t] = 1.0
    return maps


def test_attention_scores_read_the_papers_entries():
    lengths = torch.tensor([1, 2, 3, 3])
    maps = _perfect_maps(lengths.tolist(), T=9)
    sc = metrics.attention_scores(maps, lengths)
    assert torch.isnan(sc["attn0"][0, 0, 1:]).all() and sc["attn0"][0, 0, 0] == 1
    for key in ("attn0", "attn1"):
        np.testing.assert_allclose(metrics.peakiness(sc[key], lengths).numpy(), [1.0])
    # move the layer-2 head one input to the left for the sequences of length 3: those entries fail
    shifted = maps.clone()
    for n in (2, 3):
        for t in range(2, 4):
            shifted[1, :, n, 0, 3 + t, t] = 0.4
            shifted[1, :, n, 0, 3 + t, t - 1] = 0.6
    sc = metrics.attention_scores(shifted, lengths)
    # per length: L=1: 1, L=2: 1, L=3: 1/3 (only t = 1 stays on x_1) -> mean 7/9
    np.testing.assert_allclose(metrics.peakiness(sc["attn1"], lengths).numpy(), [7 / 9])


def test_sequence_correct_reads_only_after_eoi():
    seq = torch.tensor(tasks.encode("parity", [[1, 0, 1]], L_max=3))[None]      # (1, 1, 9)
    logits = F.one_hot(seq[..., 1:], 64).float()
    assert metrics.sequence_correct(logits, seq).item()
    wrong_input = logits.clone()
    wrong_input[0, 0, 0] = F.one_hot(torch.tensor(0), 64).float()             # an input position: not scored
    assert metrics.sequence_correct(wrong_input, seq).item()
    wrong_state = logits.clone()
    wrong_state[0, 0, 5] = F.one_hot(torch.tensor(0), 64).float()              # s_2 (1 XOR 0 = 1) -> 0
    assert not metrics.sequence_correct(wrong_state, seq).item()
