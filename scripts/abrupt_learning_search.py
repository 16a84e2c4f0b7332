"""Search for the smallest configuration that shows the abrupt drop of the masked MSE (issue 17).

Each run is one line of arguments; it trains with neurips24.abrupt_learning.train and appends its log (one JSON
line per evaluation) to src/neurips24/abrupt_learning/search/<name>.jsonl, then a summary line to
search/summary.jsonl: the configuration, the first step where the held-out masked MSE fell below 0.8·Var(X_ij)
(None if it never did), and the last step reached.

Each run is one job of ``neurips24.sweep`` (``neurips24.abrupt_learning.train.search_run``); several runs,
separated by ``+``, run side by side on a two-worker Dask LocalCluster by default, serially with
``--scheduler serial``, or on a running Dask scheduler (``--scheduler tcp://host:8786``). Finished runs are cached
(``--cache``): a re-run of the same command only trains what is missing. The seed of a run is its ``seed=`` key
(Config.seed, default 0).

usage: nice -n 10 python scripts/abrupt_learning_search.py NAME key=value ... [time=SECONDS] [ckpt_every=STEPS]
           [+ NAME2 key=value ...] [--scheduler serial|tcp://host:8786] [--workers 2] [--cache DIR]
       python scripts/abrupt_learning_search.py --table    # rebuild search.json (the chapter's table) from the
                                                            # summaries, the logs and the shipped run
"""
import argparse
import json
import pathlib
import sys

import torch

torch.set_num_threads(1)
from neurips24 import sweep  # noqa: E402
from neurips24.abrupt_learning.data import entry_variance  # noqa: E402
from neurips24.abrupt_learning.train import Config, first_drop, search_run  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parents[1] / "src/neurips24/abrupt_learning/search"


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


def parse_run(words):
    """One run's words (NAME key=value ...) -> (job configuration, seed); values typed as Config's fields."""
    name, kv = words[0], dict(a.split("=", 1) for a in words[1:])
    config = dict(name=name, time=float(kv.pop("time", 1200)), ckpt_every=int(kv.pop("ckpt_every", 0)))
    seed = int(kv.pop("seed", Config.seed))
    config.update({k: (float(v) if k in ("lr", "p_mask") else int(v)) for k, v in kv.items()})
    Config(**{k: v for k, v in config.items() if k not in ("name", "time", "ckpt_every")}, seed=seed).validate()
    return config, seed


def main(argv):
    if argv == ["--table"]:
        return table()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", nargs="+", help="NAME key=value ... [+ NAME2 key=value ...]")
    sweep.add_arguments(ap)
    args = ap.parse_intermixed_args(argv)
    runs, words = [], []
    for w in args.run + ["+"]:
        if w == "+":
            if words:
                runs.append(parse_run(words))
            words = []
        else:
            words.append(w)
    names = [c["name"] for c, _ in runs]
    if len(set(names)) != len(names):
        sys.exit(f"run names must differ, got {names}")
    OUT.mkdir(exist_ok=True)
    by_seed = {}                    # one job per run; runs that share a seed are one sweep of configurations
    for config, seed in runs:
        by_seed.setdefault(seed, []).append(config)
    for seed, configs in by_seed.items():
        res = sweep.run_sweep(search_run, configs, [seed], cache_dir=args.cache, scheduler=args.scheduler,
                              n_workers=args.workers)
        for config in configs:
            try:
                out = res.value(config, seed)
            except KeyError:
                print(f"run {config['name']} failed (traceback above)", flush=True)
                continue
            path = OUT / f"{config['name']}.jsonl"
            path.write_text("".join(json.dumps(r) + "\n" for r in out["log"]))
            with open(OUT / "summary.jsonl", "a") as fh:
                fh.write(json.dumps(out["summary"]) + "\n")
            print(json.dumps(out["summary"]), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
