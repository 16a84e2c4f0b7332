"""Per-sample Fisher against a loop of single-sample gradients; STE and cherries in training (cherryq.impact, .qat)."""
from __future__ import annotations

import importlib.util

import numpy as np
import pytest
import torch

from neurips24.cherryq.charlm import CharMLP
from neurips24.cherryq.impact import fisher_lm, per_sample_fisher
from neurips24.cherryq.qat import QuantLinear, bake_quant_linears, quantized_weights, swap_in_quant_linears
from neurips24.cherryq.quantizer import fake_quantize


def _loop_fisher(model, X, Y, name):
    acc = 0
    for x, y in zip(X, Y, strict=True):
        model.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x[None]), y[None], reduction="sum")
        loss.backward()
        acc = acc + dict(model.named_parameters())[name].grad ** 2
    return acc / len(X)


def test_per_sample_fisher_matches_a_loop_of_single_sample_gradients():
    torch.manual_seed(0)
    model = CharMLP(11, context=4, d_emb=3, hidden=8)
    X, Y = torch.randint(0, 11, (20, 4)), torch.randint(0, 11, (20,))
    H = per_sample_fisher(model, X, Y, chunk=7)
    assert set(H) == {"emb.weight", "fc1.weight", "fc2.weight", "head.weight"}
    for name in ("fc1.weight", "head.weight"):
        torch.testing.assert_close(H[name], _loop_fisher(model, X, Y, name), rtol=1e-5, atol=1e-8)
    # the square of the batch gradient is not the Fisher (it is much smaller: gradients of samples cancel)
    model.zero_grad()
    torch.nn.functional.cross_entropy(model(X), Y, reduction="sum").div(len(X)).backward()
    batch_sq = model.fc1.weight.grad ** 2
    assert batch_sq.sum() < 0.5 * H["fc1.weight"].sum()


def test_per_sample_fisher_rejects_empty_input():
    with pytest.raises(ValueError, match="same number"):
        per_sample_fisher(CharMLP(5, 2, 2, 4), torch.zeros((0, 2), dtype=torch.long), torch.zeros(0, dtype=torch.long))


@pytest.mark.skipif(importlib.util.find_spec("transformers") is None, reason="transformers is not installed")
def test_fisher_lm_is_the_mean_of_squared_single_sequence_gradients():
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=40, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                      num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=32)
    model = LlamaForCausalLM(cfg).eval()
    seqs = torch.randint(0, 40, (5, 9))
    mods = {"model.layers.0.mlp.down_proj": model.model.layers[0].mlp.down_proj,
            "model.layers.1.self_attn.q_proj": model.model.layers[1].self_attn.q_proj}
    H = fisher_lm(model, seqs, mods)
    for name, mod in mods.items():
        expect = 0
        for s in seqs:
            model.zero_grad()
            logits = model(input_ids=s[None]).logits[0, :-1]
            loss = torch.nn.functional.cross_entropy(logits, s[1:], reduction="mean") * len(s)   # official: mean x T
            loss.backward()
            expect = expect + mod.weight.grad ** 2
        torch.testing.assert_close(H[name], expect / len(seqs), rtol=1e-4, atol=1e-10)
    assert all(p.requires_grad for p in model.parameters())        # restored


def test_quant_linear_forward_and_straight_through_gradient():
    torch.manual_seed(1)
    lin = torch.nn.Linear(8, 3)
    idx = torch.tensor([[0], [5], [7]])
    q = QuantLinear(lin, bits=2, group_size=4, cherry_idx=idx)
    x = torch.randn(6, 8)
    wq = fake_quantize(lin.weight, 2, 4, idx)
    torch.testing.assert_close(q(x), x @ wq.T + lin.bias)
    q(x).sum().backward()
    # STE: d(sum x W_q^T)/dW = column sums of x for every weight, quantized or cherry alike
    torch.testing.assert_close(lin.weight.grad, x.sum(0).expand(3, 8))
    rows = torch.arange(3)[:, None]
    torch.testing.assert_close(wq[rows, idx], lin.weight.detach()[rows, idx])   # cherries in full precision


def test_training_keeps_cherries_full_precision_and_bakes_the_grid():
    torch.manual_seed(2)
    model = CharMLP(7, context=2, d_emb=4, hidden=8)
    idx = {"fc1": np.array([[0]] * 8), "fc2": np.array([[3]] * 8)}
    swap_in_quant_linears(model, ["fc1", "fc2"], 2, 4, idx)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)
    X, Y = torch.randint(0, 7, (16, 2)), torch.randint(0, 7, (16,))
    before = model.fc1.weight.detach().clone()
    torch.nn.functional.cross_entropy(model(X), Y).backward()
    opt.step()
    assert not torch.equal(before[:, 0], model.fc1.weight.detach()[:, 0])      # cherries trained
    trained = model.fc1.weight.detach().clone()
    bake_quant_linears(model)
    assert isinstance(model.fc1, torch.nn.Linear) and not isinstance(model.fc1, QuantLinear)
    torch.testing.assert_close(model.fc1.weight[:, 0], trained[:, 0])
    assert len(torch.unique(model.fc1.weight[:, 1:5][0])) <= 4                   # 2-bit group: at most 4 values


def test_quantized_weights_restores():
    lin = torch.nn.Linear(8, 4)
    w0 = lin.weight.detach().clone()
    with quantized_weights({"l": lin}, 3, 8):
        assert not torch.equal(lin.weight, w0)
    torch.testing.assert_close(lin.weight, w0, rtol=0, atol=0)


def test_linear_fisher_equals_per_sample_gradients():
    from neurips24.cherryq.impact import linear_fisher

    torch.manual_seed(3)
    model = CharMLP(13, context=3, d_emb=4, hidden=16)
    X, Y = torch.randint(0, 13, (50, 3)), torch.randint(0, 13, (50,))
    ref = per_sample_fisher(model, X, Y, names=["fc1.weight", "fc2.weight"], chunk=16)
    got = linear_fisher(model, X, Y, {"fc1": model.fc1, "fc2": model.fc2})
    for n in ("fc1", "fc2"):
        torch.testing.assert_close(got[n], ref[f"{n}.weight"], rtol=1e-4, atol=1e-9)
    assert all(p.grad is None for p in model.parameters())                # no parameter gradient left behind
    with pytest.raises(ValueError, match="same number"):
        linear_fisher(model, X[:0], Y[:0], {"fc1": model.fc1})
    emb, lin = torch.nn.Embedding(13, 4), torch.nn.Linear(4, 13)

    def per_token(x):                                                     # the layer sees 3 rows per sample
        return lin(emb(x)).mean(dim=1)

    with pytest.raises(ValueError, match="one input row per sample"):
        linear_fisher(per_token, X, Y, {"l": lin})
