"""The CUDA round kernel: compile (no GPU), NumPy/torch references on CPU, parity on a GPU (cts.kernels)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.cts import kernels
from neurips24.cts.bandit import top_m_bandit, two_sets
from neurips24.cts.policies import draw_noise, gaussian_scale, make_policy, paper_policies


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_kernel_compiles(arch):
    pytest.importorskip("cuda.bindings.nvrtc")
    from neurips24.cuda import compile_ptx, read_source

    cubin = compile_ptx(read_source("neurips24.cts", "cts_step.cu"), arch, "cts_step.cu")
    assert cubin[:4] == b"\x7fELF"


def test_step_reference_hand_case():
    b = two_sets(2)
    pol = make_policy("cucb")
    N = np.array([[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 0.0, 1.0]])
    S = np.array([[0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 0.0, 0.0]])
    X = np.array([[1.0, 0.0, 1.0, 1.0], [0.0, 1.0, 1.0, 0.0]])
    index, regret = kernels.step_reference(pol, b, N, S, X, 3, (None, None))
    # run 0: equal bonuses, means 0 vs 2 -> A*; run 1: arm 2 unplayed -> A*
    np.testing.assert_array_equal(index, [1, 1])
    np.testing.assert_allclose(regret, [0.0, 0.0])
    np.testing.assert_array_equal(N, [[1, 1, 2, 2], [1, 1, 1, 2]])
    np.testing.assert_array_equal(S, [[0, 0, 2, 2], [1, 1, 1, 0]])


def test_top_m_reference_regret():
    b = top_m_bandit([0.1, 0.9, 0.5], 1)
    N, S = np.ones((1, 3)), np.array([[1.0, 0.0, 0.0]])
    index, regret = kernels.step_reference(make_policy("cucb"), b, N, S, np.zeros((1, 3)), 5, (None, None))
    assert index is None and regret[0] == pytest.approx(0.8)


def test_torch_step_matches_reference_on_cpu():
    b = two_sets(6)
    pol = make_policy("bgcts")
    R = 300
    rng = np.random.default_rng(4)
    N, S = np.zeros((R, b.d)), np.zeros((R, b.d))
    Nt, St = torch.zeros((R, b.d), dtype=torch.float64), torch.zeros((R, b.d), dtype=torch.float64)
    A, gaps = torch.as_tensor(b.actions), torch.as_tensor(b.gaps())
    for t in range(1, 40):
        X = b.draw_rewards(rng, R)
        Z, _ = draw_noise(pol, N, S, rng)
        i_ref, r_ref = kernels.step_reference(pol, b, N, S, X, t, (Z, None))
        i_t, r_t = kernels.step_torch(Nt, St, torch.as_tensor(X), torch.as_tensor(Z), A, gaps,
                                      gaussian_scale(pol, t, b.m))
        np.testing.assert_array_equal(i_t.numpy(), i_ref)
        np.testing.assert_array_equal(r_t.numpy(), r_ref)
    np.testing.assert_array_equal(Nt.numpy(), N)


def test_bench_runs_on_cpu():
    rows = kernels.bench_cts_step(R=200, m=5, n_steps=3)
    assert rows[0][0] == "numpy reference (CPU)" and rows[0][1] > 0 and rows[0][2] > 0
    with pytest.raises(ValueError, match="R must be"):
        kernels.bench_cts_step(R=0)
    with pytest.raises(ValueError, match="policy must be one of"):
        kernels.bench_cts_step(policy="thompson")


def test_step_kernel_rejects_what_it_does_not_run():
    # checked before CuPy is imported, so this runs without a GPU
    with pytest.raises(ValueError, match="the CUDA step runs the kinds"):
        kernels.step_kernel(make_policy("escb_code"), two_sets(3), None, None, None, 1, (None, None))
    with pytest.raises(ValueError, match="explicit action matrix"):
        kernels.step_kernel(make_policy("bgcts"), top_m_bandit([0.1, 0.5, 0.9], 2), None, None, None, 1,
                            (None, None))


def test_gcts_step_is_the_bgcts_step_with_c_equal_sigma():
    # G-CTS through the reference step: the same decisions as BG-CTS's formula with c_t = σ, on shared draws
    b, R = two_sets(5), 200
    rng = np.random.default_rng(9)
    N, S = np.zeros((R, b.d)), np.zeros((R, b.d))
    pol = make_policy("gcts")
    for t in range(1, 30):
        X = b.draw_rewards(rng, R)
        Z, _ = draw_noise(pol, N, S, rng)
        played = N > 0
        theta = np.where(played, S / np.where(played, N, 1) + 0.5 / np.sqrt(np.where(played, N, 1)) * Z, np.inf)
        expected = b.oracle(theta)[1]
        index, _ = kernels.step_reference(pol, b, N, S, X, t, (Z, None))
        np.testing.assert_array_equal(index, expected)


GPU_POLICIES = paper_policies() + [make_policy("gcts"), make_policy("bgcts", lam=1.0)]


@pytest.mark.gpu
@pytest.mark.parametrize("label", [p.label for p in GPU_POLICIES])
def test_kernel_matches_reference_on_shared_draws(label):
    cp = pytest.importorskip("cupy")
    pol = next(p for p in GPU_POLICIES if p.label == label)
    b = two_sets(13)
    R = 3000
    rng = np.random.default_rng(7)
    N, S = np.zeros((R, b.d)), np.zeros((R, b.d))
    Nd, Sd = cp.zeros((R, b.d)), cp.zeros((R, b.d))
    for t in range(1, 80):
        X = b.draw_rewards(rng, R)
        noise = draw_noise(pol, N, S, rng)
        i_ref, r_ref = kernels.step_reference(pol, b, N, S, X, t, noise)
        i_gpu, r_gpu = kernels.step_kernel(pol, b, Nd, Sd, cp.asarray(X), t,
                                           tuple(None if u is None else cp.asarray(u) for u in noise))
        np.testing.assert_array_equal(i_gpu.get(), i_ref)
        np.testing.assert_array_equal(r_gpu.get(), r_ref)
    np.testing.assert_array_equal(Nd.get(), N)
    np.testing.assert_array_equal(Sd.get(), S)


@pytest.mark.gpu
def test_gpu_simulation_matches_cpu_in_distribution():
    pytest.importorskip("cupy")
    from scipy import stats

    from neurips24.cts.experiment import simulate

    b = two_sets(10)
    pols = [make_policy("bcts", "uniform"), make_policy("bgcts")]
    cpu = simulate(b, pols, T=300, R=400, seed=0, device="cpu")
    gpu = simulate(b, pols, T=300, R=400, seed=1, device="gpu")
    for j in range(2):
        assert stats.ks_2samp(cpu.final[j], gpu.final[j]).pvalue > 1e-3


@pytest.mark.gpu
def test_top_m_on_cupy_arrays():
    cp = pytest.importorskip("cupy")
    b = top_m_bandit([0.1, 0.9, 0.5, 0.7], 2)
    mask, index = b.oracle(cp.asarray([[0.1, 0.9, 0.5, 0.7]]))
    assert index is None and mask.get().tolist() == [[0, 1, 0, 1]]
