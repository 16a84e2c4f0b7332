"""Train the projector of the shared small VLM (neurips24.assets.tinyvlm), LLaVA stage-1 style, on the CPU.

Recorded commands (the shipped weights; see the 'meta' entry inside each .npz for steps, time and losses):

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python scripts/train_projector.py --variant captions --seed 0 \
        --minutes 45 --log /tmp/tinyvlm_captions.log
    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python scripts/train_projector.py --variant balanced --seed 0 \
        --minutes 45 --log /tmp/tinyvlm_balanced.log

The two shipped projectors were trained on the earlier whole-stream draw of the data (see
neurips24.assets.tinyvlm_data.legacy_training_examples); a run of this script now uses the prefix-stable stream
and records meta['stream'] = 'per-example'. The control projector of the VLM-classification chapter's
balanced-data claim (question format with Zipf classes), not shipped (about 45 minutes on one CPU thread):

    OMP_NUM_THREADS=1 nice -n 10 .venv/bin/python scripts/train_projector.py --variant zipf_question --seed 0 \
        --minutes 45 --out src/neurips24/assets/tinyvlm_zipf_question.npz --log /tmp/tinyvlm_zipf_question.log

Both towers are frozen; only the projector (0.95 M parameters) learns, with Adam (lr 1e-2, gradient norm
clipped at 1; LLaVA-1.5's stage-1 rate 1e-3 with batch 256, and 3e-3, left the caption loss of a batch-8 run near
its start, ~4.2 nats/token, after 30-40 steps: a few soft prefix tokens need a large step, as in prompt tuning;
20 warm-up steps, then constant), batch 8, one torch thread. The image features are cached once
(neurips24.assets.tinyvlm.image_features). A checkpoint is written every --checkpoint-every steps, so a usable
projector exists whenever the run is stopped; the run stops after --steps steps or --minutes minutes.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import torch

from neurips24.assets import mnist_5k, tinyvlm, tinyvlm_data


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--variant", choices=tinyvlm_data.VARIANTS, default="captions")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int, default=5000)
    ap.add_argument("--minutes", type=float, default=75.0)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--lr", type=float, default=1e-2)
    ap.add_argument("--checkpoint-every", type=int, default=40)
    ap.add_argument("--out", default=None, help="default: the shipped file of the variant")
    ap.add_argument("--log", default=None)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    log = open(args.log, "a") if args.log else sys.stdout
    out = args.out or tinyvlm.WEIGHTS.get(args.variant, tinyvlm.HERE / f"tinyvlm_{args.variant}.npz")
    t_start = time.time()

    X, y = mnist_5k()
    pool = tinyvlm_data.shape_pool()
    mnist_feats = tinyvlm.image_features(np.repeat(X.reshape(-1, 28, 28, 1), 3, -1))
    shape_feats = tinyvlm.image_features(pool.images)
    print(f"features ready after {time.time() - t_start:.0f} s", file=log, flush=True)

    vlm = tinyvlm.load_tinyvlm(None, seed=args.seed)
    train, _ = tinyvlm_data.mnist_split(y)
    fit = np.concatenate([mnist_feats[train], shape_feats]).reshape(-1, tinyvlm.FEATURE_DIM)
    vlm.projector.feat_mean.copy_(torch.from_numpy(fit.mean(0)))
    vlm.projector.feat_std.copy_(torch.from_numpy(fit.std(0) + 1e-3))
    examples = tinyvlm_data.fill_shape_answers(
        tinyvlm_data.training_examples(args.steps * args.batch, y, args.variant, args.seed), pool)
    opt = torch.optim.Adam([p for p in vlm.projector.parameters() if p.requires_grad], lr=args.lr)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 20))
    losses, seconds = [], []
    meta = {"variant": args.variant, "seed": args.seed, "batch": args.batch, "lr": args.lr,
            "command": "python scripts/train_projector.py " + " ".join(argv if argv is not None else sys.argv[1:]),
            "image_size": tinyvlm.IMAGE_SIZE, "zipf_exponent": tinyvlm_data.ZIPF_EXPONENT, "stream": "per-example"}
    step = 0
    for step in range(1, args.steps + 1):
        batch = examples[(step - 1) * args.batch: step * args.batch]
        feats = np.stack([mnist_feats[e.index] if e.source != "shape" else shape_feats[e.index] for e in batch])
        t0 = time.time()
        loss = tinyvlm.caption_loss(vlm, feats, [e.instruction for e in batch], [e.answer for e in batch])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(vlm.projector.parameters(), 1.0)
        opt.step()
        sched.step()
        losses.append(float(loss))
        seconds.append(time.time() - t0)
        print(f"step {step} loss {losses[-1]:.4f} sec {seconds[-1]:.2f} elapsed {time.time() - t_start:.0f}",
              file=log, flush=True)
        done = (time.time() - t_start) / 60 >= args.minutes or step == args.steps
        if step % args.checkpoint_every == 0 or done:
            meta.update(steps=step, examples=step * args.batch, losses=[round(v, 4) for v in losses],
                        train_seconds=round(sum(seconds), 1), wall_seconds=round(time.time() - t_start, 1))
            tinyvlm.save_projector(vlm.projector, out, meta)
            print(f"checkpoint {out} at step {step}", file=log, flush=True)
        if done:
            break


if __name__ == "__main__":
    main()
