"""QAT / CherryQ on the last blocks of a LLaMA model: the tail equals the full model, training leaves it intact."""
from __future__ import annotations

import numpy as np
import pytest
import torch

transformers = pytest.importorskip("transformers")

from neurips24.cherryq.charlm import lm_nll, lm_perplexity  # noqa: E402
from neurips24.cherryq.tail import (  # noqa: E402
    capture_block_input,
    run_tail_method,
    tail_blocks,
    tail_linear_names,
    tail_nll,
    train_tail,
)


@pytest.fixture(scope="module")
def tiny():
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=50, hidden_size=32, intermediate_size=64, num_hidden_layers=3,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    model = LlamaForCausalLM(cfg).eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model, torch.randint(0, 50, (6, 16))


def test_lm_nll_is_the_perplexity_per_window(tiny):
    model, ids = tiny
    nll = lm_nll(model, ids, batch=4)
    assert nll.shape == (6,)
    assert np.exp(nll.mean()) == pytest.approx(lm_perplexity(model, ids), rel=1e-5)
    logits = model(input_ids=ids[:1]).logits[0, :-1]
    one = torch.nn.functional.cross_entropy(logits, ids[0, 1:])
    assert nll[0] == pytest.approx(float(one), rel=1e-5)


def test_tail_on_cached_inputs_equals_the_full_model(tiny):
    model, ids = tiny
    with torch.no_grad(), capture_block_input(model, 1) as seen:
        full = lm_nll(model, ids)
    h = torch.cat(seen)
    assert h.shape == (6, 16, 32)
    np.testing.assert_allclose(tail_nll(model, tail_blocks(model, 2), h, ids, batch=4), full, rtol=1e-5)
    assert tail_linear_names(tail_blocks(model, 1)) == [
        "0.self_attn.q_proj", "0.self_attn.k_proj", "0.self_attn.v_proj", "0.self_attn.o_proj",
        "0.mlp.gate_proj", "0.mlp.up_proj", "0.mlp.down_proj"]


def test_training_runs_leave_the_model_unchanged_and_keep_cherries(tiny):
    model, ids = tiny
    before = {k: v.clone() for k, v in model.state_dict().items()}
    with torch.no_grad(), capture_block_input(model, 2) as seen:
        model(input_ids=ids)
    h = torch.cat(seen)
    names = tail_linear_names(tail_blocks(model, 1))
    cherries = {n: np.zeros((model.model.layers[2].get_submodule(n[2:]).out_features, 1), dtype=np.int64)
                for n in names}
    cfg = dict(steps=5, lr=1e-3, batch=2, positions=4)
    qat = run_tail_method(model, h, ids, h, ids, 1, 3, 16, None, cfg, seed=0)
    cq = run_tail_method(model, h, ids, h, ids, 1, 3, 16, cherries, cfg, seed=0)
    assert len(qat["losses"]) == 5 and qat["nll"].shape == (6,) and np.all(np.isfinite(cq["nll"]))
    for k, v in model.state_dict().items():
        torch.testing.assert_close(v, before[k], rtol=0, atol=0)


def test_bad_inputs(tiny):
    model, ids = tiny
    with pytest.raises(ValueError, match="start must be a block index"):
        with capture_block_input(model, 3):
            pass
    with pytest.raises(ValueError, match="n_blocks must be an integer"):
        tail_blocks(model, 0)
    h = torch.zeros(6, 16, 32)
    with pytest.raises(ValueError, match="must match"):
        tail_nll(model, tail_blocks(model, 1), h[:5], ids)
    with pytest.raises(ValueError, match="steps, batch, positions"):
        train_tail(model, tail_blocks(model, 1), h, ids, 0, 1e-3, 2, 4, 0)
    with pytest.raises(ValueError, match="steps, batch, positions"):
        train_tail(model, tail_blocks(model, 1), h, ids, 3, float("nan"), 2, 4, 0)
    with pytest.raises(ValueError, match="same windows"):
        train_tail(model, tail_blocks(model, 1), h[:4], ids, 3, 1e-3, 2, 4, 0)
