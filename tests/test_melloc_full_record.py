"""The six PDE cases with the mechanism forced (experiment.pde_cases) and the shipped full-scale record."""
from __future__ import annotations

import json

import numpy as np
import pytest

from neurips24 import claims
from neurips24.melloc import reproduction
from neurips24.melloc.experiment import PDE_KINDS, pde_cases
from neurips24.melloc.fields import make_field


@pytest.fixture(scope="module")
def rows():
    return pde_cases(64, competitors=("pcodec", "zstd-3"), tile=32)


def test_pde_cases_rows(rows):
    assert [(r["field"], r["dtype"]) for r in rows] == [(k, d) for d in ("float32", "float64") for k in PDE_KINDS]
    for r in rows:
        assert r["n"] == 64 and r["mechanism_exact"]
        assert set(r["ratios"]) == {"pcodec", "zstd-3"}
        assert r["best_ratio"] == max(r["ratios"].values()) == r["ratios"][r["best"]]
        assert r["wins"] == (r["mechanism"] > r["best_ratio"])
        u = make_field(r["field"], 64, np.dtype(r["dtype"]), r["seed"], 6)
        from neurips24.melloc.baselines import available_baselines
        enc = available_baselines()[0]["pcodec"][0]
        assert r["ratios"]["pcodec"] == pytest.approx(u.nbytes / len(enc(u)))


def test_pde_cases_sides_per_dtype():
    rows = pde_cases({"float32": 48, "float64": 32}, competitors=["zstd-3"], tile=32)
    assert {(r["dtype"], r["n"]) for r in rows} == {("float32", 48), ("float64", 32)}


@pytest.mark.parametrize("kwargs, name", [
    (dict(n=8), "n"), (dict(n=64.0), "n"), (dict(n=True), "n"), (dict(n={"float32": 64}), "n"),
    (dict(n=64, dtypes=()), "dtypes"), (dict(n=64, dtypes=("float16",)), "dtypes"), (dict(n=64, dtypes="float32"),
                                                                                      "dtypes"),
    (dict(n=64, competitors=()), "competitors"), (dict(n=64, competitors=("alp",)), "competitors"),
    (dict(n=64, competitors="pcodec"), "competitors"), (dict(n=64, tile=4), "tile")])
def test_pde_cases_rejects(kwargs, name):
    with pytest.raises(ValueError, match=name):
        pde_cases(**kwargs)


def test_format_cases(rows):
    out = reproduction.format_cases(rows)
    assert out["wins vs every competitor"] == f"{sum(r['wins'] for r in rows)} of 6"
    assert out["wins vs pcodec"] == f"{sum(r['mechanism'] > r['ratios']['pcodec'] for r in rows)} of 6"
    r = rows[0]
    assert out["poisson/float32 64²"].startswith(f"{r['mechanism']:.2f} vs pcodec {r['ratios']['pcodec']:.2f}")
    no_pco = [{**r, "ratios": {"zstd-3": r["ratios"]["zstd-3"]}} for r in rows]
    assert "wins vs pcodec" not in reproduction.format_cases(no_pco)
    for bad in ([], None, [{"field": "heat"}], "rows"):
        with pytest.raises(ValueError, match="rows"):
            reproduction.format_cases(bad)


def _write(tmp_path, rows):
    path = tmp_path / "full_scale.json"
    meta = {"date_utc": "2026-12-05 07:45", "machine": "x86_64, 2 cores, Linux", "gpu": "none", "commit": "abc1234",
            "command": "nice -n 5 .venv/bin/python scripts/melloc_full_cases.py", "wall_s": 1.0, "cpu_s": 1.0}
    path.write_text(json.dumps({"meta": meta, "rows": rows}), encoding="utf-8")
    return path


def test_full_record_round_trip(tmp_path, rows):
    full = reproduction.load_full_record(_write(tmp_path, rows))
    m = reproduction.full_measured(full)
    assert "x86_64, 2 cores" in m["where"] and "2026-12-05 07:45 UTC" in m["where"] and "abc1234" in m["where"]
    assert m["command"].endswith("scripts/melloc_full_cases.py")
    kw = reproduction.beats_baselines_full(full)
    assert kw["measured"] == m and kw["holds"] == all(r["wins"] for r in rows)
    rec = claims._evaluate("melloc.beats_baselines_full", kw["claim"], kw["measured"], kw["paper"], kw["holds"],
                           None, None, None, kw["expect"], kw["paper_source"], "fast", None, None, kw["command"],
                           None)
    assert rec["outcome"] == "not run here"


def test_missing_record_is_a_sentence(tmp_path):
    assert reproduction.load_full_record(tmp_path / "absent.json") is None
    m = reproduction.full_measured(None)
    assert isinstance(m, str) and "no full-scale record" in m and "scripts/melloc_full_cases.py" in m
    kw = reproduction.beats_baselines_full()
    assert kw["measured"] == m and kw["holds"] is None and kw["expect"] == "needs full scale" and kw["command"]


def test_bad_record_raises(tmp_path):
    path = tmp_path / "full_scale.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="not JSON"):
        reproduction.load_full_record(path)
    path.write_text(json.dumps({"rows": []}), encoding="utf-8")
    with pytest.raises(ValueError, match="'meta'"):
        reproduction.load_full_record(path)
    with pytest.raises(ValueError, match="full"):
        reproduction.full_measured({"rows": "x"})


def test_shipped_record():
    full = reproduction.load_full_record()
    assert full is not None, "src/neurips24/melloc/full_scale.json is shipped with the package"
    assert [(r["field"], r["dtype"], r["n"]) for r in full["rows"]] == (
        [(k, "float32", 4096) for k in PDE_KINDS] + [(k, "float64", 1024) for k in PDE_KINDS])
    assert all(r["mechanism_exact"] for r in full["rows"])
    assert set(full["rows"][0]["ratios"]) >= {"pcodec", "fpzip", "zstd-19"}
