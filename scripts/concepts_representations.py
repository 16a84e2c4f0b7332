"""Collect and cache the representations the multimodal-concepts chapter explains (neurips24.concepts.collection).

Recorded command (the shipped cache, src/neurips24/concepts/representations.npz; the command and the projector's
training steps are stored inside it):

    OMP_NUM_THREADS=1 nice -n 5 .venv/bin/python scripts/concepts_representations.py

and the paper's protocol, the model's own greedy captions (src/neurips24/concepts/representations_own.npz):

    OMP_NUM_THREADS=1 .venv/bin/python scripts/concepts_representations.py --own-captions \
        --out src/neurips24/concepts/representations_own.npz

It loads the shared VLM with its shipped 'captions' projector (neurips24.assets.tinyvlm), renders the images of
each target, captions them greedily, and stores the layer-L state that predicts the target, for the trained
projector and for an untrained one (the control). Several minutes on a 2-core CPU.
"""
from __future__ import annotations

import argparse
import sys

import torch

from neurips24.concepts import collection


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--targets", default="circle,square,triangle")
    ap.add_argument("--n-images", type=int, default=240)
    ap.add_argument("--layer", type=int, default=30)
    ap.add_argument("--variant", default="captions")
    ap.add_argument("--out", default=str(collection.CACHE))
    ap.add_argument("--own-captions", action="store_true", help="feed the model's own greedy captions")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    result = collection.collect(tuple(args.targets.split(",")), args.n_images, args.layer, args.variant,
                                own_captions=args.own_captions)
    command = "python scripts/concepts_representations.py " + " ".join(argv if argv is not None else sys.argv[1:])
    path = collection.save(result, args.out, command=command.strip())
    print(f"wrote {path}: {result['meta']}")


if __name__ == "__main__":
    main()
