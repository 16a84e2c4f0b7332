"""Run the FNO chapter's trainability grid (issue 11) and write the record the chapter reads.

σ² ∈ {0.5, 1, 1.5, 2, 2.5, 3, 4} × depth {4, 8, 16, 32} × seeds {0, 1, 2, 3}: ReLU FNOs with W, no skip
connection, D = 16, K = 8, 300 Adam steps on 1-D advection generated in code (``neurips24.fno.trainability.GRID``;
the data seed and every network's seed are in that config). One torch thread; about 20 minutes.

usage (from the repository root):
    nice -n 10 .venv/bin/python scripts/fno_trainability_grid.py [OUT.json.gz]
default OUT: src/neurips24/fno/trainability_grid.json.gz (shipped with the package). A log line per depth goes
to stdout.
"""
import pathlib
import platform
import sys
import time

import numpy as np
import torch

torch.set_num_threads(1)
from neurips24.fno import trainability  # noqa: E402

DEFAULT = pathlib.Path(__file__).resolve().parents[1] / "src/neurips24/fno" / trainability.RECORD


def main(argv):
    out = pathlib.Path(argv[0]) if argv else DEFAULT
    start = time.time()

    def progress(depth, seconds, test):
        print(f"depth {depth}: {seconds:.0f} s; test relative L2 (rows σ², columns seeds):", flush=True)
        print(np.array2string(test, precision=3), flush=True)

    result = trainability.run_trainability("full", progress=progress)
    path = trainability.save_record(
        result, out, command="nice -n 10 .venv/bin/python scripts/fno_trainability_grid.py",
        seeds="data: GRID['full']['data_seed']; networks: GRID['full']['seeds'] (torch.Generator per network)",
        torch=torch.__version__, numpy=np.__version__, python=platform.python_version(),
        machine=platform.machine(), threads=torch.get_num_threads(), wall_s=round(time.time() - start, 1),
        finished_utc=time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()))
    print(f"wrote {path}; trainable depth L*(σ²) at tol {trainability.TOL}:",
          dict(zip(result.sigma2.tolist(), result.trainable_depth().tolist(), strict=True)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
