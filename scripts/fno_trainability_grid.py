"""Run the FNO chapter's trainability grid (issue 11) and write the record the chapter reads.

σ² ∈ {0.5, 1, 1.5, 2, 2.5, 3, 4} × depth {4, 8, 16, 32} × seeds {0, 1, 2, 3}: ReLU FNOs with W, no skip
connection, D = 16, K = 8, 300 Adam steps on 1-D advection generated in code (``neurips24.fno.trainability.GRID``;
the data seed and every network's seed are in that config). One torch thread per job; about 20 minutes serial.

Each depth is one job of ``neurips24.sweep`` (``trainability.train_depth``: the stacked σ² × seeds ensemble at that
depth), run on a two-worker Dask LocalCluster by default, or serially (``--scheduler serial``), or on a running
Dask scheduler (``--scheduler tcp://host:8786``). Results are cached per job (``--cache``), so an interrupted
run resumes; the assembled record is the same as the in-process ``trainability.run_trainability('full')``.

usage (from the repository root):
    nice -n 10 .venv/bin/python scripts/fno_trainability_grid.py [OUT.json.gz] [--scale full|fast]
        [--scheduler serial|tcp://host:8786] [--workers 2] [--cache DIR]
default OUT: src/neurips24/fno/trainability_grid.json.gz (shipped with the package). A log line per depth goes
to stdout.
"""
import argparse
import pathlib
import platform
import sys
import time

import numpy as np
import torch

torch.set_num_threads(1)
from neurips24 import sweep  # noqa: E402
from neurips24.fno import trainability  # noqa: E402

DEFAULT = pathlib.Path(__file__).resolve().parents[1] / "src/neurips24/fno" / trainability.RECORD


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", nargs="?", type=pathlib.Path, default=DEFAULT)
    ap.add_argument("--scale", choices=("full", "fast"), default="full")
    sweep.add_arguments(ap)
    args = ap.parse_args(argv)
    start = time.time()
    cfg = trainability.GRID[args.scale]
    configs = trainability.depth_configs(cfg)
    res = sweep.run_sweep(trainability.train_depth, configs, [cfg["data_seed"]], cache_dir=args.cache,
                          scheduler=args.scheduler, n_workers=args.workers)
    if res.failed:
        sys.exit(f"{len(res.failed)} of {len(configs)} depths failed (tracebacks above); a re-run computes only these")
    jobs = [res.value(c, cfg["data_seed"]) for c in configs]
    for job in jobs:
        print(f"depth {job['depth']}: {job['seconds']:.0f} s; test relative L2 (rows σ², columns seeds):", flush=True)
        print(np.array2string(np.asarray(job["test_loss"], dtype=job["dtypes"][0]), precision=3), flush=True)
    result = trainability.assemble(cfg, jobs)
    path = trainability.save_record(
        result, args.out, command="nice -n 10 .venv/bin/python scripts/fno_trainability_grid.py",
        seeds=f"data: GRID['{args.scale}']['data_seed']; networks: GRID['{args.scale}']['seeds'] "
              "(torch.Generator per network)",
        torch=torch.__version__, numpy=np.__version__, python=platform.python_version(),
        machine=platform.machine(), threads=torch.get_num_threads(), wall_s=round(time.time() - start, 1),
        finished_utc=time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()))
    print(f"wrote {path}; trainable depth L*(σ²) at tol {trainability.TOL}:",
          dict(zip(result.sigma2.tolist(), result.trainable_depth().tolist(), strict=True)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
