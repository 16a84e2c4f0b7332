"""Run the chapter's experiments once at `full` scale and record them: ``python -m neurips24.cts.full_run``.

The record (``full_scale.json`` beside this module by default) holds the command, seeds, configuration, versions
and timings, the per-(m, seed) summaries of the arm-level sweep (Fig. 1b with B-CTS), the decision-level runs at the
paper's set-up, the Fig. 1a curves (mean and sd at the checkpoints) and the outcome of every reproduction check.
The chapter reads it at `fast` scale to show the paper's set-up side by side (:func:`~neurips24.cts.experiment.
load_full_record`). On 2 CPU cores it takes about ten minutes of one core; nothing here needs a GPU.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from .. import claims
from . import experiment, reproduction
from .runs import SimResult


def _summary(res: SimResult) -> dict:
    """label -> mean, sd, median, stuck count, runs, median first optimal play (final regret at T)."""
    out = {}
    for j, lab in enumerate(res.labels):
        f = res.final[j]
        out[lab] = {"mean": float(f.mean()), "sd": float(f.std()), "median": float(np.median(f)),
                    "stuck": int((f > 0.5 * res.linear).sum()), "runs": int(f.size),
                    "first_optimal_median": float(np.median(res.first_optimal[j]))}
    return out


def _curves(res: SimResult) -> dict:
    return {"ts": res.ts.tolist(), "m": res.m, "T": res.T, "runs": int(res.final.shape[1]),
            **{lab: {"mean": res.cum_regret[j].mean(axis=0).round(3).tolist(),
                     "sd": res.cum_regret[j].std(axis=0).round(3).tolist()} for j, lab in enumerate(res.labels)}}


def _commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "src/neurips24/cts"], capture_output=True,
                               text=True, check=True).stdout
        return head.strip() + (" (with uncommitted changes in src/neurips24/cts)" if dirty.strip() else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def run(out: Path) -> dict:
    """Run everything at full scale on the CPU, evaluate the checks, write the record to ``out`` and return it."""
    t0, c0 = time.perf_counter(), time.process_time()
    sweep = experiment.run_regret_vs_m("full", device="cpu")
    setup = experiment.run_paper_setup("full")
    arm, decision = experiment.run_curve("full", sweep, device="cpu")
    replay = experiment.run_escb_replay("full")
    outcomes = []
    for claim_id, kwargs in reproduction.checks(sweep, setup, replay).items():
        try:
            outcomes.append(dict(claims.check(claim_id, scale="full", **kwargs)))
        except AssertionError as exc:
            outcomes.append({"claim_id": claim_id, "outcome": "fail", "error": str(exc)})
    record = {
        "command": f"{Path(sys.executable).name} -m neurips24.cts.full_run --out {out}",
        "code": _commit(),
        "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "versions": {"python": platform.python_version(), "numpy": np.__version__},
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, NumPy on the CPU",
        "wall_s": round(time.perf_counter() - t0, 1), "cpu_s": round(time.process_time() - c0, 1),
        "config": {"sweep": experiment.CONFIG["full"], "paper_setup": experiment.PAPER_SETUP["full"],
                   "escb_replay": experiment.ESCB_REPLAY["full"]},
        "seeds": {"sweep": list(sweep.seeds),
                  "paper_setup": [int(s) for s in setup]},
        "sweep": {str(m): {str(s): _summary(sweep.runs[(m, s)]) for s in sweep.seeds_at(m)} for m in sweep.m_values},
        "paper_setup": {str(s): {str(m): _summary(r) for m, r in res.items()} for s, res in setup.items()},
        "curve": {"arm": _curves(arm), "decision": _curves(decision)},
        "claims": outcomes,
    }
    out.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name(experiment.FULL_RECORD))
    args = parser.parse_args(argv)
    record = run(args.out)
    print(f"wrote {args.out} ({record['wall_s']} s wall, {record['cpu_s']} s CPU); "
          + ", ".join(f"{c['claim_id']}: {c['outcome']}" for c in record["claims"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
