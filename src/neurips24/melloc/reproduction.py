"""The chapter's reproduction checks: each claim's measurement, interval and control, ready for ``claims.check``.

Each function turns experiment results into keyword arguments of :func:`neurips24.claims.check`, so the notebook's
check cells, plain tests and the planted-bug tests (``tests/mutants/test_melloc_compression.py``) run the same rules.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ..claims import binomial_interval
from .stencil import LAPLACE5

PDE = ("poisson", "heat", "wave")
NAMED = ("u_xx+4u_yy", "Δ5+2∂x")        # the anisotropic and advection–diffusion operators of the chapter's text
INPAINT_GAIN = 1.05
FULL_RECORD_NAME = "full_scale.json"    # written by scripts/melloc_full_cases.py, shipped with the package
FULL_CASES_COMMAND = "nice -n 5 .venv/bin/python scripts/melloc_full_cases.py"
FULL_COMMAND = ("NEURIPS24_SCALE=full python -m pytest --nbmake notebooks/melloc_compression.ipynb "
                "(float32 at 4096² in tiles of 1024², float64 at 1024²)")


def roundtrip(bench) -> dict:
    """Every MeLLoC and baseline row of the benchmark decodes bit for bit; control: a one-ulp-perturbed copy."""
    from .codec import compress, decompress
    from .fields import make_field

    exact = {f"{r['field']}/{r['dtype']}/{r['codec']}": r["exact"] for r in bench.rows}
    u0 = make_field("poisson", 64, np.float32)
    nudged = u0.copy()
    nudged[3, 3] = np.nextafter(nudged[3, 3], np.float32(np.inf))
    back = decompress(compress(u0))
    return dict(
        claim="MeLLoC's round trip (and every baseline's) is bitwise exact on every field and dtype",
        measured={"exact": sum(exact.values()), "total": len(exact)},
        holds=all(exact.values()),
        control={"name": "the same bit comparison against a copy with one value moved by one ulp",
                 "measured": "1 value moved by 1 ulp",
                 "holds": bool(np.array_equal(back.view(np.uint8), nudged.view(np.uint8)))},
        paper="precision-controlled: reconstruction error about 1e-11 (captions); exact here by design",
        paper_source="Figs. (captions)")


def damage_refused(damage: dict) -> dict:
    """No damaged container (CRC intact or re-sealed) decodes to a wrong array; control: the digest switched off.

    ``damage``: :func:`experiment.damage_check`'s result, seed -> {'digest': counts, 'no_digest': counts}.
    """
    def total(key):
        flips = sum(sum(c[how].values()) for c in (d[key] for d in damage.values()) for how in c)
        wrong = sum(c[how]["wrong"] for c in (d[key] for d in damage.values()) for how in c)
        raised = sum(c[how]["raised"] for c in (d[key] for d in damage.values()) for how in c)
        return {"wrong decodes": wrong, "raised": raised, "flips": flips}

    on, off = total("digest"), total("no_digest")
    return dict(
        claim="one flipped bit in a mechanism-coded 96² container, CRC intact or re-sealed after the damage, never "
              "decodes to a wrong array (it raises, or the bit did not change the content)",
        measured=on, test=lambda v: v["wrong decodes"] == 0,
        per_seed={s: d["digest"]["resealed"]["wrong"] + d["digest"]["crc_intact"]["wrong"]
                  for s, d in damage.items()},
        interval=binomial_interval(on["wrong decodes"], on["flips"]),
        control={"name": "the same flips decoded with the content digest switched off", "measured": off},
        paper="none: the paper's codec is lossy-to-1e-11 and says nothing about damaged files",
        paper_source="this book's own check, not the paper's")


def _rows(rec, dtype, ops=None, d5=None):
    return [r for r in rec if r["dtype"] == dtype and (ops is None or r["operator"] in ops)
            and (d5 is None or (r["operator"] == "Δ5") == d5)]


def _not_d5(rows) -> int:
    return sum(not np.array_equal(r["chosen"], LAPLACE5) for r in rows)


def _hits(rows) -> int:
    return sum(r["hit"] for r in rows)


def _per_seed_hits(rows) -> dict:
    seeds = sorted({r["seed"] for r in rows})
    return {s: _hits([r for r in rows if r["seed"] == s]) for s in seeds}


def stencil_learning(rec: list, side: int) -> dict:
    """float64: the learned template leaves Δ5 on every non-Δ5 operator's field and is exactly the generating one
    on the two named operators; control: Δ5 data (the learning must stay at Δ5)."""
    moved, named = _rows(rec, "float64", d5=False), _rows(rec, "float64", NAMED)
    d5 = _rows(rec, "float64", d5=True)
    return dict(
        claim=f"float64 at {side}²: the learned template is never Δ5 on the six non-Δ5 operators' fields, and is "
              "exactly the generating operator on every u_xx+4u_yy and Δ5+2∂x field",
        measured={"not Δ5": _not_d5(moved), "cases": len(moved), "u_xx+4u_yy, Δ5+2∂x exact": _hits(named),
                  "of": len(named)},
        holds=_not_d5(moved) == len(moved) and _hits(named) == len(named),
        per_seed=_per_seed_hits(named) if len({r["seed"] for r in named}) >= 3 else None,
        control={"name": "Δ5 data: the learning moves away from Δ5 (it must not)",
                 "measured": sorted({r["formula"] for r in d5}), "holds": _not_d5(d5) > 0},
        paper="a learned template for elliptic, parabolic and hyperbolic examples (captions)",
        paper_source="Figs. (captions)",
        fragile="the rule asks for every field; at another seed set the search misses one named field or stays "
                "at Δ5 on one operator's field (the coded size is a narrow valley around the operator)")


def stencil_recovery(rec: list, dtype: str, side: int, tried: str) -> dict:
    """Every operator's field gives back its generating template (expected not to reproduce); control: a learner
    that always returns Δ5."""
    rows = _rows(rec, dtype)
    missed = sorted({r["operator"] for r in rows if not r["hit"]})
    return dict(
        claim=f"{dtype} fields of all seven operators at {side}²: the learned template is the generating one, "
              "every seed",
        measured={"recovered": _hits(rows), "cases": len(rows), "missed": missed},
        holds=_hits(rows) == len(rows),
        interval=binomial_interval(_hits(rows), len(rows)),
        control={"name": "the same rule for a learner that always returns Δ5",
                 "measured": sum(r["operator"] == "Δ5" for r in rows),
                 "holds": all(r["operator"] == "Δ5" for r in rows)},
        paper="the learned template recovers the PDE's operator", paper_source="Figs. (captions)",
        expect="not reproduced", tried=tried)


def _competitors(bench) -> list:
    return [c for c in bench.codecs() if c not in ("melloc", "mechanism")]


def mechanism_vs_best(bench, kind: str, dtype: str) -> tuple[float, str, float]:
    """(ratio of the mechanism forced, best competitor, its ratio) on one field."""
    comps = _competitors(bench)
    best = max(comps, key=lambda c: bench.ratio(kind, dtype, c))
    return bench.ratio(kind, dtype, "mechanism"), best, bench.ratio(kind, dtype, best)


def beats_baselines(bench) -> dict:
    """Pre-registered: on all six PDE cases (three fields × two dtypes) the mechanism, forced (no fallback), has a
    higher ratio than every competitor. Control: the mechanism forced on white noise."""
    cases = {f"{k}/{d}": mechanism_vs_best(bench, k, d) for d in bench.config["dtypes"] for k in PDE}
    noise = {f"noise/{d}": mechanism_vs_best(bench, "noise", d) for d in bench.config["dtypes"]}

    def fmt(r):
        return {k: f"{m:.2f} vs {c} {b:.2f}" for k, (m, c, b) in r.items()}

    wins = sum(m > b for m, _, b in cases.values())
    sizes = ", ".join(f"{d} at {bench.config['n'][d]}²" for d in bench.config["dtypes"])
    return dict(
        claim="on all six PDE cases (Poisson, heat, wave × float32, float64), the mechanism — forced, no fallback — "
              f"has a higher compression ratio than every competitor ({', '.join(_competitors(bench))})",
        measured={**fmt(cases), "wins": f"{wins} of {len(cases)}"},
        holds=wins == len(cases),
        interval=binomial_interval(wins, len(cases)),
        control={"name": "the mechanism forced on white noise, same competitors", "measured": fmt(noise),
                 "holds": all(m > b for m, _, b in noise.values())},
        paper="MeLLoC beats ALP, FPZIP, ZFP, Blosc, Gzip, Zstd (Table 1; numbers not available to us)",
        paper_source="Table 1", expect="not reproduced",
        tried=f"the six PDE cases with the mechanism forced ({sizes}; the paper's SDRBench arrays are not "
              "available offline); the paper's competitors except ALP, plus pcodec, which wins where the "
              "mechanism loses; the larger grids run at full scale (a separate claim)")


def format_cases(rows: list) -> dict:
    """The rows of :func:`experiment.pde_cases` as short strings: one per case, and the counts of wins.

    Returns
    -------
    dict: ``'<field>/<dtype> <n>²'`` -> "mechanism vs pcodec (best competitor)", ``'wins vs pcodec'`` and
    ``'wins vs every competitor'`` ("k of m"; the first only where pcodec was run).

    Raises
    ------
    ValueError if ``rows`` is not a non-empty list of such rows.
    """
    keys = ("field", "dtype", "n", "mechanism", "ratios", "best", "best_ratio", "wins")
    if not (isinstance(rows, list) and rows and all(isinstance(r, dict) and all(k in r for k in keys)
                                                    for r in rows)):
        raise ValueError(f"rows must be a non-empty list of experiment.pde_cases rows (keys {keys})")
    out, pco = {}, [r for r in rows if "pcodec" in r["ratios"]]
    for r in rows:
        vs = f" vs pcodec {r['ratios']['pcodec']:.2f}" if "pcodec" in r["ratios"] else ""
        best = f" (best competitor {r['best']} {r['best_ratio']:.2f})" if r["best"] else ""
        out[f"{r['field']}/{r['dtype']} {r['n']}²"] = f"{r['mechanism']:.2f}{vs}{best}"
    if pco:
        out["wins vs pcodec"] = f"{sum(r['mechanism'] > r['ratios']['pcodec'] for r in pco)} of {len(pco)}"
    out["wins vs every competitor"] = f"{sum(r['wins'] for r in rows)} of {len(rows)}"
    return out


def load_full_record(path: Path | str | None = None) -> dict | None:
    """The shipped full-scale record of the six PDE cases, written by ``scripts/melloc_full_cases.py``.

    Parameters
    ----------
    path : the record (default ``full_scale.json`` next to this module, shipped with the package).

    Returns
    -------
    None when there is no record; otherwise ``{"meta": ..., "rows": ...}``: the meta's ``date_utc``, ``machine``,
    ``gpu``, ``commit``, ``command``, ``wall_s`` and ``cpu_s``; the rows of :func:`experiment.pde_cases`.

    Raises
    ------
    ValueError if the file is not JSON or lacks 'meta' or 'rows'.
    """
    path = Path(__file__).with_name(FULL_RECORD_NAME) if path is None else Path(path)
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path}: the full-scale record is not JSON ({err})") from None
    if not (isinstance(data, dict) and isinstance(data.get("meta"), dict) and isinstance(data.get("rows"), list)):
        raise ValueError(f"{path}: the full-scale record needs a 'meta' dict and a 'rows' list")
    return data


def full_measured(full: dict | None):
    """What the full-scale record holds for the six cases, with where, when and the command; a sentence if none.

    Raises
    ------
    ValueError if ``full`` is neither None nor a record of :func:`load_full_record`.
    """
    if full is None:
        return f"no full-scale record of the six cases in this copy of the book (it is made by: {FULL_CASES_COMMAND})"
    if not (isinstance(full, dict) and isinstance(full.get("meta"), dict) and isinstance(full.get("rows"), list)):
        raise ValueError(f"full must be None or a record of load_full_record, got {type(full).__name__}")
    meta = full["meta"]
    return {**format_cases(full["rows"]),
            "where": f"{meta.get('gpu') if meta.get('gpu') not in (None, 'none') else meta.get('machine', '?')}, "
                     f"{meta.get('date_utc', '?')} UTC, commit {meta.get('commit', '?')}, "
                     f"{meta.get('cpu_s', '?')} s of CPU",
            "command": meta.get("command", FULL_CASES_COMMAND)}


def beats_baselines_full(full: dict | None = None) -> dict:
    """The same pre-registered comparison at the full scale's grids: not run at fast; ``full`` (from
    :func:`load_full_record`) is the shipped record, shown as the measurement."""
    measured = full_measured(full)
    six = isinstance(measured, dict) and len(full["rows"]) == 6
    return dict(
        claim="at full scale (float32 4096² in 1024² tiles, float64 1024²), the mechanism forced beats every "
              "competitor on all six PDE cases",
        measured=measured, holds=all(r["wins"] for r in full["rows"]) if six else None,
        paper="MeLLoC beats ALP, FPZIP, ZFP, Blosc, Gzip, Zstd (Table 1)", paper_source="Table 1",
        expect="needs full scale", command=FULL_COMMAND)


def inpaint(gain: dict) -> dict:
    """Plane inpainting of NaN holes shrinks the masked field's mechanism coding by >= 5 % (median over seeds, the
    statistic fixed before running; interval: the Wilson interval of the share of seeds at >= 5 %); control: the
    same field without the hole (nothing to inpaint)."""
    values = gain["masked"]
    return dict(
        claim=f"plane inpainting of NaN holes shrinks the mechanism coding of the masked field by >= "
              f"{INPAINT_GAIN - 1:.0%} (median size ratio zero-fill / plane-fill over seeds)",
        measured=float(np.median(values)), test=lambda r: r >= INPAINT_GAIN,
        per_seed={s: float(v) for s, v in zip(gain["seeds"], values, strict=True)},
        interval=binomial_interval(sum(v >= INPAINT_GAIN for v in values), len(values)),
        control={"name": "same field without the hole (nothing to inpaint)",
                 "measured": float(np.median(gain["heat"]))},
        paper="none: the paper does not treat masks", paper_source="this book's own check, not the paper's",
        expect="not reproduced",
        tried=f"integer-plane fill of the hole's cells against the zero fill, mechanism forced, masked heat field "
              f"(float32, 256², NaN disc), {len(values)} seeds; a rounded harmonic fill was tried first and coded "
              "larger than the zero fill")
