"""scripts/gpu_check.py without a GPU: it says so and stops; its report renders; the dry run is `make test`'s."""
from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "scripts" / "gpu_check.py")
gpu_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gpu_check)


def test_without_a_gpu_it_stops_at_once_with_a_clear_message(capsys, monkeypatch):
    monkeypatch.setattr(gpu_check, "gpu_name", lambda: None)
    assert gpu_check.main([]) == 2
    assert "no CUDA GPU is visible" in capsys.readouterr().err


def test_every_cuda_source_is_listed_and_the_chapters_exist():
    assert len(gpu_check.cuda_sources()) >= 10
    assert all((ROOT / "notebooks" / f"{c}.ipynb").exists() for c in gpu_check.FULL_CHAPTERS)


def test_report_markdown_has_parity_benchmarks_and_chapters():
    rep = {"date": "2026-12-04", "device": "NVIDIA H200", "commit": "abc", "python": "3.11", "versions": "torch x",
           "parity": {"counts": {"passed": 89}, "seconds": 40.0, "rc": 0},
           "benchmarks": [{"kernel": "fno.mode_mix", "impl": "GPU (CuPy)", "ms": 0.1, "gb_s": 2000.0,
                           "of_peak": 0.42}],
           "chapters": [{"chapter": "barely_random_mts", "seconds": 50.0, "error": None,
                         "claims": [{"claim_id": "mts.x", "outcome": "pass"}]}]}
    md = gpu_check.report_markdown(rep)
    assert "NVIDIA H200" in md and "| fno.mode_mix | GPU (CuPy) | 0.1 | 2000.0 | 42.0% |" in md
    assert "barely_random_mts: 50.0 s, 1 of 1 claims pass" in md
