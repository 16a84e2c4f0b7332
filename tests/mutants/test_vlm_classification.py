"""Planted bugs in the VLM-classification chapter: each must make one of its claims fail.

Small size: no language model runs. The chapter's shipped language-model outputs (``outputs_fast.npz``, what
``lm_outputs('fast')`` reads) go through the chapter's own analysis (probes on three seeded splits, accuracies,
frequency counts) and its checks.
"""
from __future__ import annotations

import numpy as np
import pytest

from neurips24 import assets
from neurips24.assets import tinyvlm, tinyvlm_data
from neurips24.vlm_classification import evaluation, experiment, reproduction

from .harness import assert_caught, caught_by, outcomes

CHAPTER = "vlm_classification"
SEEDS = (0, 1, 2)

pytestmark = pytest.mark.skipif(not (assets.smollm_available() and experiment.SHIPPED["fast"].is_file()),
                                reason="needs the llm extra (the tokenizer) and the shipped outputs")


@pytest.fixture(scope="module")
def small():
    outputs, _ = experiment.lm_outputs("fast")
    tok = experiment._tokenizer()
    freq = (experiment.class_frequency(tok, "captions"), experiment.class_frequency(tok, "balanced"))
    return outputs, freq, tok


def run_small(small, frequency=None) -> dict:
    outputs, freq, _ = small
    return reproduction.checks(experiment.analyse(outputs, "fast", SEEDS, freq if frequency is None else frequency))


@pytest.fixture(scope="module")
def base(small):
    return outcomes(run_small(small))


def test_lm_probe_reads_the_vision_features(monkeypatch, small, base):
    _, images, _ = experiment.test_digits(experiment.PER_CLASS["fast"])
    vision = tinyvlm.image_features(images).mean(1)
    real = experiment._probe_accuracy

    def wrong_array(features, labels, train, test, truth=None):
        return real(vision if features.shape[1] == tinyvlm.D_MODEL else features, labels, train, test, truth)

    monkeypatch.setattr(experiment, "_probe_accuracy", wrong_array)
    assert_caught(CHAPTER, "lm_probe_reads_vision", "the LM-hidden-state probe is fitted on the vision features "
                  "(the wrong array)", outcomes(run_small(small)), base)


def test_always_four_responder(monkeypatch, small, base):
    real = evaluation.substring_correct

    def always_four(predictions, labels, class_names):
        return real(["four."] * len(list(predictions)), labels, class_names)

    monkeypatch.setattr(experiment.evaluation, "substring_correct", always_four)
    assert_caught(CHAPTER, "always_four", "every generated answer is read as 'four' (a parser that returns the "
                  "head class)", outcomes(run_small(small)), base)


def test_class_counts_off_by_one(monkeypatch, small, base):
    _, freq, _ = small
    shifted = (np.roll(freq[0], 1), np.roll(freq[1], 1))      # the count of 'one' filed under class zero, ...
    assert_caught(CHAPTER, "counts_off_by_one", "the class frequencies are filed one class off (name index vs "
                  "class index)", outcomes(run_small(small, shifted)), base)


def test_class_counts_from_another_stream_is_a_known_blind_spot(monkeypatch, small, base):
    """Counting the balanced projector's stream instead of the captions projector's is not caught: both streams
    share the Zipf captions, so the counts rank the classes the same way. The chapter counts exactly the examples
    each projector saw (tinyvlm_data.seen_examples, unit-tested); if a claim starts to catch this, say so."""
    _, _, tok = small

    def other_stream(meta, y):
        return tinyvlm_data.legacy_training_examples(tinyvlm_data.LEGACY_STREAM_STEPS * 8, y, "balanced")[
            :int(meta["examples"])]

    monkeypatch.setattr(tinyvlm_data, "seen_examples", other_stream)
    freq = (experiment.class_frequency(tok, "captions"), experiment.class_frequency(tok, "balanced"))
    assert caught_by(outcomes(run_small(small, freq)), base) == []


def test_probe_tested_on_its_training_digits(monkeypatch, small, base):
    real = experiment.probe_split

    def leaky(labels, per_class_train, seed):
        train, _ = real(labels, per_class_train, seed)
        return train, train

    monkeypatch.setattr(experiment, "probe_split", leaky)
    assert_caught(CHAPTER, "probe_split_leak", "the probes are scored on the digits they were trained on",
                  outcomes(run_small(small)), base)
