"""Bad input to the unlearning package raises a clear error naming the argument (not NaN, not a crash deep in
torch), and SCRUB, a forget-targeted method, lowers the forget-set accuracy (unlearning.stack, .memorization,
.algorithms, .experiment)."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.unlearning import HYPER, experiment, make_job, run_jobs, stack
from neurips24.unlearning.memorization import estimate_memorization


def _blobs(seed=0, n=60):
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.normal(-1.5, 0.6, (n // 2, 4)), rng.normal(1.5, 0.6, (n // 2, 4))]).astype(np.float32)
    return x, np.repeat([0, 1], n // 2)


def test_memorization_refuses_nan_inputs():
    x, y = _blobs()
    x[3, 1] = np.nan
    with pytest.raises(ValueError, match="x must be finite"):
        estimate_memorization(x, y, n_runs=4, steps=5, lr=0.05, hidden=8)


def test_memorization_refuses_bad_labels():
    x, y = _blobs()
    with pytest.raises(TypeError, match="integer class labels"):
        estimate_memorization(x, y.astype(float), n_runs=4, steps=5, lr=0.05, hidden=8)
    with pytest.raises(ValueError, match="labels y must lie"):
        estimate_memorization(x, y - 1, n_runs=4, steps=5, lr=0.05, hidden=8)


def test_negative_learning_rate_is_refused():
    x, y = _blobs()
    original = stack.fit_from_scratch(x, y, np.ones((1, len(y)), bool), hidden=8, steps=5, lr=0.05, seed=0,
                                      n_classes=2)
    job = make_job("FT", [("FT", np.arange(5), 3)], len(y))
    with pytest.raises(ValueError, match=r"FT\.lr must lie in \(0"):
        run_jobs(original, x, y, [job], n_classes=2, hyper={**HYPER, "FT": dict(lr=-1.0)})
    with pytest.raises(ValueError, match=r"NegGrad\+\.alpha must lie in \[0, 1\]"):
        run_jobs(original, x, y, [make_job("N", [("NegGrad+", np.arange(5), 3)], len(y))], n_classes=2,
                 hyper={**HYPER, "NegGrad+": dict(lr=0.01, alpha=1.5)})


def test_labels_beyond_n_classes_are_refused():
    x, y = _blobs()
    with pytest.raises(ValueError, match=r"labels y must lie in \[0, n_classes\) = \[0, 2\)"):
        stack.fit_from_scratch(x, y + 1, np.ones((1, len(y)), bool), hidden=8, steps=5, lr=0.05, seed=0,
                               n_classes=2)
    original = stack.fit_from_scratch(x, y, np.ones((1, len(y)), bool), hidden=8, steps=5, lr=0.05, seed=0,
                                      n_classes=2)
    with pytest.raises(ValueError, match="labels y must lie"):
        run_jobs(original, x, y + 5, [make_job("FT", [("FT", np.arange(5), 3)], len(y))], n_classes=2)


def test_job_built_for_more_points_is_refused():
    x, y = _blobs(n=30)
    original = stack.fit_from_scratch(x, y, np.ones((1, 30), bool), hidden=8, steps=5, lr=0.05, seed=0,
                                      n_classes=2)
    job = make_job("FT", [("FT", np.arange(20, 30), 3)], 30)
    with pytest.raises(ValueError, match="only n = 20 training points"):
        run_jobs(original, x[:20], y[:20], [job], n_classes=2)


def test_unknown_config_key_is_refused():
    with pytest.raises(ValueError, match="unknown config keys"):
        experiment.run_unlearning("fast", seeds=(0,), config={"stepz": 3})


def test_scrub_lowers_forget_accuracy():
    """SCRUB's max-steps push the student away from the teacher on S: on a forget set of flipped-label points
    that the original model fits, the forget accuracy (on the flipped labels) must fall; with the max-steps'
    sign flipped (minimising the KL on S), it must not fall as far."""
    x, y = _blobs(n=80)
    y = y.copy()
    forget = np.arange(0, 80, 8)                       # 10 points, their labels flipped: memorized by the original
    y[forget] = 1 - y[forget]
    original = stack.fit_from_scratch(x, y, np.ones((1, 80), bool), hidden=32, steps=400, lr=0.03, seed=0,
                                      n_classes=2)

    def forget_acc(params):
        return float((stack.predict_proba(params, x)[:, forget].argmax(-1) == y[forget]).mean(1)[0])

    before = forget_acc(original)
    assert before >= 0.9
    hyper = {**HYPER, "SCRUB": {**HYPER["SCRUB"], "lr": 0.01, "msteps": 10}}
    after = forget_acc(run_jobs(original, x, y, [make_job("S", [("SCRUB", forget, 30)], 80)], n_classes=2,
                                hyper=hyper))
    assert after <= before - 0.5, (before, after)
