"""IMNConfig is validated before training (imn.model.check_config), run_accuracy refuses unknown options, and the
shipped 500-epoch record is read by the chapter's reproduction checks."""
from __future__ import annotations

import math

import numpy as np
import pytest

from neurips24 import claims, imn
from neurips24.imn import experiment, reproduction


def _xy():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    return X, (X[:, 0] > 0).astype(int)


@pytest.mark.parametrize("field, value, match", [
    ("l1", math.nan, r"IMNConfig\.l1 must be a finite number in \[0"),
    ("l1", -0.1, r"IMNConfig\.l1"),
    ("epochs", 0, r"IMNConfig\.epochs must be >= 1"),
    ("batch_size", 0, r"IMNConfig\.batch_size must be >= 2"),
    ("batch_size", 1, r"IMNConfig\.batch_size must be >= 2"),
    ("lr", -1.0, r"IMNConfig\.lr must be a finite number in \(0"),
    ("dropout", 1.0, r"IMNConfig\.dropout"),
    ("t_mult", 1, r"IMNConfig\.t_mult must be >= 2"),
    ("weight_decay", math.inf, r"IMNConfig\.weight_decay"),
])
def test_fit_refuses_bad_config(field, value, match):
    X, y = _xy()
    with pytest.raises(ValueError, match=match):
        imn.IMN(imn.IMNConfig(**{field: value})).fit(X, y)


def test_fit_refuses_non_integer_epochs():
    X, y = _xy()
    with pytest.raises(TypeError, match=r"IMNConfig\.epochs must be an integer"):
        imn.IMN(imn.IMNConfig(epochs=2.5)).fit(X, y)
    with pytest.raises(TypeError, match="config must be an IMNConfig"):
        imn.model.check_config({"epochs": 3})


def test_a_valid_config_trains():
    X, y = _xy()
    model = imn.IMN(imn.IMNConfig(epochs=6, l1=0.0)).fit(X, y)
    assert np.isfinite(model.predict_proba(X)).all()


def test_run_accuracy_refuses_bad_options():
    with pytest.raises(ValueError, match="sets must be a non-empty subset"):
        experiment.run_accuracy("fast", sets=("iris",))
    with pytest.raises(ValueError, match="epochs must be an integer >= 1"):
        experiment.run_accuracy("fast", epochs=0)
    with pytest.raises(ValueError, match="unknown config keys"):
        experiment.run_accuracy("fast", config={"epoch": 3})


def test_shipped_record_checks():
    record = experiment.load_paper_budget()
    assert record["epochs"] == 500 and len(record["seeds"]) >= 3
    for cid in ("imn.auroc_nonlinear_set", "imn.auroc_vs_ebm"):
        kw = getattr(reproduction, cid.split(".")[1])(record)
        assert kw["expect"] == "needs full scale" and "imn_paper_budget.py" in kw["command"]
        assert len(kw["per_seed"]) == len(record["seeds"])
        assert claims.outcome(cid, **kw) == "not run here"
