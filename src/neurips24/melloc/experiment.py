"""The chapter's benchmark: MeLLoC against the baseline compressors on generated fields, sized by the run scale.

- :func:`run_benchmark` — ratio, compress MB/s and decompress MB/s for every codec × field × dtype.
- :func:`stencil_recovery` — the learned t on Poisson fields over several seeds (the generator is Δ₅, t = 1).
- :func:`bench_melloc` — one size and dtype, for ``benchmarks/`` (rows + :func:`format_table`).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from tqdm.auto import tqdm

from ..scale import check_scale
from .baselines import available_baselines
from .codec import compress, decompress, inspect
from .fields import KINDS, make_field
from .intmap import float_to_int
from .stencil import learn_stencil

CONFIG = {
    "fast": dict(n={"float32": 512, "float64": 256}, dtypes=("float32", "float64"), kinds=KINDS, n_sources=6, seed=0,
                 recovery_seeds=(0, 1, 2, 3, 4), recovery_n=256, min_time=0.02, max_repeat=3),
    "full": dict(n={"float32": 4096, "float64": 1024}, dtypes=("float32", "float64"), kinds=KINDS, n_sources=6, seed=0,
                 recovery_seeds=(0, 1, 2, 3, 4), recovery_n=1024, min_time=0.2, max_repeat=3),
}


def _time(fn, min_time: float, max_repeat: int) -> tuple[float, object]:
    """Best wall time of ``fn()`` over up to ``max_repeat`` calls (stops once ``min_time`` is spent)."""
    best, spent, out = np.inf, 0.0, None
    for _ in range(max_repeat):
        t = time.perf_counter()
        out = fn()
        dt = time.perf_counter() - t
        best, spent = min(best, dt), spent + dt
        if spent >= min_time:
            break
    return best, out


def measure_codec(name: str, enc, dec, u: np.ndarray, min_time: float = 0.02, max_repeat: int = 3) -> dict:
    """One row: ratio (original bytes / compressed bytes, all metadata counted), MB/s both ways, exactness."""
    t_enc, blob = _time(lambda: enc(u), min_time, max_repeat)
    t_dec, back = _time(lambda: dec(blob, u), min_time, max_repeat)
    back = np.asarray(back)
    exact = back.shape == u.shape and back.dtype == u.dtype and np.array_equal(back.view(np.uint8), u.view(np.uint8))
    return {"codec": name, "bytes": len(blob), "ratio": u.nbytes / len(blob),
            "compress_mb_s": u.nbytes / t_enc / 1e6, "decompress_mb_s": u.nbytes / t_dec / 1e6, "exact": bool(exact),
            "blob": blob}


def melloc_codec(backend: str = "auto"):
    """(encode, decode) pair of MeLLoC for :func:`measure_codec`."""
    return (lambda u: compress(u, backend=backend)), (lambda blob, like: decompress(blob))


@dataclass
class BenchmarkResult:
    rows: list                       # dicts: field, dtype, codec, bytes, ratio, compress_mb_s, decompress_mb_s, exact
    notes: list                      # skipped baselines
    config: dict = field(default_factory=dict)

    def ratio(self, kind: str, dtype: str, codec: str) -> float:
        return next(r["ratio"] for r in self.rows if (r["field"], r["dtype"], r["codec"]) == (kind, dtype, codec))

    def row(self, kind: str, dtype: str, codec: str) -> dict:
        return next(r for r in self.rows if (r["field"], r["dtype"], r["codec"]) == (kind, dtype, codec))

    def codecs(self) -> list[str]:
        return list(dict.fromkeys(r["codec"] for r in self.rows))


def run_benchmark(scale: str = "fast", kinds=None, dtypes=None, n: int | None = None,
                  n_sources: int | None = None) -> BenchmarkResult:
    """MeLLoC and every installed baseline on the fields of the scale.

    Parameters
    ----------
    scale : 'fast' (float32 at 512², float64 at 256²) or 'full' (float32 at 4096², float64 at 1024²).
    kinds, dtypes, n_sources : override the scale's CONFIG entries; ``n`` (int) sets one grid side for all.

    Returns
    -------
    BenchmarkResult; each MeLLoC row also carries ``blocks`` (the container's per-block summary).
    """
    cfg = dict(CONFIG[check_scale(scale)])
    for key, val in (("kinds", kinds), ("dtypes", dtypes), ("n", n), ("n_sources", n_sources)):
        if val is not None:
            cfg[key] = {d: val for d in ("float32", "float64")} if key == "n" else val
    found, notes = available_baselines()
    codecs = {"melloc": melloc_codec(), **found}
    rows = []
    jobs = [(d, k) for d in cfg["dtypes"] for k in cfg["kinds"]]
    for dtype, kind in tqdm(jobs, desc="fields", disable=None):
        u = make_field(kind, cfg["n"][dtype], np.dtype(dtype), cfg["seed"], cfg["n_sources"])
        for name, (enc, dec) in codecs.items():
            row = measure_codec(name, enc, dec, u, cfg["min_time"], cfg["max_repeat"])
            blob = row.pop("blob")
            if name == "melloc":
                row["blocks"] = inspect(blob)
            rows.append({"field": kind, "dtype": dtype, "n": cfg["n"][dtype], **row})
    return BenchmarkResult(rows, notes, cfg)


def stencil_recovery(scale: str = "fast", dtype: str = "float32") -> dict:
    """Learn the template on Poisson fields (generated with Δ₅, i.e. t = 1) for several seeds and source counts.

    Returns
    -------
    dict with ``t`` (least-squares t per case), ``ab`` (chosen integer weights per case), ``cases``.
    """
    cfg = CONFIG[check_scale(scale)]
    ts, abs_, cases = [], [], []
    for seed in cfg["recovery_seeds"]:
        for n_sources in (1, 6, 30):
            q, _, _, _ = float_to_int(make_field("poisson", cfg["recovery_n"], np.dtype(dtype), seed, n_sources))
            t, a, b = learn_stencil(q)
            ts.append(t)
            abs_.append((a, b))
            cases.append((seed, n_sources))
    return {"t": np.array(ts), "ab": abs_, "cases": cases}


def family_sizes(u: np.ndarray, backend: str = "auto") -> dict:
    """Coded size (bytes) of the source term for every integer member (a, b) of the family on one field."""
    from .backends import encode_best
    from .stencil import FAMILY, apply_stencil

    q = float_to_int(u)[0]
    return {(a, b): len(encode_best(apply_stencil(q, a, b)[1:-1, 1:-1].ravel(), backend)[1]) for a, b in FAMILY}


def bench_melloc(n: int = 512, dtype: str = "float32", kinds=KINDS) -> list[dict]:
    """Benchmark rows for one grid size and dtype (for ``benchmarks/``): see :func:`run_benchmark`."""
    return run_benchmark("fast", kinds=kinds, dtypes=(dtype,), n=n).rows


def format_table(rows: list[dict]) -> str:
    """A plain-text table: field, dtype, codec, ratio, compress MB/s, decompress MB/s, exact."""
    lines = [f"{'field':<11}{'dtype':<9}{'codec':<9}{'ratio':>8}{'comp MB/s':>11}{'dec MB/s':>10}  exact  mode"]
    for r in rows:
        mode = ""
        if "blocks" in r:
            n_mech = sum(b["mode"] == "mechanism" for b in r["blocks"])
            mode = f"{n_mech}/{len(r['blocks'])} mechanism"
        lines.append(f"{r['field']:<11}{r['dtype']:<9}{r['codec']:<9}{r['ratio']:8.2f}{r['compress_mb_s']:11.1f}"
                     f"{r['decompress_mb_s']:10.1f}  {'yes' if r['exact'] else 'NO':<5}  {mode}")
    return "\n".join(lines)


def print_table(rows: list[dict]) -> None:
    """Print :func:`format_table`."""
    print(format_table(rows))
