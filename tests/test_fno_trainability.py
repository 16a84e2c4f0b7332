"""The trainability grid: advection data (exact shift), the trainable depth, the runs and the shipped record."""
import numpy as np
import pytest

from neurips24.fno import trainability
from neurips24.fno.data import advection_dataset
from neurips24.fno.train import train_fno_ensemble
from neurips24.fno.trainability import GRID, TrainabilityResult, load_record, save_record, trainable_depth


def test_advection_is_a_whole_sample_roll_when_beta_t_is_on_the_grid():
    u0, uT = advection_dataset(5, n_grid=64, beta=0.25, t_final=1.0, seed=3)   # shift by 16 grid points
    np.testing.assert_allclose(uT, np.roll(u0, 16, axis=-1), atol=1e-12)


@pytest.mark.parametrize(("beta", "t_final"), [(0.4, 2.0), (-0.7, 0.3)])
def test_advection_is_the_exact_fourier_phase_shift(beta, t_final):
    N = 32
    u0, uT = advection_dataset(4, n_grid=N, beta=beta, t_final=t_final, k_max=5, seed=1)
    k = np.fft.rfftfreq(N, d=1.0 / N)
    expected = np.fft.irfft(np.fft.rfft(u0) * np.exp(-2j * np.pi * k * beta * t_final), n=N)
    np.testing.assert_allclose(uT, expected, atol=1e-12)


def test_advection_normalisation_band_and_reproducibility():
    u0, uT = advection_dataset(200, n_grid=64, k_max=4, seed=0)
    np.testing.assert_allclose(np.mean(u0**2, axis=-1), 1.0)
    np.testing.assert_allclose(np.mean(uT**2, axis=-1), 1.0)             # a shift keeps the energy
    spec = np.abs(np.fft.rfft(u0)) ** 2
    assert spec[:, 5:].max() < 1e-20 and spec[:, 0].max() < 1e-20       # modes 1..k_max only
    np.testing.assert_array_equal(advection_dataset(3, 16, seed=7)[0], advection_dataset(3, 16, seed=7)[0])
    assert not np.array_equal(advection_dataset(3, 16, seed=7)[0], advection_dataset(3, 16, seed=8)[0])


@pytest.mark.parametrize(("kw", "exc", "name"), [
    (dict(seed=-1), ValueError, "seed"), (dict(seed=1.0), TypeError, "seed"),
    (dict(k_max=32), ValueError, "k_max"), (dict(k_max=0), ValueError, "k_max"),
    (dict(beta=float("nan")), ValueError, "beta"), (dict(t_final=0.0), ValueError, "t_final"),
    (dict(n_waves=0), ValueError, "n_waves"), (dict(n_grid=63), ValueError, "n_grid"),
    (dict(n_samples=2.0), TypeError, "n_samples"),
])
def test_advection_bad_inputs(kw, exc, name):
    args = dict(n_samples=2, n_grid=64) | kw
    with pytest.raises(exc, match=name):
        advection_dataset(**args)


def test_trainable_depth_hand_worked():
    depths = [4, 8, 16]
    loss = np.array([
        [[0.05, 0.05], [0.05, 0.2], [0.3, 0.3]],        # 8 trains on half the seeds -> L* = 8
        [[0.05, 0.05], [0.3, 0.3], [0.05, 0.05]],       # largest trained depth, not the first failure -> 16
        [[np.inf, 0.5], [np.nan, np.inf], [1.0, 1.0]],  # never -> 0
    ])
    np.testing.assert_array_equal(trainable_depth(loss, depths, tol=0.1), [8, 16, 0])
    np.testing.assert_array_equal(trainable_depth(loss, depths, tol=0.1, quorum=1.0), [4, 16, 0])
    np.testing.assert_array_equal(trainable_depth(loss, depths, tol=0.04), [0, 0, 0])


@pytest.mark.parametrize(("args", "name"), [
    ((np.ones((2, 3)), [4, 8, 16]), "test_loss"),
    ((np.ones((2, 3, 1)), [4, 8]), "depths"),
    ((np.ones((2, 3, 1)), [4.0, 8.0, 16.0]), "depths"),
    ((np.ones((2, 3, 1)), [0, 8, 16]), "depths"),
])
def test_trainable_depth_bad_shapes(args, name):
    with pytest.raises(ValueError, match=name):
        trainable_depth(*args)


