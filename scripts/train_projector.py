"""Train the projector of the shared small VLM (neurips24.assets.tinyvlm), LLaVA stage-1 style, on the CPU.

Recorded commands (the shipped weights; see the 'meta' entry inside each .npz for steps, time and losses):

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python scripts/train_projector.py --variant captions --seed 0 \
        --minutes 45 --log /tmp/tinyvlm_captions.log
    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python scripts/train_projector.py --variant balanced --seed 0 \
        --minutes 45 --log /tmp/tinyvlm_balanced.log

(run before the script used the sweep runner; `--scheduler serial` runs them the same way today).

The two shipped projectors were trained on the earlier whole-stream draw of the data (see
neurips24.assets.tinyvlm_data.legacy_training_examples); a run of this script now uses the prefix-stable stream
and records meta['stream'] = 'per-example'. The control projector of the VLM-classification chapter's
balanced-data claim (question format with Zipf classes; the balanced projector's 771 steps of batch 8), shipped
as tinyvlm_zipf_question.npz (23 minutes on one CPU thread beside other jobs, 2026-12-05; written to /work and
copied beside the package, as its meta['command'] records):

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python scripts/train_projector.py --variant zipf_question --seed 0 \
        --steps 771 --minutes 100 --out src/neurips24/assets/tinyvlm_zipf_question.npz \
        --log /tmp/tinyvlm_zipf_question.log --scheduler serial

Both towers are frozen; only the projector (0.95 M parameters) learns, with Adam (lr 1e-2, gradient norm
clipped at 1; LLaVA-1.5's stage-1 rate 1e-3 with batch 256, and 3e-3, left the caption loss of a batch-8 run near
its start, ~4.2 nats/token, after 30-40 steps: a few soft prefix tokens need a large step, as in prompt tuning;
20 warm-up steps, then constant), batch 8, one torch thread. The image features are cached once
(neurips24.assets.tinyvlm.image_features). A checkpoint is written every --checkpoint-every steps, so a usable
projector exists whenever the run is stopped; the run stops after --steps steps or --minutes minutes.

Each variant is one job of neurips24.sweep (neurips24.assets.tinyvlm_train.train_projector): several variants
(--variant captions balanced zipf_question) train side by side on a LocalCluster (--workers), serially
(--scheduler serial, as the recorded commands ran) or on a running Dask scheduler (--scheduler tcp://host:8786).
A finished job is cached (--cache), so a re-run trains only what is missing; a stopped job keeps its checkpoint.
With several variants, --out names a folder (one tinyvlm_<variant>.npz each).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from neurips24 import sweep
from neurips24.assets import tinyvlm_data, tinyvlm_train


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", nargs="+", choices=tinyvlm_data.VARIANTS, default=["captions"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int, default=5000)
    ap.add_argument("--minutes", type=float, default=75.0)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--lr", type=float, default=1e-2)
    ap.add_argument("--checkpoint-every", type=int, default=40)
    ap.add_argument("--out", default=None, help="default: the shipped file of the variant")
    ap.add_argument("--log", default=None, help="log file (with several variants: one per variant, suffixed)")
    sweep.add_arguments(ap)
    args = ap.parse_args(argv)
    command = "python scripts/train_projector.py " + " ".join(argv if argv is not None else sys.argv[1:])
    configs = []
    for variant in args.variant:
        out, log = args.out, args.log
        if len(args.variant) > 1:
            out = str(Path(out) / f"tinyvlm_{variant}.npz") if out else None
            log = f"{log}.{variant}" if log else None
        configs.append(tinyvlm_train.job_config(
            variant, steps=args.steps, minutes=args.minutes, batch=args.batch, lr=args.lr,
            checkpoint_every=args.checkpoint_every, out=out, log=log, command=command))
    res = sweep.run_sweep("neurips24.assets.tinyvlm_train:train_projector", configs, [args.seed],
                          cache_dir=args.cache, scheduler=args.scheduler, n_workers=args.workers)
    for job, meta in res.results.items():
        print(f"{job.config['variant']}: {meta['steps']} steps, last loss {meta['losses'][-1]}, "
              f"{meta['wall_seconds']} s -> {job.config['out']}")
    return 1 if res.failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
