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
LIMITS_S = {"parity": 240, "benchmarks": 120, "chapters": 300}
ANSI = r"\x1b\[[0-9;]*m"   # the colour codes of an IPython traceback
STEPS = ("parity", "benchmarks", "chapters")


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


def gpu_test_files() -> list[Path]:
    """The test modules (browser and lab tests aside) that mark a test ``gpu``."""
    return sorted(p for p in (ROOT / "tests").glob("test_*.py") if "mark.gpu" in p.read_text(encoding="utf-8"))


def run_parity(folder: Path) -> dict:
    """pytest -m gpu over the test files that hold ``gpu`` tests; counts from its closing line.

    Only those files are collected, so that a test-only package missing on the GPU machine (the browser's, say)
    cannot stop the collection.
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    files = [str(p.relative_to(ROOT)) for p in gpu_test_files()]
    cmd = [sys.executable, "-m", "pytest", *files, "-m", "gpu", "-q", "-rfE", "-p", "no:cacheprovider",
           f"--junitxml={folder / 'parity.xml'}"]
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


def execute_chapter(stem: str, claims_dir: Path, scale_name: str, cell_timeout: int) -> int:
    """Execute notebooks/<stem>.ipynb in a fresh kernel at ``scale_name``; claims go to ``claims_dir``.

    Runs in a child process of :func:`run_chapters` (``--execute-chapter``), which stops it at the deadline.
    Returns 0, or 1 when a cell failed (the error is printed; the records written before it stay).
    """
    import nbformat
    from nbclient import NotebookClient

    os.environ.update({"NEURIPS24_SCALE": scale_name, "NEURIPS24_CLAIMS_DIR": str(claims_dir),
                       "NEURIPS24_WIDGETS": "0"})
    nb = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
    try:
        NotebookClient(nb, timeout=cell_timeout, kernel_name="python3",
                       resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    except Exception as err:   # the failing cell's error, without terminal colours
        print(f"{type(err).__name__}: {re.sub(ANSI, '', str(err))[-1500:]}", file=sys.stderr)
        return 1
    return 0


def run_chapters(stems, folder: Path, scale_name: str, budget_s: float, jobs: int) -> list[dict]:
    """Run chapters ``jobs`` at a time, each in its own process and kernel, all stopped after ``budget_s`` seconds.

    Each chapter's claim records (those written before a stop too) go to ``folder/full/<stem>.jsonl`` with
    ``<stem>.meta.json`` (neurips24.fullscale's format, read by the status page); its output to
    ``folder/logs/<stem>.log``. Returns one summary dict per chapter.
    """
    from neurips24 import fullscale

    (folder / "logs").mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "OMP_NUM_THREADS": "2", "MKL_NUM_THREADS": "2", "PYTHONUNBUFFERED": "1"}
    deadline = time.time() + budget_s
    waiting, running, done = list(stems), {}, []
    while waiting or running:
        while waiting and len(running) < jobs:
            stem = waiting.pop(0)
            claims = folder / "claims" / stem
            claims.mkdir(parents=True, exist_ok=True)
            log = open(folder / "logs" / f"{stem}.log", "w", encoding="utf-8")   # closed when the chapter ends
            cmd = [sys.executable, str(Path(__file__).resolve()), "--execute-chapter", stem, "--claims-dir",
                   str(claims), "--scale", scale_name, "--cell-timeout", str(int(budget_s))]
            running[stem] = (subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                              start_new_session=True), time.perf_counter(), log, claims)
        time.sleep(1)
        for stem, (proc, t0, log, claims) in list(running.items()):
            stopped = time.time() > deadline and proc.poll() is None
            if stopped:
                os.killpg(proc.pid, 9)   # the chapter and its kernel
                proc.wait()
            if proc.poll() is None:
                continue
            log.close()
            del running[stem]
            text = (folder / "logs" / f"{stem}.log").read_text(encoding="utf-8", errors="replace")
            error = (f"stopped at the time limit ({budget_s:.0f} s); the records before it are kept" if stopped
                     else None if proc.returncode == 0 else text.strip()[-1500:] or f"exit {proc.returncode}")
            recs = [json.loads(ln) for p in sorted(claims.glob("*.jsonl"))
                    for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]
            result = {"records": recs, "seconds": round(time.perf_counter() - t0, 1), "error": error}
            fullscale.write_records(stem, result, folder / "full", "make gpu-check (scripts/gpu_check.py)")
            done.append({"chapter": stem, "seconds": result["seconds"], "error": error,
                         "claims": [{k: r.get(k) for k in ("claim_id", "outcome", "measured", "scale")}
                                    for r in recs if r.get("scale") == scale_name]})
            print(f"  {stem}: {result['seconds']} s, {len(done[-1]['claims'])} claims"
                  + (f"; {error.splitlines()[-1][:200]}" if error else ""), flush=True)
    return done


def failures(parity: dict) -> list[str]:
    """The FAILED/ERROR lines of the parity run's summary, as a Markdown list (empty when all passed)."""
    lines = [ln for ln in str(parity.get("tail", "")).splitlines() if ln.startswith(("FAILED", "ERROR"))]
    return [f"- `{ln[:300]}`" for ln in lines] + ([""] if lines else [])


def report_markdown(rep: dict) -> str:
    lines = [f"# GPU check, {rep['date']} on {rep['device']}", "",
             f"Commit `{rep['commit']}`; Python {rep['python']}; {rep['versions']}.", "",
             "## Kernel parity (tests marked `gpu`)", "",
             f"{rep['parity']['counts']} in {rep['parity']['seconds']} s (exit {rep['parity']['rc']}).", "",
             *failures(rep["parity"]),
             "## Kernels at `full` sizes", "", "| kernel | implementation | ms | GB/s | of peak |",
             "|---|---|---|---|---|"]
    for r in rep["benchmarks"]:
        peak = f"{r['of_peak']:.1%}" if r.get("of_peak") is not None else ""
        lines.append(f"| {r['kernel']} | {r['impl']} | {r['ms'] if r['ms'] is not None else ''} "
                     f"| {r['gb_s'] if r['gb_s'] is not None else ''} | {peak} |")
    lines += ["", f"## Chapters at `{rep.get('scale', 'full')}` scale", ""]
    for ch in rep["chapters"]:
        held = sum(c["outcome"] == "pass" for c in ch["claims"])
        error = ch["error"].strip().splitlines()[-1][:300] if ch["error"] else ""
        lines.append(f"- {ch['chapter']}: {ch['seconds']} s, {held} of {len(ch['claims'])} claims pass"
                     + (f"; error: {error}" if error else ""))
    lines.append("")
    return "\n".join(lines)


def commit() -> str:
    if os.environ.get("NEURIPS24_COMMIT"):   # a copy of the tree without its .git (a GPU machine's)
        return os.environ["NEURIPS24_COMMIT"]
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
    parser.add_argument("--steps", default=",".join(STEPS), help=f"comma-separated, of {STEPS} (default all)")
    parser.add_argument("--chapters", default=",".join(FULL_CHAPTERS), help="notebook stems, comma-separated")
    parser.add_argument("--scale", default="full", choices=("fast", "full"), help="the chapters' scale")
    parser.add_argument("--chapters-budget-s", type=float, default=LIMITS_S["chapters"],
                        help="seconds after which every chapter still running is stopped (its records kept)")
    parser.add_argument("--jobs", type=int, default=4, help="chapters run at a time (default 4)")
    parser.add_argument("--execute-chapter", help=argparse.SUPPRESS)
    parser.add_argument("--claims-dir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--cell-timeout", type=int, default=600, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.execute_chapter:
        return execute_chapter(args.execute_chapter, args.claims_dir, args.scale, args.cell_timeout)
    if args.dry_run:
        return dry_run()
    steps = [s for s in args.steps.split(",") if s]
    if any(s not in STEPS for s in steps):
        parser.error(f"--steps takes {STEPS}, got {args.steps!r}")
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
           "versions": f"torch {torch.__version__}, NumPy {numpy.__version__}", "missing": missing,
           "scale": args.scale, "parity": {"rc": None, "counts": {}, "seconds": 0.0, "tail": "not run"},
           "benchmarks": [], "chapters": []}
    if "benchmarks" in steps:   # first, alone on the device, so that the timings are clean
        print("benchmarks at full sizes ...", flush=True)
        rep["benchmarks"] = run_benchmarks()
    if "parity" in steps:
        print("kernel parity ...", flush=True)
        rep["parity"] = run_parity(folder)
        print(f"  {rep['parity']['counts']} (exit {rep['parity']['rc']})", flush=True)
    if "chapters" in steps:
        chapters = [c for c in args.chapters.split(",") if c]
        print(f"chapters at {args.scale} scale, {args.jobs} at a time, {args.chapters_budget_s:.0f} s at most: "
              f"{', '.join(chapters)}", flush=True)
        rep["chapters"] = run_chapters(chapters, folder, args.scale, args.chapters_budget_s, args.jobs)
    rep["wall_s"] = round(time.perf_counter() - start, 1)
    (args.out / f"{stem}.json").write_text(json.dumps(rep, indent=1), encoding="utf-8")
    md = report_markdown(rep)
    (args.out / f"{stem}.md").write_text(md, encoding="utf-8")
    (args.out / "latest.md").write_text(md, encoding="utf-8")
    print(md)
    print(f"report: {args.out / stem}.md and .json ({rep['wall_s']} s)")
    return 0 if rep["parity"]["rc"] in (0, None) and not any(c["error"] for c in rep["chapters"]) else 1


if __name__ == "__main__":
    raise SystemExit(main())
