"""scripts/train_projector.py through the sweep runner: one job per variant, options checked, outputs named."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from neurips24.assets import tinyvlm_train

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("train_projector", ROOT / "scripts" / "train_projector.py")
script = importlib.util.module_from_spec(spec)
spec.loader.exec_module(script)


def test_job_config_defaults_and_bad_options():
    cfg = tinyvlm_train.job_config("captions")
    assert cfg["steps"] == 5000 and cfg["batch"] == 8 and cfg["out"].endswith("tinyvlm_captions.npz")
    with pytest.raises(ValueError, match="variant must be one of"):
        tinyvlm_train.job_config("nope")
    with pytest.raises(ValueError, match="unknown options"):
        tinyvlm_train.job_config("captions", epochs=3)
    with pytest.raises(ValueError, match="steps must be > 0"):
        tinyvlm_train.job_config("captions", steps=0)


def test_the_script_runs_one_sweep_job_per_variant(monkeypatch, tmp_path, capsys):
    seen = []

    def fake(config, seed):
        seen.append((config["variant"], seed, config["out"], config["steps"]))
        return {"steps": config["steps"], "losses": [1.0], "wall_seconds": 0.1}

    monkeypatch.setattr(tinyvlm_train, "train_projector", fake)
    rc = script.main(["--variant", "captions", "zipf_question", "--steps", "3", "--seed", "2", "--out",
                      str(tmp_path), "--scheduler", "serial", "--cache", str(tmp_path / "cache")])
    assert rc == 0
    assert sorted(seen) == [("captions", 2, str(tmp_path / "tinyvlm_captions.npz"), 3),
                            ("zipf_question", 2, str(tmp_path / "tinyvlm_zipf_question.npz"), 3)]
    assert "zipf_question: 3 steps" in capsys.readouterr().out
