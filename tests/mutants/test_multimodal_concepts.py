"""Planted bugs in the multimodal-concepts chapter: each must make one of its claims fail.

Small size: the shipped representations of one target ('circle', teacher-forced captions), Semi-NMF only, 40
outer iterations, three seeds; SmolLM2's unembedding read straight from its converted weights file (no model
built). The chapter's own run_concepts and checks.
"""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.assets import smollm
from neurips24.concepts import collection, experiment, grounding, metrics, reproduction, seminmf

from .harness import assert_caught, outcomes

CHAPTER = "multimodal_concepts"
WEIGHTS = smollm.cache_dir() / "model.safetensors"

pytestmark = [pytest.mark.skipif(not WEIGHTS.is_file(), reason="needs SmolLM2's converted weights (llm extra)"),
              pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")]


@pytest.fixture(scope="module")
def small():
    from safetensors import safe_open
    from transformers import AutoTokenizer

    with safe_open(str(WEIGHTS), "pt") as f:
        W_U = f.get_tensor("lm_head.weight").float().numpy().astype(np.float64)
    tok = AutoTokenizer.from_pretrained(smollm.cache_dir(), local_files_only=True)
    vocab = grounding.vocabulary_words(tok.convert_ids_to_tokens(list(range(W_U.shape[0]))))
    data = collection.load()
    return {"meta": data["meta"], "circle": data["circle"]}, W_U, vocab


def run_small(small) -> dict:
    data, W_U, vocab = small
    cfg = dict(experiment.CONFIG["fast"], max_iter=40)
    saved = experiment.CONFIG["fast"]
    experiment.CONFIG["fast"] = cfg
    try:
        run = experiment.run_concepts("fast", data, W_U, vocab, seeds=(0, 1, 2), methods=("snmf",))
    finally:
        experiment.CONFIG["fast"] = saved
    return reproduction.checks(run)


@pytest.fixture(scope="module")
def base(small):
    return outcomes(run_small(small))


def test_dictionary_never_updates(monkeypatch, small, base):
    monkeypatch.setattr(seminmf, "update_dictionary", lambda Z, U, V: U)
    assert_caught(CHAPTER, "frozen_dictionary", "the Semi-NMF dictionary step returns the atoms unchanged "
                  "(only the activations are fitted)", outcomes(run_small(small)), base)


def test_mas_are_the_least_activating(monkeypatch, small, base):
    monkeypatch.setattr(grounding, "most_activating",
                        lambda V, n_images=5: np.argsort(np.asarray(V), axis=0, kind="stable")[:n_images].T)
    assert_caught(CHAPTER, "mas_smallest", "the visual grounding takes the images with the smallest activations "
                  "(the sort's sign dropped)", outcomes(run_small(small)), base)


def test_precision_reads_the_next_image(monkeypatch, small, base):
    real = metrics.attribute_precision

    def shifted(words, mas, attributes, *args, **kw):
        return real(words, (np.asarray(mas) + 1) % len(attributes), attributes, *args, **kw)

    monkeypatch.setattr(metrics, "attribute_precision", shifted)
    assert_caught(CHAPTER, "precision_off_by_one", "attribute precision looks up the image after each MAS image "
                  "(an index off by one)", outcomes(run_small(small)), base)


def test_words_from_the_negated_concept(monkeypatch, small, base):
    real = grounding.text_grounding
    monkeypatch.setattr(grounding, "text_grounding", lambda U, *a, **kw: real(-np.asarray(U), *a, **kw))
    assert_caught(CHAPTER, "negated_concept_words", "the concepts are decoded as W_U(-u_k) (a sign flip in the "
                  "text grounding)", outcomes(run_small(small)), base)
