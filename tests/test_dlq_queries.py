"""Loss derivatives and the transforms T(y) each query class can use (dlq.queries)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.dlq.junta import make_junta
from neurips24.dlq.queries import loss_derivative, query_transforms

LOSS_FNS = {
    "squared": lambda u, y: 0.5 * (u - y) ** 2,
    "l1": lambda u, y: abs(u - y),
}


@pytest.mark.parametrize("loss", ["squared", "l1", "huber"])
def test_derivative_matches_finite_differences(loss):
    y = np.array([-2.0, -0.125, 0.5, 8.0])
    for u in (-3.0, -1.0, 0.3, 1.7, 9.0):       # away from the kinks u = y and |u - y| = δ
        h = 1e-6
        if loss == "huber":
            def f(v):
                yt = torch.tensor(y, dtype=torch.float64)
                return torch.nn.functional.huber_loss(torch.full_like(yt, v), yt, delta=1.0,
                                                      reduction="none").numpy()
        else:
            def f(v):
                return LOSS_FNS[loss](v, y)
        fd = (f(u + h) - f(u - h)) / (2 * h)
        np.testing.assert_allclose(loss_derivative(loss, u, y), fd, atol=1e-5)


def test_l1_derivative_is_zero_at_the_label():
    np.testing.assert_array_equal(loss_derivative("l1", 0.5, np.array([0.5, 1.0, 0.0])), [0.0, -1.0, 1.0])


def test_squared_loss_spans_only_the_constant_and_y():
    """DLQ with the squared loss = CSQ: every u - y is affine in y (least squares on [1, y] is exact)."""
    y = make_junta(5).label_values()
    T, _ = query_transforms("dlq", y, loss="squared", u=np.linspace(-3, 9, 7))
    basis = np.column_stack([np.ones_like(y), y])
    resid = T - basis @ np.linalg.lstsq(basis, T, rcond=None)[0]
    assert np.max(np.abs(resid)) < 1e-12


def test_l1_loss_spans_every_function_of_a_four_valued_label():
    """DLQ with the l1 loss = SQ: sign(u - y) at u between the label values span all of R^4."""
    y = make_junta(5).label_values()                       # -2, -0.125, 0.5, 8
    T, _ = query_transforms("dlq", y, loss="l1", u=np.array([-3.0, -1.0, 0.0, 1.0]))
    assert np.linalg.matrix_rank(T) == 4
    # on binary labels, the same thresholds span only {1, y}: SQ collapses to CSQ
    yb = make_junta(5, p=0.5).label_values()
    Tb, _ = query_transforms("dlq", yb, loss="l1", u=np.linspace(-3, 3, 9))
    assert np.linalg.matrix_rank(np.column_stack([Tb, np.ones(2), yb])) == 2


def test_query_transforms_shapes_and_names():
    y = np.array([-2.0, 0.5, 8.0, 0.5])
    T, names = query_transforms("csq", y)
    np.testing.assert_array_equal(T[:, 0], y)
    assert names == ["T = y"]
    T, names = query_transforms("dlq", y, loss="l1", u=[0.0, 1.0])
    assert T.shape == (4, 2) and names == ["l1'(u=0, y)", "l1'(u=1, y)"]
    T, names = query_transforms("sq", y, levels=[-2.0, 0.5, 8.0])
    np.testing.assert_array_equal(T, [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 0]])


@pytest.mark.parametrize("call, match", [
    (lambda: loss_derivative("hinge", 0.0, np.zeros(2)), "loss must be one of"),
    (lambda: loss_derivative("l1", 0.0, np.array([0.0, np.nan])), "finite"),
    (lambda: loss_derivative("l1", 0.0, np.array([np.inf])), "finite"),
    (lambda: loss_derivative("l1", np.nan, np.zeros(2)), "u"),
    (lambda: loss_derivative("l1", 0.0, np.zeros((2, 2))), "1-d"),
    (lambda: loss_derivative("huber", 0.0, np.zeros(2), delta=0.0), "delta"),
    (lambda: loss_derivative("huber", 0.0, np.zeros(2), delta=float("inf")), "delta"),
    (lambda: query_transforms("sq", np.zeros(3)), "levels"),
    (lambda: query_transforms("mq", np.zeros(3)), "query must be"),
    (lambda: query_transforms("dlq", np.zeros(3), loss="cross-entropy"), "loss must be one of"),
    (lambda: query_transforms("dlq", np.zeros(3), u=[np.nan]), "u must be"),
    (lambda: query_transforms("csq", np.array([1.0, np.nan])), "finite"),
])
def test_bad_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_sq_refuses_labels_outside_levels():
    from neurips24.dlq.queries import query_transforms
    with pytest.raises(ValueError, match="outside levels"):
        query_transforms("sq", np.array([-2.0, 0.5, 3.0]), levels=[-2.0, 0.5, 8.0])
    with pytest.raises(ValueError, match="levels"):
        query_transforms("sq", np.array([0.5]), levels=[np.nan])
    T, _ = query_transforms("sq", np.array([-2.0, 8.0]), levels=[-2.0, 8.0])
    np.testing.assert_array_equal(T, np.eye(2))
