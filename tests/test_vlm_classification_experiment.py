"""The chapter's experiment and reproduction numbers: arithmetic on hand-made results, bad input, and (slow) the
real run on the shipped projectors."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from neurips24 import assets
from neurips24.assets import tinyvlm
from neurips24.vlm_classification import evaluation, experiment, reproduction


def _variant(name, labels, open_ok, probe_ok, closed_ok=None, control_ok=None):
    n = len(labels)
    wrong = (labels + 1) % 10
    scores = np.zeros((n, 10))
    scores[np.arange(n), labels] = 1.0
    return experiment.VariantResult(
        name=name, open_texts=["x"] * n, open_correct=np.asarray(open_ok, bool), scores=scores,
        prob_pred=labels.copy(),
        probe_pred=np.where(probe_ok, labels, wrong), closed_texts=["x"] * n,
        closed_correct=np.asarray(closed_ok if closed_ok is not None else open_ok, bool), control_texts=["x"] * n,
        control_correct=np.asarray(control_ok if control_ok is not None else np.zeros(n), bool),
        probe_hidden=np.eye(10)[labels] * 5.0, hidden=np.eye(10)[labels] * 5.0)


def _result():
    labels = np.repeat(np.arange(10), 10)
    freq = np.array([500, 300, 200, 100, 60, 30, 20, 10, 5, 1])
    # class c is generated correctly for its first (10 - c) images: accuracy falls with the frequency rank
    open_ok = np.concatenate([np.arange(10) < 10 - c for c in range(10)])
    caps = _variant("captions", labels, open_ok, np.ones(100, bool), closed_ok=np.ones(100, bool))
    bal = _variant("balanced", labels, np.arange(100) % 10 != 0, np.ones(100, bool))
    return experiment.VLMClassificationResult(
        scale="fast", labels=labels, images=np.zeros((100, 28, 28), np.uint8), vision_probe_pred=labels,
        frequency=freq, frequency_balanced=freq + 100, candidates=np.zeros((100, 2), int),
        control_candidates=np.zeros((100, 2), int), variants={"captions": caps, "balanced": bal}, seconds=1.0,
        probe_labels=labels.copy())


def test_gaps_hand_worked():
    r = _result()
    # captions: generation right on 55 of 100 (10 + 9 + ... + 1), probe on all -> gap 45 points
    g = reproduction.probe_gap(r)
    assert g["measured"] == pytest.approx(45.0)
    # control: a probe fit to shuffled labels can only learn, for each one-hot pattern, the shuffled labels of its
    # copies: right for few images, far below the 55 % of generation
    assert -55.0 <= g["control"] <= 0.0
    assert g["interval"].low < 45 < g["interval"].high
    b = reproduction.balanced_gap(r)
    assert b["measured"] == pytest.approx(10.0) and b["control"] == pytest.approx(45.0)
    c = reproduction.closed_world_narrowing(r)
    assert c["measured"] == pytest.approx(45.0) and c["control"] == pytest.approx(-55.0)


def test_frequency_correlation_against_scipy():
    r = _result()
    f = reproduction.frequency_correlation(r)
    acc = evaluation.per_class_accuracy(r.variants["captions"].open_correct, r.labels, 10)
    assert f["measured"] == pytest.approx(spearmanr(r.frequency, acc).statistic) == pytest.approx(1.0)
    assert f["control"] == pytest.approx(spearmanr(f["shuffled"], acc).statistic)
    assert sorted(f["shuffled"]) == sorted(r.frequency) and f["control"] < 0.5
    # resampling images can only lose the perfect order here: the percentile interval lies below rho = 1
    assert 0.5 < f["interval"].low <= f["interval"].high <= 1.0


def test_label_set_accuracy_extremes():
    labels = np.repeat(np.arange(10), 30)
    perfect = np.eye(10)[labels]
    assert evaluation.label_set_accuracy(perfect, labels, 2) == 1.0
    wrong = -np.eye(10)[labels]                         # the true class always scores lowest
    assert evaluation.label_set_accuracy(wrong, labels, 5) == 0.0
    rng = np.random.default_rng(0)
    noise = rng.normal(size=(300, 10))
    assert abs(evaluation.label_set_accuracy(noise, labels, 2) - 0.5) < 0.1
    with pytest.raises(ValueError, match="finite"):
        evaluation.label_set_accuracy(np.full((2, 10), np.nan), np.array([0, 1]), 2)


def test_accuracy_marks_closed_world_not_run_as_nan():
    r = _result()
    v = r.variants["balanced"]
    v.closed_texts = [""] * 100
    assert np.isnan(v.accuracy(r.labels)["closed2"])
    assert r.variants["captions"].accuracy(r.labels)["probe"] == 1.0


def test_bad_input():
    with pytest.raises(ValueError, match="run scale"):
        experiment.run_vlm_classification("medium")
    with pytest.raises(ValueError, match="variants"):
        experiment.run_vlm_classification("fast", variants=("other",))
    with pytest.raises(ValueError, match="per_class"):
        experiment.test_digits(3)
    with pytest.raises(ValueError, match="batch"):
        experiment.live_training("fast", batch=0)


@pytest.mark.slow
@pytest.mark.skipif(not (assets.smollm_available() and all(p.is_file() for p in tinyvlm.WEIGHTS.values())),
                    reason="needs the llm extra and the shipped projectors")
def test_fast_run_on_the_shipped_projectors(tmp_path, monkeypatch):
    monkeypatch.setenv("NEURIPS24_CACHE", str(assets.cache_root()))     # reuse the SmolLM2 cache
    r = experiment.run_vlm_classification("fast", cache=False)
    assert len(r.labels) == 60 and set(r.variants) == {"captions", "balanced"}
    for v in r.variants.values():
        acc = v.accuracy(r.labels)
        assert all(0 <= acc[k] <= 1 for k in ("open", "probabilistic", "probe"))
        assert v.hidden.shape == (60, 576) and np.isfinite(v.scores).all()
    assert r.frequency.sum() > 0
