"""The chapter's experiment and reproduction numbers: arithmetic on hand-made results, bad input, the caller's
model left untouched, and (slow) the real run on the shipped outputs."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import spearmanr

from neurips24 import assets
from neurips24.assets import tinyvlm
from neurips24.vlm_classification import evaluation, experiment, reproduction

SEEDS = (0, 1, 2)


def _variant(name, labels, open_ok, probe_acc, open_acc=None):
    n = len(labels)
    scores = np.zeros((n, 10))
    scores[np.arange(n), labels] = 1.0
    return experiment.VariantResult(
        name=name, open_texts=["x"] * n, open_correct=np.asarray(open_ok, bool), scores=scores,
        prob_pred=labels.copy(), hidden=np.zeros((n, 4), np.float32),
        probe_accuracy={s: probe_acc for s in SEEDS},
        open_accuracy={s: float(np.mean(open_ok)) if open_acc is None else open_acc for s in SEEDS})


def _result():
    labels = np.repeat(np.arange(10), 10)
    freq = np.array([500, 300, 200, 100, 60, 30, 20, 10, 5, 1])
    # class c is generated correctly for its first (10 - c) images: accuracy falls with the frequency rank
    open_ok = np.concatenate([np.arange(10) < 10 - c for c in range(10)])
    caps = _variant("captions", labels, open_ok, 0.85)
    caps.train_prompt_correct = open_ok.copy()
    closed_rows = np.arange(0, 100, 2)
    caps.closed_correct = np.ones(50, bool)
    caps.control_correct = np.zeros(50, bool)
    bal = _variant("balanced", labels, np.arange(100) % 10 != 0, 0.9)
    zq = _variant("zipf_question", labels, np.arange(100) % 10 < 7, 0.9)        # open 70 %, probe 90 %
    unt = _variant("untrained", labels, np.zeros(100, bool), 0.45)
    splits = {s: (np.arange(0, 100, 5), np.setdiff1d(np.arange(100), np.arange(0, 100, 5))) for s in SEEDS}
    return experiment.VLMClassificationResult(
        scale="fast", labels=labels, images=np.zeros((100, 28, 28), np.uint8), seeds=SEEDS, splits=splits,
        vision_probe_accuracy={s: 0.9 for s in SEEDS}, shuffled_probe_accuracy={s: 0.1 for s in SEEDS},
        frequency=freq, frequency_balanced=freq + 100, closed_rows=closed_rows,
        candidates=np.zeros((50, 2), int), control_candidates=np.zeros((50, 2), int),
        variants={"captions": caps, "balanced": bal, "zipf_question": zq, "untrained": unt}, seconds=1.0)


def test_gaps_hand_worked():
    r = _result()
    lat = reproduction.latent(r)
    assert lat["gap"][0] == pytest.approx(5.0) and lat["control"][0] == pytest.approx(45.0)
    g = reproduction.probe_gap(r)                   # probe 85 %, generation 55 % on every split
    assert g["question"][1] == pytest.approx(30.0) and g["control"][1] == pytest.approx(-45.0)
    # the training-prompt answers are read on each split's test part: 55 - (the 4 right answers of the 20 left out)
    test = r.splits[0][1]
    assert g["training prompt"][0] == pytest.approx(100 * (0.85 - r.variants["captions"].open_correct[test].mean()))
    b = reproduction.balanced_gap(r)
    assert b["gap"][2] == pytest.approx(0.0) and b["control"][2] == pytest.approx(30.0)
    f = reproduction.format_gap(r)                  # question format, Zipf classes: 90 - 70; control balanced
    assert f["gap"][1] == pytest.approx(20.0) and f["control"][1] == pytest.approx(0.0)
    kw = reproduction.checks(r)["vlm_classification.balance_not_format"]
    assert kw["test"](kw["measured"]) and not kw["test"](kw["control"]["measured"])
    assert kw["per_seed"] == {s: 20.0 for s in SEEDS}
    c = reproduction.closed_world_narrowing(r)
    open_closed = r.variants["captions"].open_correct[r.closed_rows].mean()
    assert c["measured"] == pytest.approx(100 * (1 - open_closed)) and c["control"] == pytest.approx(-100 * open_closed)
    out = {cid: kw for cid, kw in reproduction.checks(r).items()}
    assert out["vlm_classification.latent"]["test"](out["vlm_classification.latent"]["measured"])
    assert not out["vlm_classification.latent"]["test"](out["vlm_classification.latent"]["control"]["measured"])


def test_frequency_correlation_against_scipy_and_the_always_head_control():
    r = _result()
    f = reproduction.frequency_correlation(r)
    acc = evaluation.per_class_accuracy(r.variants["captions"].open_correct, r.labels, 10)
    want = spearmanr(r.frequency, acc, alternative="greater")
    assert f["measured"]["rho"] == pytest.approx(want.statistic) == pytest.approx(1.0)
    assert f["measured"]["p"] == pytest.approx(want.pvalue)
    # always answering the most frequent class: accuracy 1 on it, 0 elsewhere -> rho = corr(rank(freq), e_0)
    head = np.eye(10)[0]
    assert f["head"] == "zero" and f["control"]["rho"] == pytest.approx(spearmanr(r.frequency, head).statistic)
    assert f["control"]["p"] > 0.05           # a single right class is not a significant correlation over 10
    assert 0.5 < f["interval"].low <= f["interval"].high <= 1.0


def test_frequency_correlation_refuses_an_undefined_rho():
    labels = np.repeat(np.arange(9), 3)                     # class 9 has no image: its accuracy is undefined
    with pytest.raises(ValueError, match="every class"):
        reproduction.spearman_frequency(np.arange(10), np.ones(27, bool), labels)
    with pytest.raises(ValueError, match="constant"):
        reproduction.spearman_frequency(np.arange(10), np.ones(30, bool), np.repeat(np.arange(10), 3))


def test_probe_split_is_balanced_disjoint_and_seeded():
    y = np.repeat(np.arange(10), 30)
    train, test = experiment.probe_split(y, 10, 0)
    assert np.bincount(y[train]).tolist() == [10] * 10 and len(test) == 200
    assert not set(train) & set(test) and len(train) + len(test) == 300
    assert not np.array_equal(train, experiment.probe_split(y, 10, 1)[0])
    assert np.array_equal(train, experiment.probe_split(y, 10, 0)[0])
    with pytest.raises(ValueError, match="per_class_train"):
        experiment.probe_split(y, 30, 0)


def test_accuracy_marks_closed_world_not_run_as_nan():
    r = _result()
    assert np.isnan(r.variants["balanced"].accuracy(r.labels)["closed2"])
    assert r.variants["captions"].accuracy(r.labels)["probe"] == pytest.approx(0.85)


def test_lm_outputs_leave_the_callers_model_untouched(monkeypatch):
    """Every projector runs on a copy that shares the frozen LM: the model passed in keeps its own projector."""
    sentinel = object()
    vlm = tinyvlm.TinyVLM(lm="the LM", tokenizer="the tokenizer", projector=sentinel)
    seen = []

    def fake_part(copy, spec, feats):
        seen.append((spec[0], copy.projector, copy.lm))
        n = len(feats) if spec[2] is None else len(spec[2])
        return {"texts": np.array(["seven."] * n), "scores": np.zeros((n, 10)),
                "hidden": np.zeros((n, 576), np.float16)}

    monkeypatch.setattr(experiment.tinyvlm, "image_features",
                        lambda images, vlm=None, cache=True: np.zeros((len(images), 4, 1280), np.float32))
    monkeypatch.setattr(experiment, "_run_part", fake_part)
    outputs, source = experiment.lm_outputs("fast", vlm=vlm, cache=False, shipped=False)
    assert vlm.projector is sentinel and source == "computed"
    assert {name for name, _, _ in seen} == set(experiment.PROJECTORS)
    assert all(lm == "the LM" and proj is not sentinel for _, proj, lm in seen)
    assert set(outputs) == {"captions.open", "captions.train_prompt", "captions.closed", "captions.closed_control",
                            "balanced.open", "zipf_question.open", "untrained.open"}


def test_bad_input():
    with pytest.raises(ValueError, match="run scale"):
        experiment.run_vlm_classification("medium")
    with pytest.raises(ValueError, match="per_class"):
        experiment.test_digits(3)
    with pytest.raises(ValueError, match="batch"):
        experiment.live_training("fast", batch=0)
    with pytest.raises(ValueError, match="variant"):
        experiment.class_frequency(None, "other")


@pytest.mark.slow
@pytest.mark.skipif(not (assets.smollm_available() and experiment.SHIPPED["fast"].is_file()),
                    reason="needs the llm extra and the shipped outputs")
def test_fast_run_on_the_shipped_outputs():
    r = experiment.run_vlm_classification("fast")
    assert r.source == "shipped" and len(r.labels) == 300 and set(r.variants) == set(experiment.PROJECTORS)
    for name in ("captions", "balanced"):
        acc = r.variants[name].accuracy(r.labels)
        assert all(0 <= acc[k] <= 1 for k in ("open", "probabilistic", "probe"))
        assert r.variants[name].hidden.shape == (300, 576) and np.isfinite(r.variants[name].scores).all()
    assert r.frequency.sum() > 0 and all(len(te) == 200 for _, te in r.splits.values())
