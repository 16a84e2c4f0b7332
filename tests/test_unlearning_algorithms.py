"""The stacked trainer against torch's own Adam, model independence, the unlearning algorithms' effects and
bad input (unlearning.stack, unlearning.algorithms)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.unlearning import stack
from neurips24.unlearning.algorithms import HYPER, make_job, run_jobs


def _blobs(seed=0, n=60):
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.normal(-1.5, 0.6, (n // 2, 4)), rng.normal(1.5, 0.6, (n // 2, 4))]).astype(np.float32)
    return x, np.repeat([0, 1], n // 2)


def test_stacked_adam_matches_torch_adam():
    torch.manual_seed(0)
    x, y = _blobs()
    p0 = stack.init_stack(3, 4, 8, 2, seed=1)
    obj = stack.Objective(stack.subset_weights(np.ones((3, len(y)), bool)), torch.as_tensor(y))
    got = stack.train_stack(p0, x, obj, 25, 0.05)
    # the same model 1 trained by torch.optim.Adam on nn.functional.cross_entropy (independent code path)
    w = {k: p0[k][1].clone().requires_grad_(True) for k in stack.KEYS}
    opt = torch.optim.Adam(list(w.values()), lr=0.05)
    xt = torch.as_tensor(x)
    for _ in range(25):
        z = torch.relu(xt @ w["W1"] + w["b1"]) @ w["W2"] + w["b2"]
        loss = torch.nn.functional.cross_entropy(z, torch.as_tensor(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
    for k in stack.KEYS:
        torch.testing.assert_close(got[k][1], w[k].detach(), rtol=1e-4, atol=1e-5)


def test_models_are_independent():
    x, y = _blobs()
    p0 = stack.init_stack(2, 4, 8, 2, seed=3)
    w = np.zeros((2, len(y)), np.float32)
    w[0] = 1 / len(y)                               # model 1 has zero loss: it must not move
    obj = stack.Objective(torch.as_tensor(w), torch.as_tensor(y))
    got = stack.train_stack(p0, x, obj, 10, 0.05)
    for k in stack.KEYS:
        torch.testing.assert_close(got[k][1], p0[k][1])
        assert not torch.allclose(got[k][0], p0[k][0])


def test_train_stack_bad_input():
    x, y = _blobs()
    p0 = stack.init_stack(2, 4, 8, 2)
    obj = stack.Objective(stack.subset_weights(np.ones((2, len(y)), bool)), torch.as_tensor(y))
    for steps, lr in ((0, 0.1), (5, np.nan), (5, -0.1), (5, [0.1, np.inf])):
        with pytest.raises(ValueError):
            stack.train_stack(p0, x, obj, steps, lr)
    with pytest.raises(ValueError, match="non-empty"):
        stack.subset_weights(np.zeros((1, 5), bool))
    with pytest.raises(ValueError, match="hidden"):
        stack.init_stack(2, 4, 0, 2)


@pytest.fixture(scope="module")
def memorized():
    """A model that fits blobs with 4 flipped labels (indices 0..3), and its data."""
    x, y = _blobs(n=80)
    y = y.copy()
    y[:4] = 1 - y[:4]
    original = stack.fit_from_scratch(x, y, np.ones((1, len(y)), bool), hidden=32, steps=300, lr=0.05, seed=0)
    assert (stack.predict_proba(original, x)[0].argmax(-1) == y).all()
    return x, y, original


def test_algorithms_move_the_forget_accuracy(memorized):
    x, y, original = memorized
    n, forget = len(y), np.arange(4)
    labels = ["nothing", "FT", "NegGrad+", "RL", "L1", "SCRUB"]
    jobs = [make_job(a, [(a, forget, 60)], n) for a in labels]
    out = stack.predict_proba(run_jobs(original, x, y, jobs, n_classes=2), x)
    acc = {a: float((out[i][forget].argmax(-1) == y[forget]).mean()) for i, a in enumerate(labels)}
    keep = {a: float((out[i][4:].argmax(-1) == y[4:]).mean()) for i, a in enumerate(labels)}
    assert acc["nothing"] == 1.0
    torch.testing.assert_close(torch.as_tensor(out[0]), torch.as_tensor(stack.predict_proba(original, x)[0]))
    assert acc["NegGrad+"] < 0.5 and acc["RL"] < 1.0             # forget-targeted methods unlearn the flips
    assert min(keep.values()) > 0.95                               # and keep the rest


def test_sequential_job_resets_and_excludes_forgotten(memorized):
    x, y, original = memorized
    n = len(y)
    # forgetting {0, 1} then {2, 3} with "nothing" first: the first phase must not move the model
    rum = make_job("seq", [("nothing", [0, 1], 30), ("NegGrad+", [2, 3], 30)], n)
    vanilla = make_job("van", [("NegGrad+", [2, 3], 30), ("nothing", [0, 1], 30)], n)
    assert rum.steps == 60 and list(rum.forget) == [0, 1, 2, 3]
    out = stack.predict_proba(run_jobs(original, x, y, [rum, vanilla], n_classes=2), x)
    # same work in another order, from the same start: nothing-then-NegGrad+ equals NegGrad+-then-nothing
    np.testing.assert_allclose(out[0], out[1], atol=1e-5)


def test_make_job_bad_input():
    with pytest.raises(ValueError, match="unknown unlearning algorithm"):
        make_job("x", [("SalUn", [0], 5)], 10)
    with pytest.raises(ValueError, match="empty"):
        make_job("x", [("FT", [], 5)], 10)
    with pytest.raises(ValueError, match="duplicates"):
        make_job("x", [("FT", [1, 1], 5)], 10)
    with pytest.raises(ValueError, match=r"\[0, 10\)"):
        make_job("x", [("FT", [10], 5)], 10)
    with pytest.raises(ValueError, match="overlap"):
        make_job("x", [("FT", [1, 2], 5), ("RL", [2], 5)], 10)
    with pytest.raises(ValueError, match="steps"):
        make_job("x", [("FT", [1], 0)], 10)


def test_run_jobs_bad_input(memorized):
    x, y, original = memorized
    n = len(y)
    with pytest.raises(ValueError, match="equal total steps"):
        run_jobs(original, x, y, [make_job("a", [("FT", [0], 5)], n), make_job("b", [("FT", [0], 6)], n)])
    bad = {**HYPER, "NegGrad+": dict(lr=0.01, alpha=np.nan)}
    with pytest.raises(ValueError, match="alpha"):
        run_jobs(original, x, y, [make_job("a", [("NegGrad+", [0], 5)], n)], hyper=bad)
    bad = {**HYPER, "FT": dict(lr=np.inf)}
    with pytest.raises(ValueError, match="lr"):
        run_jobs(original, x, y, [make_job("a", [("FT", [0], 5)], n)], hyper=bad)
