"""The shipped record of Experiment A's training at ``fast`` scale, and its live replay (book's own).

The 200-step QAT / CherryQ runs of the ``fast`` scale (3 methods × 3 seeds on SmolLM2's last block) take about
three minutes on a 2-core CPU, over the chapter's time budget. ``scripts/cherryq_tail_runs.py`` runs them with
the chapter's own code and configuration and writes what the claims read — every run's per-window held-out loss
and its training loss at every step — to ``shipped/tail_fast_seeds_<first>-<last>.npz`` (float64 arrays and a
JSON header with the command, seeds, configuration and versions; read with ``allow_pickle=False``). The trained
weights are not shipped: no claim reads them, and they are what the replay below regenerates.

:func:`use_shipped_training` fills a :class:`~neurips24.cherryq.real.RealResult` from that record after running
live, with the same code: every method's 0-step start (the held-out loss of the quantized block) and the first
``REPLAY_STEPS`` steps of the first seed's QAT and CherryQ (impact) runs, which must reproduce the shipped loss
curves to ``REPLAY_TOL`` nats (claim ``cherryq.shipped_runs`` of :mod:`.reproduction`).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .real import RealResult, run_tail, tail_methods

SHIPPED = Path(__file__).resolve().parent / "shipped"
REPLAY_STEPS = 20
REPLAY_TOL = 1e-3          # nats per token: a run of another seed differs by tenths of a nat per step
REPLAY_METHODS = ("QAT", "CherryQ (impact)")
_CONFIG_KEYS = ("seq_len", "n_calib", "eval_len", "n_eval", "n_train", "bits", "group_size", "fractions", "seed",
                "tail_blocks", "tail_steps", "tail_lr", "tail_batch", "tail_positions", "tail_criteria")


def shipped_path(seeds) -> Path:
    """Where the record of the seeds ``seeds`` (a sequence of ints) lives: ``shipped/tail_fast_seeds_a-b.npz``."""
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise ValueError("seeds must not be empty")
    return SHIPPED / f"tail_fast_seeds_{seeds[0]}-{seeds[-1]}.npz"


def _plain(v):
    return list(v) if isinstance(v, tuple) else v


def save_tail_runs(path, res: RealResult, command: str, extra: dict | None = None) -> Path:
    """Write the trained result ``res`` (after :func:`~neurips24.cherryq.real.run_real_training`) to ``path``.

    Arrays: 'nll|<method>|<seed>' (N_eval,) held-out per-window loss (seed 'PTQ': the 0-step start);
    'loss|<method>|<seed>' (steps,) training loss per step; 'header' a JSON string (command, seeds, the
    configuration keys that decide the runs, and ``extra``).
    """
    if not res.tail or not res.losses:
        raise ValueError("res holds no trained runs: pass the result of run_real_training")
    arrays = {f"nll|{m}|{s}": np.asarray(v, dtype=np.float64) for (m, s), v in res.tail.items()}
    arrays.update({f"loss|{m}|{s}": np.asarray(v, dtype=np.float64) for (m, s), v in res.losses.items()})
    header = dict(command=command, seeds=[int(s) for s in res.config["tail_seeds"]],
                  config={k: _plain(res.config[k]) for k in _CONFIG_KEYS}, **(extra or {}))
    arrays["header"] = np.array(json.dumps(header))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)
    return path


def load_tail_runs(path) -> tuple[dict, dict, dict]:
    """Read a record of :func:`save_tail_runs` (no pickle): (nll, losses, header), nll and losses keyed by
    (method, seed) with seed an int or 'PTQ'."""
    nll, losses = {}, {}
    with np.load(Path(path), allow_pickle=False) as z:
        header = json.loads(str(z["header"]))
        for key in z.files:
            if key == "header":
                continue
            kind, method, seed = key.split("|")
            (nll if kind == "nll" else losses)[(method, seed if seed == "PTQ" else int(seed))] = z[key]
    return nll, losses, header


def _config_matches(cfg: dict, header: dict) -> bool:
    return all(json.loads(json.dumps(_plain(cfg[k]))) == header["config"][k] for k in _CONFIG_KEYS)


def use_shipped_training(res: RealResult, loaded, path=None, steps: int = REPLAY_STEPS) -> RealResult:
    """Step 3 of Experiment A from the shipped record, checked by a live replay (fills ``res.tail``,
    ``res.losses`` and ``res.replay``; drops the cached inputs as :func:`~.real.run_real_training` does).

    Live: the reference and every method's 0-step start on the held-out windows, and the first ``steps``
    steps of the first seed's runs of ``REPLAY_METHODS``. The trained runs' held-out losses and loss curves
    come from the record. ``res.replay`` holds the largest deviation of the live curves (and starts) from the
    shipped ones and, as the control, of the live curves from the shipped curves of the second seed.

    Raises
    ------
    FileNotFoundError if there is no record for ``res``'s seeds; ValueError if the record was made with another
    configuration, if ``res`` was trained already, or ``steps`` is not in [1, tail_steps].
    """
    import time

    cfg = res.config
    if not res.cache:
        raise ValueError("res holds no cached inputs: pass the result of run_real_model, once")
    if isinstance(steps, bool) or not isinstance(steps, int) or not 1 <= steps <= cfg["tail_steps"]:
        raise ValueError(f"steps must be an integer in [1, {cfg['tail_steps']}], got {steps!r}")
    path = shipped_path(cfg["tail_seeds"]) if path is None else Path(path)
    nll, losses, header = load_tail_runs(path)
    if not _config_matches(cfg, header) or header["seeds"] != [int(s) for s in cfg["tail_seeds"]]:
        raise ValueError(f"{path.name} was made with another configuration or seeds than this run")
    t0 = time.perf_counter()
    from .tail import tail_blocks, tail_nll
    model, cached = loaded.model, res.cache
    methods = tail_methods(res, model)
    live = {("reference", "PTQ"): tail_nll(model, tail_blocks(model, cfg["tail_blocks"]), cached["h_eval"],
                                           cached["evals"])}
    for m in methods:
        live[(m, "PTQ")] = run_tail(res, loaded, m, "PTQ", methods=methods)["nll"]
    s0, s1 = cfg["tail_seeds"][0], cfg["tail_seeds"][1]
    curves = {m: np.asarray(run_tail(res, loaded, m, s0, stop=steps, methods=methods)["losses"], dtype=float)
              for m in REPLAY_METHODS}

    def dev(a, b):
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        return float(np.max(np.abs(a - b))) if a.shape == b.shape else float("inf")

    res.replay = dict(
        steps=steps, seed=int(s0), control_seed=int(s1), file=path.name, command=header["command"],
        curve={m: dev(curves[m], losses[(m, s0)][:steps]) for m in REPLAY_METHODS},
        start=max(dev(v, nll[k]) for k, v in live.items()),
        control={m: dev(curves[m], losses[(m, s1)][:steps]) for m in REPLAY_METHODS},
        live_curves=curves)
    res.tail.update(live)
    res.tail.update({k: v for k, v in nll.items() if k[1] != "PTQ"})
    res.losses.update(losses)
    res.seconds["QAT"] = time.perf_counter() - t0
    res.cache = {}
    return res
