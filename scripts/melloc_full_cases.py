"""Run MeLLoC's pre-registered six PDE cases at the full scale's grids and write the record the chapter reads.

Poisson, heat and wave fields (the benchmark's fields and seed) as float32 at 4096² (coded in 1024² tiles) and
float64 at 1024², the mechanism forced (no fallback), against every installed competitor of the chapter's
benchmark; one encode per codec, the mechanism decoded once to check the bits
(``neurips24.melloc.experiment.pde_cases``). About 5.5 CPU minutes on one core (326 s on a loaded 2-core machine).

usage (from the repository root):
    nice -n 5 .venv/bin/python scripts/melloc_full_cases.py [OUT.json]
default OUT: src/neurips24/melloc/full_scale.json (shipped with the package).
"""
import json
import pathlib
import platform
import subprocess
import sys
import time

from neurips24.melloc import reproduction
from neurips24.melloc.baselines import BASELINES
from neurips24.melloc.experiment import CONFIG, pde_cases

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "src/neurips24/melloc" / reproduction.FULL_RECORD_NAME


def _git(*args) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def main(argv):
    out = pathlib.Path(argv[0]) if argv else DEFAULT
    wall, cpu = time.perf_counter(), time.process_time()
    rows = []
    for dtype, side in CONFIG["full"]["n"].items():
        for row in pde_cases({dtype: side}, dtypes=(dtype,), competitors=tuple(BASELINES),
                             tile=CONFIG["full"]["tile_n"]):
            print(f"{row['field']}/{row['dtype']} {row['n']}²: mechanism {row['mechanism']:.2f}, pcodec "
                  f"{row['ratios'].get('pcodec', float('nan')):.2f}, best {row['best']} {row['best_ratio']:.2f} "
                  f"({row['cpu_s']:.1f} s)", flush=True)
            rows.append(row)
    dirty = _git("status", "--porcelain", "src/neurips24/melloc", "scripts/melloc_full_cases.py")
    meta = {"date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
            "machine": f"{platform.machine()}, {__import__('os').cpu_count()} cores, {platform.system()}",
            "gpu": "none", "commit": _git("rev-parse", "--short", "HEAD") + (" + uncommitted MeLLoC changes"
                                                                            if dirty else ""),
            "command": "nice -n 5 .venv/bin/python scripts/melloc_full_cases.py",
            "wall_s": round(time.perf_counter() - wall, 1), "cpu_s": round(time.process_time() - cpu, 1)}
    out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out} ({meta['wall_s']} s wall, {meta['cpu_s']} s CPU)")


if __name__ == "__main__":
    main(sys.argv[1:])
