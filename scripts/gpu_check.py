"""One command that turns a GPU into results: kernel parity, kernel benchmarks at `full` sizes, two chapters at `full`.

On a machine with a CUDA GPU, CuPy, torch, NumPy and SciPy (no network, no project .venv needed):

    PYTHONPATH=src python scripts/gpu_check.py            # or: make gpu-check
    PYTHONPATH=src python scripts/gpu_check.py --dry-run  # any machine: list, import, compile (make test runs it)

It
1. lists the packages it needs that are missing (to carry them as wheels), and stops at once with a clear message
   when no GPU is visible (unless --dry-run);
2. runs every test marked `gpu` (the parity of each CUDA kernel with its NumPy/torch reference), with pytest;
3. times every kernel at `full` sizes (benchmarks/kernels.py): seconds, GB/s, fraction of the device's peak
   memory bandwidth, and the torch equivalent where the benchmark has one;
4. runs the chapters with the shortest `full` runs (FULL_CHAPTERS) top to bottom at `full` scale (nbclient),
   recording their claims under the report's folder;
5. writes one report, Markdown and JSON, to benchmarks/results/gpu_check_<UTC date>_<device>.{md,json}, and
   copies the Markdown to benchmarks/results/latest.md, which the book's running page includes.
The whole run is sized to finish in under 8 minutes on an H200 (each step has its own time limit).
With --dry-run it lists what it would run, imports every module involved, and compiles every CUDA source with NVRTC
(no GPU needed); it writes no report.
"""
from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
# the two chapters whose `full` runs are shortest (each under about two minutes on one GPU)
FULL_CHAPTERS = ("barely_random_mts", "sparse_function_queries")
NEEDED = {"numpy": "numpy", "scipy": "scipy", "torch": "torch", "cupy": "cupy-cuda12x", "pytest": "pytest",
          "nbclient": "nbclient", "nbformat": "nbformat", "ipykernel": "ipykernel", "matplotlib": "matplotlib"}
LIMITS_S = {"parity": 180, "benchmarks": 150, "chapter": 120}


def missing_packages() -> list[str]:
    """The pip names of the packages this check needs that are not importable here."""
    return [pip for mod, pip in NEEDED.items() if importlib.util.find_spec(mod) is None]


def gpu_name() -> str | None:
    """The name of CUDA device 0 through CuPy, or None when CuPy or a device is missing."""
    try:
        import cupy as cp

        if cp.cuda.runtime.getDeviceCount() < 1:
            return None
        name = cp.cuda.runtime.getDeviceProperties(0)["name"]
        return name.decode() if isinstance(name, bytes) else str(name)
    except Exception:   # no CuPy, no driver, no device: all mean "no GPU here"
        return None


def cuda_sources() -> list[Path]:
    return sorted((ROOT / "src" / "neurips24").glob("*/*.cu"))


def compile_all() -> list[dict]:
    """Compile every CUDA source for every architecture of neurips24.cuda.ARCHS with NVRTC (no GPU needed)."""
    from neurips24 import cuda

    rows = []
    for path in cuda_sources():
        for arch in cuda.ARCHS:
            start = time.perf_counter()
            cubin = cuda.compile_ptx(path.read_text(encoding="utf-8"), arch, path.name)
            rows.append({"source": str(path.relative_to(ROOT)), "arch": arch, "bytes": len(cubin),
                         "seconds": round(time.perf_counter() - start, 2)})
    return rows


def run_parity(folder: Path) -> dict:
    """pytest -m gpu over tests/ (not the browser or lab tests); counts from its closing line."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    cmd = [sys.executable, "-m", "pytest", "tests", "-m", "gpu", "-q", "-p", "no:cacheprovider",
           "--ignore=tests/browser", "--ignore=tests/lab", f"--junitxml={folder / 'parity.xml'}"]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=LIMITS_S["parity"])
        out, rc = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as err:
        out, rc = (err.stdout or "") if isinstance(err.stdout, str) else "", 124
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|skipped|errors?)", out.splitlines()[-1]
                                                  if out.strip() else "")}
    return {"rc": rc, "counts": counts, "seconds": round(time.perf_counter() - start, 1), "tail": out[-4000:]}


def run_benchmarks() -> list[dict]:
    """benchmarks/kernels.py's full-size rows: kernel, implementation, ms, GB/s, fraction of peak."""
    os.environ["NEURIPS24_SCALE"] = "full"
    sys.path.insert(0, str(ROOT / "benchmarks"))
    kernels = importlib.import_module("kernels")
    from neurips24.backend import cupy_or_none

    cp = cupy_or_none()
    peak = kernels.peak_bandwidth_gb_s(cp) if cp is not None else None
    rows, deadline = [], time.time() + LIMITS_S["benchmarks"]
    for kernel, bench, _kind in kernels.BENCHES["full"]:
        if time.time() > deadline:
            rows.append({"kernel": kernel, "impl": "not run (time limit)", "ms": None, "gb_s": None, "of_peak": None})
            continue
        try:
            for name, seconds, nbytes in bench():
                gbs = nbytes / seconds / 1e9
                rows.append({"kernel": kernel, "impl": name, "ms": round(seconds * 1e3, 4), "gb_s": round(gbs, 2),
                             "of_peak": round(gbs / peak, 4) if peak and "GPU" in name else None})
        except Exception as err:   # one kernel's failure is reported, the others still run
            rows.append({"kernel": kernel, "impl": f"error: {type(err).__name__}: {err}", "ms": None,
                         "gb_s": None, "of_peak": None})
    return rows


