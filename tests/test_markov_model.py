"""The ensemble transformers (LayerNorm + GELU and LayerNorm-free ReLU) against torch's own layers, their
initialisations (the paper's f3a2ec1 'good' one included), bad input, and training."""
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


def _reference_simple_logits(m: mdl.EnsembleTransformer, i: int, x: torch.Tensor) -> torch.Tensor:
    """Model i of a LayerNorm-free ensemble rebuilt from torch's MultiheadAttention and Linear layers (ReLU MLP,
    no LayerNorm, no biases) + tied head with its bias: the block of Markov-Simple/src/models/base.py."""
    d = m.d_model
    attn = nn.MultiheadAttention(d, 1, bias=False, batch_first=True)
    fc, proj = nn.Linear(d, 4 * d, bias=False), nn.Linear(4 * d, d, bias=False)
    with torch.no_grad():
        attn.in_proj_weight.copy_(m.c_attn[i])
        attn.out_proj.weight.copy_(m.attn_proj[i])
        fc.weight.copy_(m.c_fc[i])
        proj.weight.copy_(m.mlp_proj[i])
    T = x.shape[-1]
    h = F.embedding(x, m.wte[i]) + m.wpe[i, :T]
    mask = nn.Transformer.generate_square_subsequent_mask(T)
    h = h + attn(h, h, h, attn_mask=mask, need_weights=False)[0]
    h = h + proj(torch.relu(fc(h)))
    return h @ m.wte[i].T + m.head_bias[i]


@pytest.mark.parametrize("init", ["standard", "good"])
def test_simple_forward_matches_torch_layers(init):
    torch.manual_seed(1)
    m = mdl.initialize(mdl.EnsembleTransformer(3, 8, 16, variant="simple"), [0, 1, 2], [init] * 3)
    with torch.no_grad():   # move away from the symmetric start so that every path matters
        for p in m.parameters():
            p.add_(0.3 * torch.randn_like(p))
    x = torch.randint(0, 2, (3, 4, 12))
    out = m(x)
    for i in range(3):
        ref = _reference_simple_logits(m, i, x[i])
        torch.testing.assert_close(out[i], ref, rtol=1e-5, atol=1e-5 * float(ref.detach().abs().max()))


@pytest.mark.parametrize("variant", ["simple", "llm"])
def test_loss_per_model_is_two_class_cross_entropy(variant):
    torch.manual_seed(2)
    m = mdl.initialize(mdl.EnsembleTransformer(2, 8, 16, variant), [3, 4], ["standard", "good"])
    with torch.no_grad():
        for p in m.parameters():
            p.add_(0.1 * torch.randn_like(p))
    x = torch.randint(0, 2, (2, 5, 16))
    logits = m(x[..., :-1])
    ce = F.cross_entropy(logits.reshape(-1, 2), x[..., 1:].reshape(-1), reduction="none").reshape(2, -1).mean(1)
    torch.testing.assert_close(m.loss_per_model(x), ce, rtol=1e-4, atol=1e-5)


def test_simple_model_has_no_layernorm():
    m = mdl.EnsembleTransformer(2, 8, 8, variant="simple")
    names = {n for n, _ in m.named_parameters()}
    assert not names & {"ln1", "ln2", "ln_f"}
    assert {id(p) for p in m.matrices() + m.others()} == {id(p) for p in m.parameters()}
    m_llm = mdl.EnsembleTransformer(2, 8, 8, variant="llm")
    assert {id(p) for p in m_llm.matrices() + m_llm.others()} == {id(p) for p in m_llm.parameters()}


def test_initialisations():
    m = mdl.initialize(mdl.EnsembleTransformer(4, 8, 32), [7, 7, 1, 7], ["standard", "ashok", "standard", "good"])
    assert abs(m.wte[0].std().item() - 0.02) < 0.015 and abs(m.c_attn[0].std().item() - 0.02) < 0.005
    assert torch.equal(m.wte[0], m.wte[1]) and not torch.equal(m.wte[0], m.wte[2])   # same seed, same draw
    assert torch.all(m.c_fc[1] == 1.0) and torch.all(m.mlp_proj[1] == -1.0)
    assert m.c_fc[0].abs().max() < 0.2 and torch.all(m.head_bias == 0)
    # 'good' (Markov-Simple at f3a2ec1): constants, and the attention's c_proj keeps std 0.02, not 0.02/sqrt(2)
    assert torch.all(m.wte[3] == 0.5) and torch.all(m.wpe[3] == -0.25)
    assert torch.all(m.c_fc[3] == 2.0) and torch.all(m.mlp_proj[3] == -2.0)
    torch.testing.assert_close(m.attn_proj[3], m.attn_proj[0] * 2 ** 0.5)
    torch.testing.assert_close(m.c_attn[3], m.c_attn[0])