@pytest.mark.parametrize(("kw", "name"), [(dict(tol=0.0), "tol"), (dict(tol=np.nan), "tol"),
                                          (dict(quorum=0.0), "quorum"), (dict(quorum=1.5), "quorum")])
def test_trainable_depth_bad_thresholds(kw, name):
    with pytest.raises(ValueError, match=name):
        trainable_depth(np.ones((1, 1, 1)), [4], **kw)


def test_run_trainability_small_matches_the_ensemble_runs(monkeypatch):
    cfg = dict(GRID["fast"], sigma2=[1.0, 3.0], depths=[2, 3], seeds=[0, 5], steps=4, n_train=16, n_test=8, width=4,
               n_modes=3, n_grid=16)
    monkeypatch.setitem(GRID, "fast", cfg)
    seen = []
    res = trainability.run_trainability("fast", log_every=2, progress=lambda L, s, t: seen.append((L, t.shape)))
    assert res.test_loss.shape == (2, 2, 2) and res.train_loss.shape == (2, 2, 2, 2)
    assert seen == [(2, (2, 2)), (3, (2, 2))]
    u0, uT = advection_dataset(24, 16, beta=cfg["beta"], t_final=cfg["t_final"], seed=cfg["data_seed"])
    one = train_fno_ensemble(u0[:16], uT[:16], u0[16:], uT[16:], sigma2=[3.0], seeds=[5], depth=3, width=4,
                             n_modes=3, sigma_b2=cfg["sigma_b2"], steps=4, batch=cfg["batch"], lr=cfg["lr"])
    assert res.subset([3.0], [3], [5])[0, 0, 0] == pytest.approx(one["test_loss"][0], rel=1e-5)
    np.testing.assert_allclose(res.train_loss[1, 1, 1], one["train_loss"][0, ::2], rtol=1e-5)
    with pytest.raises(KeyError, match="sigma2"):
        res.subset([2.0], [3], [5])


TINY = dict(GRID["fast"], sigma2=[1.0, 3.0], depths=[2, 3], seeds=[0, 5], steps=4, n_train=16, n_test=8, width=4,
            n_modes=3, n_grid=16)


@pytest.mark.enable_socket   # the LocalCluster's scheduler and workers talk over 127.0.0.1
@pytest.mark.parametrize("scheduler", ["serial", None])
def test_the_sweep_of_depths_gives_the_in_process_grid_exactly(monkeypatch, tmp_path, scheduler):
    from neurips24 import sweep

    monkeypatch.setitem(GRID, "fast", TINY)
    direct = trainability.run_trainability("fast", log_every=2)
    configs = trainability.depth_configs(TINY, log_every=2)
    assert [c["depth"] for c in configs] == [2, 3] and all("depths" not in c for c in configs)
    res = sweep.run_sweep(trainability.train_depth, configs, [TINY["data_seed"]], cache_dir=tmp_path,
                          scheduler=scheduler, n_workers=2, progress=False)
    assert not res.failed and res.computed == 2
    swept = trainability.assemble(TINY, [res.value(c, TINY["data_seed"]) for c in configs], log_every=2)
    assert swept.test_loss.dtype == direct.test_loss.dtype and swept.train_loss.dtype == direct.train_loss.dtype
    np.testing.assert_array_equal(swept.test_loss, direct.test_loss)      # bit-identical, not just close
    np.testing.assert_array_equal(swept.train_loss, direct.train_loss)
    assert swept.config == direct.config
    a, b = save_record(direct, tmp_path / "a.json.gz"), save_record(swept, tmp_path / "b.json.gz")
    assert load_record(a)[0].test_loss.tolist() == load_record(b)[0].test_loss.tolist()


def test_assemble_refuses_depths_out_of_order():
    job = {"depth": 3, "test_loss": [[0.1]], "train_loss": [[[0.1]]], "dtypes": ["float32", "float64"]}
    with pytest.raises(ValueError, match="depths"):
        trainability.assemble(dict(TINY, depths=[2]), [job])


def test_train_depth_refuses_a_bad_depth():
    with pytest.raises(ValueError, match="depth"):
        trainability.train_depth(dict(trainability.depth_configs(TINY)[0], depth=0), 0)


