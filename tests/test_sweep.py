"""neurips24.sweep: a Dask LocalCluster gives what a serial run gives; the cache skips work; a failing job is
reported while the rest complete; an interrupted sweep resumes."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import numpy as np
import pytest

from neurips24 import sweep

CONFIGS = [{"n": 200}, {"n": 2000}]
SEEDS = [0, 1, 2]


def test_serial_results_match_an_independent_computation(tmp_path):
    out = sweep.run_sweep(sweep.monte_carlo_pi, CONFIGS, SEEDS, cache_dir=tmp_path, scheduler="serial",
                          progress=False)
    assert (out.computed, out.cached, out.failed) == (6, 0, {})
    xy = np.random.default_rng(2).random((2000, 2))
    assert out.value({"n": 2000}, 2)["pi"] == pytest.approx(4 * np.mean((xy ** 2).sum(1) <= 1))


@pytest.mark.enable_socket   # the LocalCluster's scheduler and workers talk over 127.0.0.1
def test_a_two_worker_local_cluster_gives_the_serial_results(tmp_path):
    serial = sweep.run_sweep(sweep.monte_carlo_pi, CONFIGS, SEEDS, cache_dir=tmp_path / "a", scheduler="serial",
                             progress=False)
    dask = sweep.run_sweep(sweep.monte_carlo_pi, CONFIGS, SEEDS, cache_dir=tmp_path / "b", n_workers=2,
                           progress=False)
    assert dask.computed == 6 and not dask.failed
    assert {j: r for j, r in dask.results.items()} == serial.results


def test_cache_hits_skip_work_and_the_key_covers_function_config_seed_and_version(tmp_path):
    first = sweep.run_sweep(sweep.monte_carlo_pi, CONFIGS, SEEDS, cache_dir=tmp_path, scheduler="serial",
                            progress=False)
    again = sweep.run_sweep(sweep.monte_carlo_pi, CONFIGS, SEEDS, cache_dir=tmp_path, scheduler="serial",
                            progress=False)
    assert (again.computed, again.cached) == (0, 6) and again.results == first.results
    newer = sweep.run_sweep(sweep.monte_carlo_pi, CONFIGS, SEEDS, cache_dir=tmp_path, scheduler="serial",
                            progress=False, version="9.9")
    assert newer.computed == 6
    job = sweep.Job("m:f", {"n": 1}, 0)
    keys = {job.key("1"), sweep.Job("m:g", {"n": 1}, 0).key("1"), sweep.Job("m:f", {"n": 2}, 0).key("1"),
            sweep.Job("m:f", {"n": 1}, 1).key("1"), job.key("2")}
    assert len(keys) == 5
    record = json.loads(next(tmp_path.glob("*.json")).read_text())
    assert set(record) >= {"fn", "config", "seed", "seconds", "result"}


@pytest.mark.enable_socket
@pytest.mark.parametrize("scheduler", ["serial", None])
def test_a_failing_job_is_reported_with_its_traceback_and_the_others_complete(tmp_path, scheduler, capsys):
    out = sweep.run_sweep(sweep.monte_carlo_pi, [{"n": 100}, {"n": 0}], [0, 1], cache_dir=tmp_path,
                          scheduler=scheduler, progress=False)
    assert len(out.results) == 2 and len(out.failed) == 2
    assert all("config['n'] must be an int >= 1" in tb and "Traceback" in tb for tb in out.failed.values())
    assert "job failed" in capsys.readouterr().out
    assert len(list(tmp_path.glob("*.json"))) == 2            # failures are not cached: a re-run tries them again


def test_a_killed_sweep_resumes_where_it_stopped(tmp_path):
    code = ("from neurips24 import sweep; sweep.run_sweep(sweep.monte_carlo_pi, [{'n': 10, 'sleep_s': 0.4}], "
            f"list(range(20)), cache_dir={str(tmp_path)!r}, scheduler='serial', progress=False)")
    proc = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.time() + 60
    while len(list(tmp_path.glob("*.json"))) < 3 and time.time() < deadline:
        time.sleep(0.1)
    proc.kill()
    proc.wait()
    done = len(list(tmp_path.glob("*.json")))
    assert 3 <= done < 20 and not list(tmp_path.glob("*.tmp*"))
    out = sweep.run_sweep(sweep.monte_carlo_pi, [{"n": 10, "sleep_s": 0.4}], list(range(20)), cache_dir=tmp_path,
                          scheduler="serial", progress=False)
    assert out.cached == done and out.computed == 20 - done


@pytest.mark.parametrize("kwargs, error", [
    (dict(fn=lambda c, s: 0), TypeError), (dict(configs=[]), ValueError), (dict(seeds=[]), ValueError),
    (dict(seeds=[-1]), ValueError), (dict(seeds=[1.5]), ValueError), (dict(configs=[{"x": object()}]), ValueError),
    (dict(n_workers=0), ValueError), (dict(scheduler="localhost"), ValueError)])
def test_bad_input_is_refused(tmp_path, kwargs, error):
    args = dict(fn=sweep.monte_carlo_pi, configs=CONFIGS, seeds=SEEDS)
    args.update(kwargs)
    with pytest.raises(error):
        sweep.run_sweep(args.pop("fn"), args.pop("configs"), args.pop("seeds"), cache_dir=tmp_path,
                        progress=False, **args)
