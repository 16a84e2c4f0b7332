"""Search for the smallest configuration that shows the abrupt drop of the masked MSE (issue 17).

Each run is one line of arguments; it trains with neurips24.abrupt_learning.train and appends its log (one JSON
line per evaluation) to src/neurips24/abrupt_learning/search/<name>.jsonl, then a summary line to
search/summary.jsonl: the configuration, the first step where the held-out masked MSE fell below 0.8·Var(X_ij)
(None if it never did), and the last step reached.

usage: nice -n 10 python scripts/abrupt_learning_search.py NAME key=value ... [time=SECONDS] [ckpt_every=STEPS]
       python scripts/abrupt_learning_search.py --table    # rebuild search.json (the chapter's table) from the
                                                            # summaries, the logs and the shipped run
"""
import json
import pathlib
import sys

import torch

torch.set_num_threads(1)
from neurips24.abrupt_learning.data import entry_variance  # noqa: E402
from neurips24.abrupt_learning.experiment import save_checkpoint  # noqa: E402
from neurips24.abrupt_learning.train import Config, config_dict, train  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parents[1] / "src/neurips24/abrupt_learning/search"


DROP = 0.8     # the drop: the first logged step with held-out masked MSE < DROP * Var(X_ij)


def first_drop(log, var):
    return next((r["step"] for r in log if r["step"] > 0 and r["masked"] < DROP * var), None)


def table():
    """Write search.json: one row per run of summary.jsonl (last summary per name) plus the shipped run."""
    runs = {}
    for line in (OUT / "summary.jsonl").read_text().splitlines():
        s = json.loads(line)
        runs[s["name"]] = (s["config"], [json.loads(x) for x in (OUT / f"{s['name']}.jsonl").read_text().splitlines()])
    for shipped in sorted((OUT.parent / "shipped").glob("*/run.json")):
        rec = json.loads(shipped.read_text())
        runs[f"shipped: {shipped.parent.name}"] = (rec["config"], rec["log"])

    def key(cfg):        # training is deterministic: runs with the same key follow the same trajectory
        return tuple(cfg[k] for k in ("m", "n", "r", "p_mask", "d", "layers", "heads", "ffn", "batch", "lr", "seed"))

    longest = {}
    for name, (cfg, log) in runs.items():
        if key(cfg) not in longest or log[-1]["step"] >= runs[longest[key(cfg)]][1][-1]["step"]:   # ties: shipped
            longest[key(cfg)] = name
    runs = {name: runs[name] for name in runs if longest[key(runs[name][0])] == name}   # keep the longest
    rows = []
    for name, (cfg, log) in runs.items():
        var = entry_variance(cfg["r"])
        rows.append(dict(name=name, **{k: cfg[k] for k in ("m", "n", "r", "p_mask", "d", "layers", "heads", "batch",
                                                             "lr", "seed")},
                         var=var, last_step=log[-1]["step"], drop_step=first_drop(log, var),
                         min_masked=min(r["masked"] for r in log if r["step"] > 0),
                         final_observed=log[-1]["observed"]))
    (OUT.parent / "search.json").write_text(json.dumps(rows, indent=1))
    print(json.dumps(rows, indent=1))


def main(argv):
    if argv == ["--table"]:
        return table()
    name, kv = argv[0], dict(a.split("=", 1) for a in argv[1:])
    limit = float(kv.pop("time", 1200))
    every = int(kv.pop("ckpt_every", 0))        # keep checkpoints every so many steps (scratch, /tmp)
    cfg = Config(**{k: (float(v) if k in ("lr", "p_mask") else int(v)) for k, v in kv.items()})
    OUT.mkdir(exist_ok=True)
    path = OUT / f"{name}.jsonl"
    path.write_text("")
    ckpts = range(0, cfg.steps + 1, every) if every else ()
    _, log, states = train(cfg, checkpoint_steps=ckpts, log_path=path, time_limit_s=limit,
                           stop_when_masked_below=0.25)
    if states:
        scratch = pathlib.Path("/tmp/abrupt_learning_ckpts") / name
        scratch.mkdir(parents=True, exist_ok=True)
        for step, state in states.items():
            save_checkpoint(scratch / f"ckpt_{step}.npz", cfg, step, state)
    var = entry_variance(cfg.r)
    drop = first_drop(log, var)
    summ = dict(name=name, config=config_dict(cfg), var=var, drop_step=drop, last_step=log[-1]["step"],
                final_masked=log[-1]["masked"], final_observed=log[-1]["observed"],
                min_masked=min(r["masked"] for r in log), seconds=log[-1]["seconds"])
    with open(OUT / "summary.jsonl", "a") as fh:
        fh.write(json.dumps(summ) + "\n")
    print(json.dumps(summ))


if __name__ == "__main__":
    main(sys.argv[1:])