def test_good_init_starts_every_relu_active_and_the_later_values_start_it_dead():
    x = torch.randint(0, 2, (1, 4, 32))
    m = mdl.initialize(mdl.EnsembleTransformer(1, 8, 32, variant="simple"), [0], ["good"])
    pre = m.residual_parts(x)
    h = pre["embed"] + pre["attn"]
    assert torch.all(h @ m.c_fc[0].T > 3.5)          # 2 · 8 · (0.5 − 0.25) = 4, minus a small attention term
    with torch.no_grad():                            # the values of later commits: wte = −1, wpe = 0.5
        m.wte.fill_(-1.0)
        m.wpe.fill_(0.5)
    parts = m.residual_parts(x)
    assert torch.all(parts["mlp"] == 0)              # 2 · 8 · (−1 + 0.5) = −8 < 0: every ReLU is off


@pytest.mark.parametrize(("args", "match"), [((0, 8, 8), "n_models"), ((1, 0, 8), "d_model"), ((1, 8, 1), "max_len"),
                                             ((1, 8, 8, "gpt"), "variant")])
def test_model_bad_sizes(args, match):
    with pytest.raises(ValueError, match=match):
        mdl.EnsembleTransformer(*args)


def test_initialize_bad_scheme():
    with pytest.raises(ValueError, match="inits"):
        mdl.initialize(mdl.EnsembleTransformer(1, 8, 8), [0], ["zeros"])
    with pytest.raises(ValueError, match="length n_models"):
        mdl.initialize(mdl.EnsembleTransformer(2, 8, 8), [0], ["standard"])


@pytest.mark.parametrize(("kwargs", "match"), [(dict(std=-1.0), "std"), (dict(std=0.0), "std"),
                                               (dict(std=float("nan")), "std"), (dict(m=3), "^m must"),
                                               (dict(seed=-1), "seed"), (dict(seed=1.5), "seed")])
def test_init_bad_arguments(kwargs, match):
    m = mdl.EnsembleTransformer(2, 8, 8)
    args = dict(m=0, seed=0) | kwargs
    for fn in (mdl.init_standard, mdl.init_good, mdl.init_ashok):
        with pytest.raises(ValueError, match=match):
            fn(m, **args)
    with pytest.raises(ValueError, match="value"):
        mdl.init_ashok(m, 0, 0, value=-1.0)


@pytest.mark.parametrize(("x", "error", "match"), [
    (torch.tensor([[[0, 1, 2, 0]]]), ValueError, "x must be binary"),
    (torch.tensor([[[0, -1, 1, 0]]]), ValueError, "x must be binary"),
    (torch.zeros(1, 2, 4), TypeError, "x must hold integer"),
    (torch.zeros(1, 2, 4, dtype=torch.bool), TypeError, "x must hold integer"),
    ([[[0, 1, 0, 1]]], TypeError, "x must be a torch.Tensor"),
    (torch.zeros(2, 1, 4, dtype=torch.long), ValueError, "n_models"),
    (torch.zeros(1, 4, dtype=torch.long), ValueError, r"shape \(M, B, T\)"),
    (torch.zeros(1, 1, 9, dtype=torch.long), ValueError, "max_len"),
])
@pytest.mark.parametrize("variant", ["simple", "llm"])
def test_bad_tokens_raise_before_torch(x, error, match, variant):
    m = mdl.EnsembleTransformer(1, 8, 8, variant)
    with pytest.raises(error, match=match):
        m(x)
    with pytest.raises(error, match=match):
        m.loss_per_model(x)


def test_loss_needs_two_positions():
    with pytest.raises(ValueError, match="T >= 2"):
        mdl.EnsembleTransformer(1, 8, 8).loss_per_model(torch.zeros(1, 2, 1, dtype=torch.long))


