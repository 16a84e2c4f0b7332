"""The ensemble transformer against torch's own TransformerEncoderLayer, its initialisations and training."""
from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from neurips24.markov import model as mdl
from neurips24.markov import train


def _reference_logits(m: mdl.EnsembleTransformer, i: int, x: torch.Tensor) -> torch.Tensor:
    """Model i rebuilt from torch's pre-LN encoder layer (causal mask, GELU, no biases) + tied head."""
    d = m.d_model
    layer = nn.TransformerEncoderLayer(d, 1, 4 * d, dropout=0.0, activation="gelu", batch_first=True,
                                       norm_first=True, bias=False)
    with torch.no_grad():
        layer.self_attn.in_proj_weight.copy_(m.c_attn[i])
        layer.self_attn.out_proj.weight.copy_(m.attn_proj[i])
        layer.linear1.weight.copy_(m.c_fc[i])
        layer.linear2.weight.copy_(m.mlp_proj[i])
        layer.norm1.weight.copy_(m.ln1[i])
        layer.norm2.weight.copy_(m.ln2[i])
    T = x.shape[-1]
    h = F.embedding(x, m.wte[i]) + m.wpe[i, :T]
    mask = nn.Transformer.generate_square_subsequent_mask(T)
    h = layer(h, src_mask=mask, is_causal=True)
    h = F.layer_norm(h, (d,), weight=m.ln_f[i], eps=1e-5)
    return h @ m.wte[i].T + m.head_bias[i]


def test_forward_matches_torch_encoder_layer():
    torch.manual_seed(0)
    m = mdl.EnsembleTransformer(3, 8, 16)
    with torch.no_grad():   # move away from the tiny init so that every path matters
        for p in m.parameters():
            p.add_(0.3 * torch.randn_like(p))
    x = torch.randint(0, 2, (3, 4, 12))
    out = m(x)
    assert out.shape == (3, 4, 12, 2)
    for i in range(3):
        torch.testing.assert_close(out[i], _reference_logits(m, i, x[i]), rtol=1e-5, atol=1e-5)


def test_models_are_independent():
    m = mdl.EnsembleTransformer(2, 8, 8)
    x = torch.randint(0, 2, (2, 3, 8))
    m.loss_per_model(x)[0].backward()
    for p in m.parameters():
        assert p.grad is None or torch.all(p.grad[1] == 0)


def test_loss_is_cross_entropy_in_nats():
    m = mdl.EnsembleTransformer(1, 8, 8)
    with torch.no_grad():
        for p in m.parameters():
            p.zero_()
    # all weights zero → LayerNorm outputs 0 → logits = head bias = 0 → loss = log 2
    assert m.loss_per_model(torch.randint(0, 2, (1, 2, 8))).item() == pytest.approx(np.log(2), abs=1e-6)


def test_initialisations():
    m = mdl.initialize(mdl.EnsembleTransformer(3, 8, 32), [7, 7, 1], ["standard", "guideline", "standard"])
    assert abs(m.wte[0].std().item() - 0.02) < 0.015 and abs(m.c_attn[0].std().item() - 0.02) < 0.005
    assert torch.equal(m.wte[0], m.wte[1]) and not torch.equal(m.wte[0], m.wte[2])   # same seed, same draw
    assert torch.all(m.c_fc[1] == 1.0) and torch.all(m.mlp_proj[1] == -1.0)
    assert m.c_fc[0].abs().max() < 0.2 and torch.all(m.head_bias == 0)


@pytest.mark.parametrize(("args", "match"), [((0, 8, 8), "n_models"), ((1, 0, 8), "d_model"), ((1, 8, 1), "max_len")])
def test_model_bad_sizes(args, match):
    with pytest.raises(ValueError, match=match):
        mdl.EnsembleTransformer(*args)


def test_initialize_bad_scheme():
    with pytest.raises(ValueError, match="inits"):
        mdl.initialize(mdl.EnsembleTransformer(1, 8, 8), [0], ["zeros"])


def test_short_training_learns_something():
    r = train.train_ensemble(0.9, 0.9, [0, 0], ["standard", "guideline"], steps=30, length=16, batch=8,
                             n_eval=32, progress=False, lr=1e-2)
    assert r.curves.shape == (2, 30) and r.final.shape == (2,)
    assert np.all(np.isfinite(r.final)) and np.all(r.curves[:, -5:].mean(1) < r.curves[:, :5].mean(1))
    assert r.oracle[0] == pytest.approx(r.bigram, abs=0.05)
    assert 0 <= r.fraction("standard") <= 1


def test_train_bad_input():
    with pytest.raises(ValueError, match="length"):
        train.train_ensemble(0.5, 0.5, [0], ["standard"], length=1)
    with pytest.raises(ValueError, match="p must"):
        train.train_ensemble(1.5, 0.5, [0], ["standard"])


def test_half_time_and_progress_on_hand_made_curves():
    r = train.TrainResult(0.9, 0.9, [0, 1], ["standard", "guideline"],
                          curves=np.array([[0.69] * 5 + [0.33] * 15, [0.69] * 20]),
                          final=np.array([0.33, 0.69]), oracle=np.array([0.33, 0.33]), bigram=0.33, unigram=0.69)
    np.testing.assert_array_equal(r.half_time(window=1), [5, 20])
    np.testing.assert_allclose(r.progress(), [1.0, 0.0])
    assert r.fraction("standard") == 1.0 and r.fraction("guideline") == 0.0
