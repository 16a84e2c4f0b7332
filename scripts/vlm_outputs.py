"""Compute and ship the language-model outputs of the VLM-classification chapter at `fast` scale
(neurips24.vlm_classification.experiment.lm_outputs -> src/neurips24/vlm_classification/outputs_fast.npz).

Recorded command (the command is stored inside the file):

    OMP_NUM_THREADS=1 nice -n 5 .venv/bin/python scripts/vlm_outputs.py

It runs SmolLM2 with the shipped 'captions' and 'balanced' projectors and the untrained control projector on the
held-out pool of 300 MNIST test digits (open-world question, training prompt, closed-world prompts on 60 of
them, hidden states): a few minutes on one CPU thread. The file is keyed by a hash of the projector files, the
image features and the prompts, so a changed projector is never read from a stale file.
"""
from __future__ import annotations

import argparse
import sys
import time

import torch

from neurips24.vlm_classification import experiment


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", default="fast", choices=sorted(experiment.SHIPPED))
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    t0 = time.time()
    outputs, source = experiment.lm_outputs(args.scale, shipped=False)
    command = "python scripts/vlm_outputs.py " + " ".join(argv if argv is not None else sys.argv[1:])
    path = experiment.save_shipped(args.scale, outputs, experiment.SHIPPED[args.scale], command.strip())
    print(f"wrote {path} ({source}, {time.time() - t0:.0f} s)")


if __name__ == "__main__":
    main()
