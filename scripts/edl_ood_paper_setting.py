"""OOD detection on the digits at the paper's own optimiser settings (the record behind the chapter's 'tried=').

The chapter's `fast` digits run trains with Adam at lr 1e-3 for 1000 steps of batch 64 (about 100 epochs) and 8
bootstrap members. This script reruns `edl.run_digits` with (a) the paper's image learning rate 2.5e-4 for 3000
steps (about its maximum of 300 epochs, without early stopping) and (b) the paper's 100 bootstrap members, on
the chapter's seeds (`NEURIPS24_SEED_OFFSET` shifts them), and prints the OOD AUROC of every score per seed:

    python scripts/edl_ood_paper_setting.py            # both settings, about 10 min of one CPU core
"""
from __future__ import annotations

import time

import torch

from neurips24.edl import experiment

SETTINGS = {"paper lr 2.5e-4, 3000 steps": dict(steps=3000, lr=2.5e-4), "100 bootstrap members": dict(M=100)}


def main() -> None:
    torch.set_num_threads(1)
    for name, overrides in SETTINGS.items():
        t0 = time.perf_counter()
        run = experiment.run_digits("fast", overrides=overrides)
        print(f"== {name} ({time.perf_counter() - t0:.0f} s), seeds {run.seeds}")
        for score, auc in run.auroc().items():
            print(f"{score:45s} {' '.join(f'{a:.4f}' for a in auc)}  mean {auc.mean():.4f}")


if __name__ == "__main__":
    main()
