"""Run a grid of jobs (an experiment function, a configuration, a seed) on Dask, cached on disk and resumable.

One job is ``fn(config, seed) -> result``: a chapter's experiment function at one point of its grid, at one seed.
:func:`run_sweep` runs every (configuration, seed) pair of a grid:

- on **Dask distributed** (``dask.distributed``): a ``LocalCluster`` on this machine by default (no set-up), or any
  running scheduler given by address (``scheduler="tcp://host:8786"``). On a university cluster, start one with
  ``dask-jobqueue`` (``SLURMCluster(cores=..., memory=...).scale(jobs=...)``) and pass its ``scheduler_address``.
  Dask schedules; this module only submits, caches and reports. ``scheduler="serial"`` runs the jobs one after
  the other in this process (no Dask needed), which the tests compare with a cluster run;
- **cached** on disk, one JSON file per job named by a hash of (function, configuration, seed, package version):
  a re-run computes only what is missing, and an interrupted sweep resumes where it stopped. A result must be
  JSON data (numbers, strings, lists, dicts; NumPy values are converted). No pickle is ever read back;
- with a **progress bar** (tqdm) of jobs done, running and failed. A job that raises is reported with its
  traceback and does not stop the others.

``scripts/`` use it for the long runs (the FNO trainability grid, the abrupt-learning search, the full-scale
chapter runs of ``make full``); each script keeps its command line and seed record.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

DEFAULT_CACHE = Path.home() / ".cache" / "neurips24" / "sweep"
MMAP_THRESHOLD = 64 * 2**20   # bytes: glibc's mmap threshold in LocalCluster workers (see _run_dask)


@dataclass(frozen=True)
class Job:
    """One point of a grid: ``fn(config, seed)``.

    Attributes
    ----------
    fn : str, the function as 'module:qualname' (e.g. 'neurips24.fno.trainability:train_point'); workers import it.
    config : dict of JSON values (the grid point).
    seed : int >= 0.
    """

    fn: str
    config: dict
    seed: int

    def __hash__(self) -> int:
        return hash((self.fn, json.dumps(self.config, sort_keys=True), self.seed))

    def key(self, version: str) -> str:
        """The job's cache key: SHA-256 of (function, configuration, seed, package version), 24 hex digits."""
        text = json.dumps([self.fn, _plain(self.config), int(self.seed), version], sort_keys=True)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


@dataclass
class SweepResult:
    """What a sweep gives back.

    Attributes
    ----------
    results : dict job -> result (JSON data), for every job that succeeded (computed now or read from the cache).
    failed : dict job -> traceback text, for every job that raised.
    computed, cached : int, how many results were computed in this call and how many came from the cache.
    wall_s : float, seconds of wall time of the call.
    """

    results: dict = field(default_factory=dict)
    failed: dict = field(default_factory=dict)
    computed: int = 0
    cached: int = 0
    wall_s: float = 0.0

    def value(self, config: Mapping, seed: int):
        """The result of the job at ``(config, seed)``; KeyError if it failed or was not in the grid."""
        for job, res in self.results.items():
            if job.seed == seed and _plain(job.config) == _plain(dict(config)):
                return res
        raise KeyError(f"no result for config {dict(config)!r}, seed {seed}")


def function_name(fn: Callable) -> str:
    """'module:qualname' of a module-level function (what a worker imports).

    Raises
    ------
    TypeError if ``fn`` is not a module-level function (a lambda or a nested function cannot be imported).
    """
    if not callable(fn) or not hasattr(fn, "__module__") or not hasattr(fn, "__qualname__"):
        raise TypeError(f"fn must be a module-level function, got {fn!r}")
    if "<" in fn.__qualname__ or fn.__module__ == "__main__":
        raise TypeError(f"fn must be a module-level function of an importable module, got {fn.__qualname__!r} "
                        f"in {fn.__module__!r}")
    return f"{fn.__module__}:{fn.__qualname__}"


