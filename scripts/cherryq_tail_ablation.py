"""CherryQ's selection criterion inside training: QAT and CherryQ with cherries by impact, magnitude, activation and
at random, trained the same way on SmolLM2's last blocks (the chapter's Experiment A, step 3, at the run scale).

At ``fast`` scale (1 block, 200 steps, 3 seeds) the chapter judges this ablation (claim
``cherryq.criterion_in_training``) on the shipped runs of ``scripts/cherryq_tail_runs.py``; this script made the same
comparison at ``fast`` in 6 min 22 s on one CPU thread (2026-12-05). At ``full`` scale (4 blocks, 300 steps, 5
seeds, every criterion), not run by the book (no GPU was lent), it is one command:

usage: NEURIPS24_SCALE=full python scripts/cherryq_tail_ablation.py [OUT.json]

It writes, per method and seed, the held-out perplexity and the ratio to QAT (paired over held-out windows),
to OUT.json (default: cherryq_tail_ablation.json in the working directory).
"""
import json
import sys

import numpy as np

import neurips24
from neurips24 import cherryq
from neurips24.cherryq.experiment import CRITERIA_ALL

scale = neurips24.scale()
out_path = sys.argv[1] if len(sys.argv) > 1 else "cherryq_tail_ablation.json"
loaded = cherryq.load_smollm()
cfg = dict(cherryq.experiment.CONFIG[scale]["real"], tail_criteria=CRITERIA_ALL)
with cherryq.experiment._threads(cfg["threads"]):
    real = cherryq.real.run_real_model(cfg, loaded, progress=True)
    real = cherryq.real.run_real_training(real, loaded, progress=True)
record = {"scale": scale, "config": {k: (list(v) if isinstance(v, tuple) else v) for k, v in real.config.items()
                                     if k != "ptq"}, "methods": {}}
qat = cherryq.reproduction.tail_nll(real, "QAT")
for method in ["QAT"] + [f"CherryQ ({c})" for c in CRITERIA_ALL]:
    nll = cherryq.reproduction.tail_nll(real, method)
    iv = cherryq.reproduction.paired_ratio(nll, qat) if method != "QAT" else None
    record["methods"][method] = {
        "ppl_per_seed": {str(s): float(np.exp(v.mean())) for s, v in zip(real.config["tail_seeds"], nll, strict=True)},
        "ppl_before_training": real.tail_ppl(method, "PTQ"),
        "ratio_to_QAT": None if iv is None else {"estimate": iv.estimate, "low": iv.low, "high": iv.high}}
with open(out_path, "w", encoding="utf-8") as fh:
    json.dump(record, fh, indent=1)
print(json.dumps(record["methods"], indent=1))
