"""The pieces of MeLLoC against independent values: the exact integer map, the stencil, the solve, the fields."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.ndimage import correlate

from neurips24.melloc import backends
from neurips24.melloc.experiment import RECOVERY_OPERATORS, family_sizes, format_table, run_benchmark, stencil_recovery
from neurips24.melloc.fields import make_field, operator_field
from neurips24.melloc.intmap import float_to_int, int_to_float
from neurips24.melloc.stencil import (
    FAMILY,
    SolveError,
    apply_stencil,
    coefficients_from_matrix,
    learn_stencil,
    solve_periodic,
    stencil_matrix,
    symbol,
)


def test_float_to_int_hand_case():
    u = np.array([1.5, -0.25, 3.0, 0.0], np.float32)               # multiples of 2^-2 → k = 2
    q, k, idx, bits = float_to_int(u)
    assert k == 2 and q.tolist() == [6, -1, 12, 0] and idx.size == 0
    assert np.array_equal(int_to_float(q, k, np.float32), u)


def test_float_to_int_exceptions():
    u = np.array([np.nan, -0.0, np.inf, 1.0, 2.0**-1074], np.float64)
    q, k, idx, bits = float_to_int(u)
    assert idx.tolist() == [0, 1, 2, 4] and k == 0 and q[3] == 1
    assert np.array_equal(int_to_float(q, k, np.float64, idx, bits).view(np.uint64), u.view(np.uint64))


def test_float_to_int_denormal_only_block():
    u = np.array([2.0**-149, 3 * 2.0**-149], np.float32)           # float32 denormals alone: exact, k = 149
    q, k, idx, _ = float_to_int(u)
    assert k == 149 and q.tolist() == [1, 3] and idx.size == 0


@pytest.mark.parametrize(("a", "b"), FAMILY)
def test_stencil_matches_scipy_correlate(a, b):
    q = np.random.default_rng(a + 10 * b).integers(-10**6, 10**6, (13, 17))
    K = stencil_matrix(a, b)
    assert np.array_equal(apply_stencil(q, a, b), correlate(q, K, mode="wrap"))
    assert coefficients_from_matrix(K) == (a, b)


def test_non_family_stencil_rejected():
    with pytest.raises(ValueError, match="invertible family"):
        coefficients_from_matrix(np.array([[-1, 2, -1], [2, -4, 2], [-1, 2, -1]]))   # the brief's singular fit


@pytest.mark.parametrize(("a", "b"), FAMILY)
def test_symbol_is_fft_of_stencil(a, b):
    H, W = 12, 10
    kernel = np.zeros((H, W))
    K = stencil_matrix(a, b)
    for di in (-1, 0, 1):
        for dj in (-1, 0, 1):
            kernel[di % H, dj % W] += K[di + 1, dj + 1]
    lam = np.fft.rfft2(kernel).real
    lam[0, 0] = 1.0
    np.testing.assert_allclose(symbol(H, W, a, b), lam, atol=1e-12)
    assert np.sum(np.abs(lam) < 1e-9) == 0                          # invertible except the constant mode


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_solve_recovers_exact_integers(dtype):
    q = float_to_int(make_field("wave", 64, dtype))[0]             # float64: |q| ~ 2^53 needs refinement passes
    for a, b in [(1, 0), (4, 1)]:
        f = apply_stencil(q, a, b)
        assert np.array_equal(solve_periodic(f, a, b, int(q[0, 0])), q)


def test_solve_refuses_inconsistent_input():
    f = np.zeros((16, 16), np.int64)
    f[3, 3] = 1                                                    # sum(f) != 0: no integer solution
    with pytest.raises(SolveError):
        solve_periodic(f, 1, 0, 0)


def test_learned_stencil_on_poisson_is_laplacian():
    t, a, b = learn_stencil(float_to_int(make_field("poisson", 128, np.float32))[0])
    assert (a, b) == (1, 0)
    assert t > 1.0                       # the unconstrained optimum lies outside the family (near-singular side)


def test_family_sizes_prefer_laplacian_on_poisson():
    sizes = family_sizes(make_field("poisson", 96, np.float32))
    assert min(sizes, key=sizes.get) == (1, 0)


@pytest.mark.parametrize("ab", [(1, 1), (1, 2)])
def test_learned_stencil_recovers_other_members_float64(ab):
    """Data from another member of the family must not come back as Δ₅ (the learning is not a no-op)."""
    u = operator_field(stencil_matrix(*ab), 128, np.float64, seed=3)
    assert learn_stencil(float_to_int(u)[0])[1:] == ab


def test_learned_stencil_control_laplacian_float64():
    u = operator_field(stencil_matrix(1, 0), 128, np.float64, seed=3)
    assert learn_stencil(float_to_int(u)[0])[1:] == (1, 0)


def test_operator_field_solves_its_operator():
    c = np.array([[0, 4, 0], [1, -10, 1], [0, 4, 0]])
    u = operator_field(c, 64, np.float64, seed=0).astype(np.float64)
    f = correlate(u - 280.0, c.astype(float), mode="wrap")
    rng = np.random.default_rng(0)          # the sources are smooth bumps: f is smooth and mean-free
    assert abs(f.mean()) < 1e-9 and np.abs(f).max() > 0
    with pytest.raises(ValueError, match="3x3"):
        operator_field(np.ones((2, 2)), 64)
    with pytest.raises(ValueError, match="invertible"):
        operator_field(np.array([[1, 0, 1], [0, -4, 0], [1, 0, 1]]), 64)   # Δ× vanishes at (π, π)
    with pytest.raises(ValueError, match="n must"):
        operator_field(c, 4)
    del rng


def test_learn_stencil_rejects_bad_input():
    with pytest.raises(ValueError, match="integer"):
        learn_stencil(np.zeros((8, 8)))
    with pytest.raises(ValueError, match="sides"):
        learn_stencil(np.zeros((2, 8), np.int64))


def test_stencil_recovery_runs():
    rows = stencil_recovery("fast", dtypes=("float64",))
    assert {r["operator"] for r in rows} == set(RECOVERY_OPERATORS)
    assert all(r["chosen"] == r["true"] for r in rows if r["true"] is not None)


def test_fields_bad_arguments():
    with pytest.raises(ValueError, match="kind"):
        make_field("burgers")
    with pytest.raises(ValueError, match="n must"):
        make_field("poisson", 4)
    with pytest.raises(ValueError, match="n_sources"):
        make_field("poisson", 16, n_sources=0)
    with pytest.raises(TypeError, match="dtype"):
        make_field("poisson", 16, dtype=np.int32)


def test_poisson_field_solves_discrete_poisson():
    u = make_field("poisson", 64, np.float64, n_sources=1).astype(np.float64)
    lap = apply_stencil(u, 1, 0)[1:-1, 1:-1]
    assert lap.max() <= 1e-9 and np.all(u[0] == 280.0)            # −Δ₅ v = g ≥ 0, zero boundary


def test_backends_unknown_rejected():
    with pytest.raises(ValueError, match="backend"):
        backends.candidates("lz4")
    with pytest.raises(ValueError, match="corrupted"):
        backends.decode(b"garbage", "zstd", np.int32, 10)


def test_small_benchmark_and_table():
    res = run_benchmark("fast", kinds=("poisson", "noise"), dtypes=("float32",), n=64)
    assert all(r["exact"] for r in res.rows)
    assert "melloc" in res.codecs() and "zstd-3" in res.codecs()
    table = format_table(res.rows)
    assert "poisson" in table and "ratio" in table
