"""The abrupt-learning search as sweep jobs: one configuration per job, the same numbers as a direct training."""
import pytest

from neurips24 import sweep
from neurips24.abrupt_learning.data import entry_variance
from neurips24.abrupt_learning.train import Config, first_drop, search_run, train

TINY = dict(m=3, n=3, r=1, p_mask=0.3, d=8, layers=1, heads=1, batch=8, lr=1e-3, steps=12, n_eval=16, log_every=4)


def _numbers(log):
    return [(r["step"], r["masked"], r["observed"]) for r in log]   # 'seconds' is wall time: not compared


@pytest.mark.enable_socket   # the LocalCluster's scheduler and workers talk over 127.0.0.1
@pytest.mark.parametrize("scheduler", ["serial", None])
def test_a_sweep_of_configurations_gives_the_direct_trainings(tmp_path, scheduler):
    configs = [dict(TINY, name="a"), dict(TINY, name="b", lr=3e-3)]
    res = sweep.run_sweep(search_run, configs, [2], cache_dir=tmp_path, scheduler=scheduler, n_workers=2,
                          progress=False)
    assert not res.failed and res.computed == 2
    for config in configs:
        kw = {k: v for k, v in config.items() if k != "name"}
        _, log, _ = train(Config(**kw, seed=2), time_limit_s=1200, stop_when_masked_below=0.25)
        out = res.value(config, 2)
        assert _numbers(out["log"]) == _numbers(log)
        s = out["summary"]
        var = entry_variance(1)
        assert s["name"] == config["name"] and s["config"]["seed"] == 2 and s["config"]["lr"] == config["lr"]
        assert s["drop_step"] == first_drop(log, var) and s["last_step"] == log[-1]["step"]
        assert s["min_masked"] == min(r["masked"] for r in log) and s["var"] == var


def test_search_run_refuses_a_seed_in_the_config_and_unknown_fields():
    with pytest.raises(ValueError, match="seed"):
        search_run(dict(TINY, seed=1), 0)
    with pytest.raises(TypeError):
        search_run(dict(TINY, depth=3), 0)


def test_first_drop_is_the_first_logged_step_below_the_bar():
    log = [dict(step=0, masked=0.1), dict(step=4, masked=0.9), dict(step=8, masked=0.7), dict(step=12, masked=0.5)]
    assert first_drop(log, 1.0) == 8 and first_drop(log[:2], 1.0) is None