def resolve(name: str) -> Callable:
    """The function named 'module:qualname'."""
    module, _, qualname = name.partition(":")
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def grid(fn: Callable | str, configs: Iterable[Mapping], seeds: Sequence[int]) -> list[Job]:
    """Every (configuration, seed) pair as a :class:`Job`, configurations outermost.

    Raises
    ------
    ValueError if there is no configuration or no seed, a seed is not an int >= 0, or a configuration is not
    JSON data; TypeError if ``fn`` cannot be imported by name.
    """
    name = fn if isinstance(fn, str) else function_name(fn)
    configs = [dict(c) for c in configs]
    seeds = list(seeds)
    if not configs or not seeds:
        raise ValueError(f"need at least one configuration and one seed, got {len(configs)} and {len(seeds)}")
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise ValueError(f"seeds must be ints >= 0, got {s!r}")
    for c in configs:
        try:
            json.dumps(_plain(c))
        except TypeError as err:
            raise ValueError(f"a configuration must be JSON data, got {c!r}: {err}") from None
    return [Job(name, _plain(c), int(s)) for c in configs for s in seeds]


def run_job(job: Job):
    """Run one job in this process: ``resolve(job.fn)(config, seed)``, its result made JSON data."""
    return _plain(resolve(job.fn)(dict(job.config), job.seed))


def _plain(value):
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


def _cache_path(cache_dir: Path, job: Job, version: str) -> Path:
    return cache_dir / f"{job.key(version)}.json"


def _read(path: Path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)["result"]


def _write(path: Path, job: Job, result, seconds: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    record = {"fn": job.fn, "config": job.config, "seed": job.seed, "seconds": round(seconds, 3),
              "finished_utc": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime()), "result": result}
    tmp.write_text(json.dumps(record), encoding="utf-8")
    os.replace(tmp, path)   # atomic: an interrupted sweep never leaves half a result


def _timed(job: Job):
    start = time.perf_counter()
    result = run_job(job)
    return result, time.perf_counter() - start


def run_sweep(fn: Callable | str, configs: Iterable[Mapping], seeds: Sequence[int], *,
              cache_dir: str | Path | None = None, scheduler: str | None = None, n_workers: int = 2,
              threads_per_worker: int = 1, progress: bool = True, version: str | None = None) -> SweepResult:
    """Run ``fn(config, seed)`` for every configuration and seed; cached, resumable, failures reported.

    Parameters
    ----------
    fn : a module-level function ``fn(config: dict, seed: int) -> JSON data`` (or its 'module:qualname').
    configs : the grid points (dicts of JSON values).
    seeds : ints >= 0 (pass them through :func:`neurips24.seeds` in a chapter).
    cache_dir : where results are cached (default ``~/.cache/neurips24/sweep``); one JSON file per job.
    scheduler : None (a ``LocalCluster`` of ``n_workers`` processes on this machine), a Dask scheduler address
        ('tcp://host:8786'), or 'serial' (in this process, no Dask).
    n_workers, threads_per_worker : the LocalCluster's size (ignored with an address or 'serial').
    progress : show a tqdm bar (done / running / failed).
    version : the package version in the cache key (default ``neurips24.__version__``).

    Returns
    -------
    :class:`SweepResult`.

    Raises
    ------
    ValueError on an empty grid, bad seeds, n_workers < 1, or a scheduler that is neither None, 'serial' nor an
    address; TypeError if ``fn`` is not importable by name; ImportError (naming the extra) when Dask is needed
    and not installed. A job's own exception is never raised: it is in ``failed`` with its traceback.
    """
    from . import __version__

    jobs = grid(fn, configs, seeds)
    if isinstance(n_workers, bool) or not isinstance(n_workers, int) or n_workers < 1:
        raise ValueError(f"n_workers must be an int >= 1, got {n_workers!r}")
    if scheduler is not None and scheduler != "serial" and "://" not in str(scheduler):
        raise ValueError(f"scheduler must be None, 'serial' or an address like 'tcp://host:8786', got {scheduler!r}")
    version = version or __version__
    cache = Path(cache_dir) if cache_dir is not None else DEFAULT_CACHE
    start = time.perf_counter()
    out = SweepResult()
    todo = []
    for job in jobs:
        path = _cache_path(cache, job, version)
        if path.exists():
            out.results[job] = _read(path)
            out.cached += 1
        else:
            todo.append(job)
    bar = _bar(len(jobs), out.cached, progress)
    try:
        if scheduler == "serial":
            for job in todo:
                _finish(out, cache, version, job, *_serial(job))
                _update(bar, out, running=0)
        elif todo:
            _run_dask(todo, out, cache, version, scheduler, n_workers, threads_per_worker, bar)
    finally:
        if bar is not None:
            bar.close()
    for job, tb in out.failed.items():
        print(f"job failed: {job.fn} config={job.config} seed={job.seed}\n{tb}", flush=True)
    out.wall_s = time.perf_counter() - start
    return out


