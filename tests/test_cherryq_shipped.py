"""The shipped record of the tail training: written and read back without pickle, and replayed step for step."""
from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest
import torch

transformers = pytest.importorskip("transformers")

from neurips24.cherryq import real, reproduction, shipped  # noqa: E402
from neurips24.cherryq.quantizer import select_cherries  # noqa: E402
from neurips24.cherryq.tail import capture_block_input, tail_blocks, tail_linear_names, train_tail  # noqa: E402

F0 = 1 / 16


@pytest.fixture(scope="module")
def setup():
    """A tiny LLaMA and a RealResult holding the cached inputs of its last block, as run_real_model leaves it."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    model = LlamaForCausalLM(LlamaConfig(vocab_size=50, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                         num_attention_heads=4, num_key_value_heads=2,
                                         max_position_embeddings=64)).eval()
    for p in model.parameters():
        p.requires_grad_(False)
    ids_train, ids_eval = torch.randint(0, 50, (6, 16)), torch.randint(0, 50, (4, 16))
    hs = []
    for ids in (ids_train, ids_eval):
        with torch.no_grad(), capture_block_input(model, 1) as seen:
            model(input_ids=ids)
        hs.append(torch.cat(seen))
    picks = {}
    for crit in ("impact", "random"):
        gen = torch.Generator().manual_seed(1 if crit == "random" else 2)
        picks[(crit, F0)] = {f"model.layers.1.{n.split('.', 1)[1]}": select_cherries(
            torch.rand(m.weight.shape, generator=gen), 2) for n, m in tail_blocks(model, 1).named_modules()
            if n in tail_linear_names(tail_blocks(model, 1))}
    cfg = dict(seq_len=16, n_calib=6, eval_len=16, n_eval=4, n_train=6, bits=3, group_size=16, fractions=(F0,),
               seed=0, tail_blocks=1, tail_steps=12, tail_lr=1e-3, tail_batch=2, tail_positions=4,
               tail_criteria=("impact", "random"), tail_seeds=(0, 1, 2))
    res = real.RealResult(names=[], hs_impact=np.ones(1), hs_magnitude=np.ones(1), nll={}, k={}, outlier={}, tail={},
                          seconds={}, config=cfg, cache=dict(h_train=hs[0], h_eval=hs[1], calib=ids_train,
                                                             evals=ids_eval, picks=picks, start=1))
    return res, SimpleNamespace(model=model)


def fresh(res):
    return dataclasses.replace(res, tail={}, losses={}, replay={}, seconds={}, cache=dict(res.cache))


def test_prefix_is_the_start_of_the_full_run(setup):
    res, loaded = setup
    full = real.run_tail(res, loaded, "CherryQ (impact)", 0)["losses"]
    part = real.run_tail(res, loaded, "CherryQ (impact)", 0, stop=5)["losses"]
    assert len(full) == 12 and len(part) == 5
    np.testing.assert_array_equal(part, full[:5])


def test_record_round_trip_and_replay(setup, tmp_path):
    res, loaded = setup
    trained = real.run_real_training(fresh(res), loaded, progress=False)
    assert set(trained.losses) == {(m, s) for m in ("QAT", "CherryQ (impact)", "CherryQ (random)") for s in (0, 1, 2)}
    path = shipped.save_tail_runs(tmp_path / "rec.npz", trained, "python make.py", extra={"threads": 1})
    nll, losses, header = shipped.load_tail_runs(path)
    assert header["command"] == "python make.py" and header["seeds"] == [0, 1, 2] and header["threads"] == 1
    assert set(nll) == set(trained.tail)
    for k, v in trained.tail.items():
        np.testing.assert_array_equal(nll[k], v)
    for k, v in trained.losses.items():
        np.testing.assert_array_equal(losses[k], v)
    with np.load(path, allow_pickle=False) as z:           # no object arrays anywhere
        assert all(z[k].dtype != object for k in z.files)

    replayed = shipped.use_shipped_training(fresh(res), loaded, path=path, steps=4)
    rp = replayed.replay
    assert rp["steps"] == 4 and rp["seed"] == 0 and rp["control_seed"] == 1
    assert max(rp["curve"].values()) <= shipped.REPLAY_TOL and rp["start"] <= shipped.REPLAY_TOL
    assert min(rp["control"].values()) > shipped.REPLAY_TOL          # another seed's curve is told apart
    for k, v in trained.tail.items():
        np.testing.assert_allclose(replayed.tail[k], v, atol=1e-6)
    assert replayed.cache == {}
    kw = reproduction.shipped_runs_check(replayed)
    assert kw["test"](kw["measured"]) and not kw["test"](kw["control"]["measured"])


def test_refusals(setup, tmp_path):
    res, loaded = setup
    with pytest.raises(ValueError, match="stop"):
        real.run_tail(res, loaded, "QAT", 0, stop=13)
    with pytest.raises(ValueError, match="stop"):
        train_tail(loaded.model, tail_blocks(loaded.model, 1), res.cache["h_train"], res.cache["calib"], 3, 1e-3,
                   2, 4, 0, stop=0)
    with pytest.raises(ValueError, match="method"):
        real.run_tail(res, loaded, "GPTQ", 0)
    with pytest.raises(ValueError, match="seeds"):
        shipped.shipped_path([])
    with pytest.raises(FileNotFoundError):
        shipped.use_shipped_training(fresh(res), loaded, path=tmp_path / "missing.npz", steps=4)
    trained = real.run_real_training(fresh(res), loaded, progress=False)
    with pytest.raises(ValueError, match="no trained runs"):
        shipped.save_tail_runs(tmp_path / "x.npz", fresh(res), "c")
    path = shipped.save_tail_runs(tmp_path / "rec.npz", trained, "c")
    with pytest.raises(ValueError, match="steps"):
        shipped.use_shipped_training(fresh(res), loaded, path=path, steps=0)
    with pytest.raises(ValueError, match="cached inputs"):
        shipped.use_shipped_training(trained, loaded, path=path, steps=4)
    other = fresh(res)
    other.config = dict(res.config, tail_lr=2e-3)
    with pytest.raises(ValueError, match="another configuration"):
        shipped.use_shipped_training(other, loaded, path=path, steps=4)
