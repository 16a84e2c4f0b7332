"""The iteration-heads chapter's transfer claim where parity cannot be memorised (Cabannes et al. 2024, §5).

Pre-train 2-layer CoT models on the polynomial iteration with L <= L_max (default 8), then fine-tune each on
parity with CoT, beside models of the same architecture trained on parity from scratch, and record, for every
seed, the first epoch at which teacher-forced test accuracy on the longest lengths (default L = 7, 8) reaches
0.95. The official schedule is 200 pre-training and 1,000 fine-tuning epochs (``--epochs``, ``--ft-epochs``).

    python scripts/iteration_heads_transfer.py [--L-max 8] [--seeds 5] [--epochs 200] [--ft-epochs 1000]
                                               [--out iteration_heads_transfer.json]

Seeds are ``neurips24.seeds(n)`` (``$NEURIPS24_SEED_OFFSET`` moves them). A GPU is used when torch sees one.
"""
from __future__ import annotations

import argparse
import json

import numpy as np
import torch

import neurips24
from neurips24.iteration_heads import experiment as ex
from neurips24.iteration_heads.model import EnsembleTransformer
from neurips24.iteration_heads.tasks import make_dataset, width
from neurips24.iteration_heads.train import fit


def _data(task, L_max, n_per_len, seeds, test_lengths):
    ds = [make_dataset(task, L_max, n_per_len, True, seed=s) for s in seeds]
    train = torch.stack([d.train for d in ds]).to(ex.DEVICE)
    keep = torch.isin(ds[0].test_len, torch.tensor(test_lengths))
    test = torch.stack([d.test[keep] for d in ds]).to(ex.DEVICE)
    return train, ds[0].train_len.to(ex.DEVICE), test, ds[0].test_len[keep].to(ex.DEVICE)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--L-max", type=int, default=8)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--ft-epochs", type=int, default=1000)
    ap.add_argument("--out", default="iteration_heads_transfer.json")
    args = ap.parse_args(argv)
    cfg = dict(ex.config("full" if torch.cuda.is_available() else "fast"))
    seeds = list(neurips24.seeds(args.seeds))
    L_max, test_lengths = args.L_max, [args.L_max - 1, args.L_max]
    T = width(L_max)
    model = EnsembleTransformer(len(seeds), cfg["d"], 2, 1, T, cfg["dropout"], seeds=seeds).to(ex.DEVICE)
    train, train_len, test, test_len = _data("polynomial", L_max, cfg["n_per_len"], seeds, test_lengths)
    pre = fit(model, train, train_len, test, test_len, args.epochs, cfg["lr"], cfg["batch_size"])
    both = EnsembleTransformer(2 * len(seeds), cfg["d"], 2, 1, T, cfg["dropout"],
                               seeds=seeds + [ex.SCRATCH + s for s in seeds]).to(ex.DEVICE)
    for k in range(len(seeds)):
        both.load_member(k, model, k)
    train, train_len, test, test_len = _data("parity", L_max, cfg["n_per_len"], seeds, test_lengths)
    train, test = torch.cat([train, train]), torch.cat([test, test])
    h = fit(both, train, train_len, test, test_len, args.ft_epochs, cfg["lr"], cfg["batch_size"])
    first = ex.first_epoch_above(h.test_acc, 0.95)
    S = len(seeds)
    record = {"seeds": seeds, "L_max": L_max, "test_lengths": test_lengths, "epochs": args.epochs,
              "ft_epochs": args.ft_epochs, "d": cfg["d"], "lr": cfg["lr"], "batch_size": cfg["batch_size"],
              "pretrain_final_acc": pre.test_acc[:, -1].tolist(),
              "finetuned_first_epoch": first[:S], "scratch_first_epoch": first[S:],
              "finetuned_final_acc": h.test_acc[:S, -1].tolist(), "scratch_final_acc": h.test_acc[S:, -1].tolist()}
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(record, fh, indent=1)
    print(json.dumps(record, default=float))
    return record


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    main()
