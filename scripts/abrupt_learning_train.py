"""Train the run whose log and checkpoints ship with the abrupt-learning chapter (issue 17).

Writes src/neurips24/abrupt_learning/shipped/NAME/run.json (the command, seed, configuration, torch version and the
held-out log: masked / observed MSE every log_every steps) and ckpt_<step>.npz for each requested step
(float32 weights in a compressed .npz, read back with np.load(allow_pickle=False)). Deterministic on CPU with one
thread: the same command reproduces the same numbers.

usage: nice -n 10 python scripts/abrupt_learning_train.py out=NAME key=value ... ckpts=0,500,3000
       (keys: the fields of neurips24.abrupt_learning.train.Config; the products go to shipped/NAME/)
The shipped runs were made by
  python scripts/abrupt_learning_train.py out=plateau_7x7 m=7 n=7 r=2 p_mask=0.3 d=64 layers=2 heads=2 \
      batch=64 lr=0.001 steps=2000 seed=0 n_eval=512 log_every=50 ckpts=0,100,500,2000
"""
import json
import sys

import torch

torch.set_num_threads(1)
from neurips24.abrupt_learning.experiment import SHIPPED, save_checkpoint  # noqa: E402
from neurips24.abrupt_learning.train import Config, train  # noqa: E402


def main(argv):
    kv = dict(a.split("=", 1) for a in argv)
    out = SHIPPED / kv.pop("out")
    ckpts = [int(s) for s in kv.pop("ckpts", "").split(",") if s]
    cfg = Config(**{k: (float(v) if k in ("lr", "p_mask") else int(v)) for k, v in kv.items()})
    out.mkdir(parents=True, exist_ok=True)
    (out / "run_log.jsonl").unlink(missing_ok=True)
    for old in out.glob("ckpt_*.npz"):
        old.unlink()
    _, log, states = train(cfg, checkpoint_steps=ckpts, log_path=out / "run_log.jsonl")
    for step, state in states.items():
        save_checkpoint(out / f"ckpt_{step}.npz", cfg, step, state)
    record = dict(command="python scripts/abrupt_learning_train.py " + " ".join(argv), seed=cfg.seed,
                  config=cfg.__dict__, torch=torch.__version__, threads=1, checkpoints=sorted(states),
                  log=[{k: r[k] for k in ("step", "masked", "observed")} for r in log])
    (out / "run.json").write_text(json.dumps(record, indent=1))
    (out / "run_log.jsonl").unlink()


if __name__ == "__main__":
    main(sys.argv[1:])