def _serial(job: Job):
    try:
        return _timed(job), None
    except Exception:   # a job's failure is reported, the others go on
        return None, traceback.format_exc()


def _finish(out: SweepResult, cache: Path, version: str, job: Job, timed, tb) -> None:
    if tb is not None:
        out.failed[job] = tb
        return
    result, seconds = timed
    _write(_cache_path(cache, job, version), job, result, seconds)
    out.results[job] = result
    out.computed += 1


def _run_dask(todo, out, cache, version, scheduler, n_workers, threads_per_worker, bar) -> None:
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError as err:   # pragma: no cover - the sweep extra installs it
        raise ImportError("a Dask sweep needs dask.distributed: pip install 'neurips24[sweep]' "
                          "(or run with scheduler='serial')") from err
    import dask

    cluster = None
    if scheduler is None:
        # Dask's nanny sets MALLOC_TRIM_THRESHOLD_ in every worker, which also freezes glibc's mmap threshold at
        # 128 KiB: a torch job's tensors are then mapped and unmapped at every step (measured: the FNO grid's depth-4
        # job 2.5-3x slower than in this process). A 64 MiB mmap threshold gives the in-process speed back.
        with dask.config.set({"distributed.nanny.pre-spawn-environ.MALLOC_MMAP_THRESHOLD_": MMAP_THRESHOLD}):
            cluster = LocalCluster(n_workers=n_workers, threads_per_worker=threads_per_worker, processes=True,
                                   host="127.0.0.1", dashboard_address=None)
    client = Client(cluster if cluster is not None else scheduler)
    try:
        futures = {client.submit(_timed, job, key=f"job-{job.key(version)}", pure=False): job for job in todo}
        running = len(futures)
        _update(bar, out, running=running)
        for future in as_completed(futures):
            job = futures[future]
            running -= 1
            if future.status == "error":
                exc, tb = future.exception(), future.traceback()
                text = "".join(traceback.format_exception(type(exc), exc, tb))
                _finish(out, cache, version, job, None, text)
            else:
                _finish(out, cache, version, job, future.result(), None)
            _update(bar, out, running=running)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def _bar(total: int, done: int, progress: bool):
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=done, desc="sweep", unit="job")


def _update(bar, out: SweepResult, running: int) -> None:
    if bar is None:
        return
    bar.n = len(out.results) + len(out.failed)
    bar.set_postfix(running=running, failed=len(out.failed), cached=out.cached, refresh=False)
    bar.refresh()


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The command-line options every sweep script shares: --scheduler, --workers, --cache."""
    parser.add_argument("--scheduler", default=None,
                        help="a running Dask scheduler (tcp://host:8786), or 'serial'; default: a LocalCluster here")
    parser.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (default 2)")
    parser.add_argument("--cache", type=Path, default=None, help=f"result cache (default {DEFAULT_CACHE})")
    return parser


def monte_carlo_pi(config: Mapping, seed: int) -> dict:
    """A small example job: estimate π from ``config['n']`` uniform points in the unit square (NumPy).

    Returns {'pi': float, 'n': int}. Raises ValueError if ``config['n']`` is not an int >= 1 (the tests use this
    to check that one failing job is reported and the others complete).
    """
    n = config.get("n")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"config['n'] must be an int >= 1, got {n!r}")
    if config.get("sleep_s"):
        time.sleep(float(config["sleep_s"]))
    xy = np.random.default_rng(seed).random((n, 2))
    return {"pi": float(4.0 * np.mean((xy ** 2).sum(1) <= 1.0)), "n": n}