def test_short_training_learns_the_chain_where_there_is_no_trap():
    # p + q < 1: no unigram trap; 150 steps at lr 1e-2 close most of the unigram-bigram gap for both inits
    r = train.train_ensemble(0.2, 0.3, [0, 1, 0, 1], ["standard", "standard", "good", "good"], variant="simple",
                             steps=150, length=32, batch=16, n_eval=64, progress=False, lr=1e-2, record_every=50)
    assert r.curves.shape == (4, 150) and r.final.shape == (4,) and r.e.shape == (4, 4)
    np.testing.assert_array_equal(r.record_steps, [0, 50, 100, 150])
    assert r.oracle[0] == pytest.approx(r.bigram, abs=0.02)
    assert np.all(r.curves[:, -10:].mean(1) < r.curves[:, :10].mean(1))
    assert r.count("standard", 0.5) == (2, 2)                 # can fail: a trainer that learns nothing gives (0, 2)
    np.testing.assert_allclose(r.oracle_curves.mean(1), r.bigram, atol=0.03)


def test_train_is_reproducible_and_pairs_share_data():
    kw = dict(variant="simple", steps=5, length=16, batch=4, n_eval=8, progress=False)
    a = train.train_ensemble(0.5, 0.8, [3, 3], ["standard", "good"], **kw)
    b = train.train_ensemble(0.5, 0.8, [3], ["good"], **kw)
    np.testing.assert_array_equal(a.oracle_curves[0], a.oracle_curves[1])   # same seed, same batches
    np.testing.assert_allclose(a.curves[1], b.curves[0], rtol=1e-5)          # a model does not see the others


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(steps=2.5), "^steps"), (dict(steps=0), "^steps"), (dict(batch=0), "^batch"), (dict(batch=2.0), "^batch"),
    (dict(length=1), "^length"), (dict(d_model=0), "^d_model"), (dict(n_eval=0), "^n_eval"),
    (dict(schedule_steps=3), "^schedule_steps"), (dict(record_every=-1), "^record_every"), (dict(chunk=0), "^chunk"),
    (dict(lr=0.0), "^lr"), (dict(lr=float("nan")), "^lr"), (dict(weight_decay=-1.0), "^weight_decay"),
    (dict(warmup=1.0), "^warmup"), (dict(warmup=0.0), "^warmup"), (dict(variant="gpt"), "^variant"),
    (dict(p=1.5), "^p must"), (dict(seeds=[0, 1]), "same length"), (dict(seeds=[-1]), "seeds"),
    (dict(inits=["guideline"]), "^inits"), (dict(schedule_steps=50), "warmup · schedule_steps"),
])
def test_train_bad_input(kwargs, match):
    args = dict(p=0.5, q=0.5, seeds=[0], inits=["standard"], steps=5, length=8, progress=False) | kwargs
    with pytest.raises(ValueError, match=match):
        train.train_ensemble(**args)


def _hand_made(curves, final, oracle=0.33, inits=("standard", "good")):
    curves = np.asarray(curves, dtype=float)
    M = len(curves)
    return train.TrainResult(0.9, 0.9, list(range(M)), list(inits), curves=curves,
                             oracle_curves=np.full_like(curves, oracle), final=np.asarray(final, dtype=float),
                             oracle=np.full(M, oracle), bigram=0.33, unigram=0.69)


def test_progress_escape_and_counts_on_hand_made_curves():
    r = _hand_made([[0.69] * 5 + [0.33] * 15, [0.69] * 20], final=[0.33, 0.69])
    np.testing.assert_allclose(r.progress(), [1.0, 0.0])
    np.testing.assert_array_equal(r.escape_step(window=1), [6, np.nan])      # step 6 is the first at 0.33
    np.testing.assert_array_equal(r.escape_step(window=4), [8, np.nan])      # mean of 4 reaches half at step 8
    assert r.count("standard") == (1, 1) and r.count("good") == (0, 1)
    assert r.fraction("standard") == 1.0 and r.fraction("good") == 0.0
    np.testing.assert_array_equal(r.at_unigram(), [False, True])
    pc = r.progress_curves(window=2)
    assert pc.shape == (2, 19) and pc[0, 4] == pytest.approx(0.5) and np.all(pc[1] == 0)
    with pytest.raises(ValueError, match="init"):
        r.count("ashok")
    with pytest.raises(ValueError, match="window"):
        r.progress_curves(window=21)