def run_chapter(stem: str, folder: Path) -> dict:
    """Execute notebooks/<stem>.ipynb at full scale in a fresh kernel; its claims go to folder/claims."""
    import nbformat
    from nbclient import NotebookClient

    os.environ.update({"NEURIPS24_SCALE": "full", "NEURIPS24_CLAIMS_DIR": str(folder / "claims"),
                       "NEURIPS24_WIDGETS": "0"})
    nb = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
    start = time.perf_counter()
    try:
        NotebookClient(nb, timeout=LIMITS_S["chapter"], kernel_name="python3",
                       resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
        error = None
    except Exception as err:
        error = f"{type(err).__name__}: {str(err)[-1500:]}"
    recs = []
    path = folder / "claims" / f"{stem}.jsonl"
    for p in (folder / "claims").glob("*.jsonl"):
        recs += [json.loads(ln) for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]
    return {"chapter": stem, "seconds": round(time.perf_counter() - start, 1), "error": error,
            "claims": [{k: r.get(k) for k in ("claim_id", "outcome", "measured", "scale")} for r in recs
                       if r.get("scale") == "full"], "record": str(path)}


def report_markdown(rep: dict) -> str:
    lines = [f"# GPU check, {rep['date']} on {rep['device']}", "",
             f"Commit `{rep['commit']}`; Python {rep['python']}; {rep['versions']}.", "",
             "## Kernel parity (tests marked `gpu`)", "",
             f"{rep['parity']['counts']} in {rep['parity']['seconds']} s (exit {rep['parity']['rc']}).", "",
             "## Kernels at `full` sizes", "", "| kernel | implementation | ms | GB/s | of peak |",
             "|---|---|---|---|---|"]
    for r in rep["benchmarks"]:
        peak = f"{r['of_peak']:.1%}" if r.get("of_peak") is not None else ""
        lines.append(f"| {r['kernel']} | {r['impl']} | {r['ms'] if r['ms'] is not None else ''} "
                     f"| {r['gb_s'] if r['gb_s'] is not None else ''} | {peak} |")
    lines += ["", "## Chapters at `full` scale", ""]
    for ch in rep["chapters"]:
        held = sum(c["outcome"] == "pass" for c in ch["claims"])
        lines.append(f"- {ch['chapter']}: {ch['seconds']} s, {held} of {len(ch['claims'])} claims pass"
                     + (f"; error: {ch['error']}" if ch["error"] else ""))
    lines.append("")
    return "\n".join(lines)


def commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              timeout=10).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def dry_run() -> int:
    """List, import, compile: what `make gpu-check DRY_RUN=1` does on any machine."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    kernels = importlib.import_module("kernels")
    print("would run: pytest -m gpu (kernel parity) over tests/")
    print(f"would time {len(kernels.BENCHES['full'])} kernels at full sizes: "
          + ", ".join(k for k, _, _ in kernels.BENCHES["full"]))
    print(f"would run at full scale: {', '.join(FULL_CHAPTERS)}")
    for stem in FULL_CHAPTERS:
        if not (ROOT / "notebooks" / f"{stem}.ipynb").exists():
            print(f"missing chapter: {stem}")
            return 1
    rows = compile_all()
    print(f"compiled {len({r['source'] for r in rows})} CUDA sources for {sorted({r['arch'] for r in rows})} "
          f"with NVRTC: {sum(r['bytes'] for r in rows)} bytes of cubin")
    print(f"packages a GPU run needs that are missing here: {missing_packages() or 'none'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="list, import and compile only (no GPU needed)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder of the report (default benchmarks/results)")
    args = parser.parse_args(argv)
    if args.dry_run:
        return dry_run()
    missing = missing_packages()
    if missing:
        print(f"missing packages (carry them as wheels): {' '.join(missing)}", flush=True)
    name = gpu_name()
    if name is None:
        print("no CUDA GPU is visible (CuPy finds no device): nothing to check here. "
              "Use --dry-run on a machine without a GPU.", file=sys.stderr)
        return 2
    start = time.perf_counter()
    date = time.strftime("%Y-%m-%d", time.gmtime())
    stem = f"gpu_check_{date}_{re.sub(r'[^A-Za-z0-9]+', '-', name).strip('-')}"
    folder = args.out / stem
    folder.mkdir(parents=True, exist_ok=True)
    import numpy
    import torch

    rep = {"date": date, "device": name, "commit": commit(), "python": platform.python_version(),
           "versions": f"torch {torch.__version__}, NumPy {numpy.__version__}", "missing": missing}
    print("kernel parity ...", flush=True)
    rep["parity"] = run_parity(folder)
    print(f"  {rep['parity']['counts']}", flush=True)
    print("benchmarks at full sizes ...", flush=True)
    rep["benchmarks"] = run_benchmarks()
    rep["chapters"] = []
    for ch in FULL_CHAPTERS:
        print(f"chapter {ch} at full scale ...", flush=True)
        rep["chapters"].append(run_chapter(ch, folder))
    rep["wall_s"] = round(time.perf_counter() - start, 1)
    (args.out / f"{stem}.json").write_text(json.dumps(rep, indent=1), encoding="utf-8")
    md = report_markdown(rep)
    (args.out / f"{stem}.md").write_text(md, encoding="utf-8")
    (args.out / "latest.md").write_text(md, encoding="utf-8")
    print(md)
    print(f"report: {args.out / stem}.md and .json ({rep['wall_s']} s)")
    return 0 if rep["parity"]["rc"] == 0 and not any(c["error"] for c in rep["chapters"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