def test_save_and_load_round_trip_keeps_divergence(tmp_path):
    res = TrainabilityResult(np.array([1.0, 8.0]), np.array([4, 8]), np.array([0]),
                             np.array([[[0.05], [0.2]], [[np.inf], [np.inf]]]), np.ones((2, 2, 1, 3)), {"steps": 3})
    res.train_loss[1, :, :, 1:] = np.inf
    path = save_record(res, tmp_path / "rec.json.gz", command="test")
    back, prov = load_record(path)
    assert prov == {"command": "test"} and back.config == {"steps": 3}
    np.testing.assert_array_equal(back.test_loss, res.test_loss)
    np.testing.assert_array_equal(back.train_loss, res.train_loss)
    np.testing.assert_array_equal(back.trainable_depth(), [4, 0])


def test_live_subset_is_part_of_the_full_grid():
    fast, full = GRID["fast"], GRID["full"]
    assert {k: v for k, v in fast.items() if k not in ("sigma2", "depths", "seeds")} == \
           {k: v for k, v in full.items() if k not in ("sigma2", "depths", "seeds")}
    for key in ("sigma2", "depths", "seeds"):
        assert set(fast[key]) <= set(full[key])


def test_shipped_record_matches_the_grid_and_one_rerun():
    grid, prov = load_record()
    cfg = GRID["full"]
    assert grid.test_loss.shape == (len(cfg["sigma2"]), len(cfg["depths"]), len(cfg["seeds"]))
    assert grid.train_loss.shape[:3] == grid.test_loss.shape
    assert list(grid.sigma2) == cfg["sigma2"] and list(grid.depths) == cfg["depths"]
    assert {k: v for k, v in grid.config.items() if k != "log_every"} == cfg
    assert "scripts/fno_trainability_grid.py" in prov["command"] and prov["wall_s"] > 0
    # re-train one cheap run of the grid (σ² = 2, L = 4, seed 1) and compare with the record
    n = cfg["n_train"]
    u0, uT = advection_dataset(n + cfg["n_test"], cfg["n_grid"], beta=cfg["beta"], t_final=cfg["t_final"],
                               seed=cfg["data_seed"])
    out = train_fno_ensemble(u0[:n], uT[:n], u0[n:], uT[n:], sigma2=[2.0], seeds=[1], depth=4, width=cfg["width"],
                             n_modes=cfg["n_modes"], sigma_b2=cfg["sigma_b2"], variant=cfg["variant"],
                             steps=cfg["steps"], batch=cfg["batch"], lr=cfg["lr"])
    assert out["test_loss"][0] == pytest.approx(grid.subset([2.0], [4], [1])[0, 0, 0], rel=0.05)


def _live_from_grid(grid, factor=1.0, seeds=(0, 1, 2)):
    rows = np.ix_([1, 3, 5], [2], list(seeds))          # σ² = 1, 2, 3 at L = 16: the fast live subset
    return TrainabilityResult(grid.sigma2[[1, 3, 5]], grid.depths[[2]], grid.seeds[list(seeds)],
                              factor * grid.test_loss[rows], grid.train_loss[rows], grid.config)


def test_live_check_rule_holds_for_the_tables_own_runs_and_not_for_scaled_ones():
    from neurips24 import claims
    from neurips24.fno import reproduction

    grid, _ = load_record()
    same = reproduction.live_check(grid, _live_from_grid(grid))
    assert same["test"](same["measured"]) and same["measured"]["max |log(live / the same run in the table)|"] == 0
    assert not same["control"]["measured"]["cells inside"] == same["control"]["measured"]["cells"]
    assert claims.outcome("fno.trainable_live", **same) == "pass"
    scaled = reproduction.live_check(grid, _live_from_grid(grid, factor=1.3))     # 30 % higher losses
    assert not scaled["test"](scaled["measured"])
    assert claims.outcome("fno.trainable_live", **scaled) == "fail"
    assert set(scaled["per_seed"]) == {0, 1, 2}


def test_live_check_refuses_a_single_seed():
    from neurips24.fno import reproduction

    grid, _ = load_record()
    with pytest.raises(ValueError, match="live must hold at least 2 seeds"):
        reproduction.live_check(grid, _live_from_grid(grid, seeds=(0,)))
