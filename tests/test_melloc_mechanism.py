"""The pieces of MeLLoC against independent values: the exact integer map, the stencil, the solve, the fields."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.ndimage import correlate

from neurips24.melloc import backends
from neurips24.melloc.experiment import (
    CONFIG,
    RECOVERY_OPERATORS,
    family_sizes,
    format_table,
    run_benchmark,
    stencil_recovery,
)
from neurips24.melloc.fields import make_field, operator_field
from neurips24.melloc.intmap import float_to_int, int_to_float
from neurips24.melloc.stencil import (
    LAPLACE5,
    LAPLACE_X,
    SolveError,
    apply_stencil,
    can_march,
    coefficients,
    describe,
    grid_condition,
    in_family,
    learn_stencil,
    solve_march,
    solve_periodic,
    stencil_matrix,
    symbol,
    template,
)

MEMBERS = [template(1, 1), template(4, 4, 1), template(1, 4), template(1, 1, p=1), template(2, 2, p=1, r=-1),
           template(3, 3, e=1), template(2, 1, b=1), template(0.5, 0.5, p=0.5, r=0.5)]


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
    assert np.array_equal(int_to_float(q, k, np.float32).view(np.uint32), u.view(np.uint32))   # fast path


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_int_to_float_fast_path_matches_ldexp(dtype):
    rng = np.random.default_rng(0)
    u = (rng.standard_normal(5000) * 10.0 ** rng.integers(-30, 30, 5000)).astype(dtype)
    q, k, idx, bits = float_to_int(u)
    ref = np.ldexp(q.astype(np.float64), -k).astype(dtype)         # the float64 reference path
    ref.view(f"u{np.dtype(dtype).itemsize}")[idx] = bits
    got = int_to_float(q, k, dtype, idx, bits)
    assert np.array_equal(got.view(np.uint8), ref.view(np.uint8))
    assert np.array_equal(got.view(np.uint8), u.view(np.uint8))


def test_template_hand_cases():
    assert np.array_equal(template(1, 1), [[0, 1, 0], [1, -4, 1], [0, 1, 0]])
    assert np.array_equal(template(1, 4), [[0, 4, 0], [1, -10, 1], [0, 4, 0]])          # u_xx + 4 u_yy
    assert np.array_equal(template(1, 1, p=1), [[0, 1, 0], [0, -4, 2], [0, 1, 0]])      # Δ5 + 2∂x
    assert np.array_equal(template(3, 3, e=1), [[1, 3, -1], [3, -12, 3], [-1, 3, 1]])   # + 4∂xy
    assert np.array_equal(stencil_matrix(1, 1), LAPLACE5 + LAPLACE_X)
    assert describe(LAPLACE5) == "Δ5" and describe(template(1, 4)) == "Dxx + 4 Dyy"
    with pytest.raises(ValueError, match="integers"):
        template(0.5, 0)


@pytest.mark.parametrize("m", MEMBERS, ids=lambda m: describe(m))
def test_family_member_round_trips_and_matches_scipy(m):
    assert np.array_equal(template(*coefficients(m)), m)
    q = np.random.default_rng(int(np.abs(m).sum())).integers(-10**6, 10**6, (13, 17))
    assert np.array_equal(apply_stencil(q, m), correlate(q, m, mode="wrap"))


def test_coefficients_rejects_outside_family():
    with pytest.raises(ValueError, match="family"):
        coefficients(np.array([[1, 0, 0], [0, -1, 0], [0, 0, 0]]))                        # corners not symmetric
    with pytest.raises(ValueError, match="family"):
        coefficients(np.array([[0, 1, 0], [1, -3, 1], [0, 1, 0]]))                        # nonzero sum
    with pytest.raises(ValueError, match="integer"):
        coefficients(np.zeros((3, 3)))


@pytest.mark.parametrize("m", MEMBERS, ids=lambda m: describe(m))
def test_symbol_is_the_multiplier_of_the_fft(m):
    H, W = 12, 10
    q = np.random.default_rng(1).standard_normal((H, W))
    lam = np.fft.rfft2(apply_stencil(q, m)) / np.fft.rfft2(q)
    np.testing.assert_allclose(symbol(H, W, m), lam, atol=1e-9)


def test_grid_condition_flags_singular_templates():
    assert grid_condition(LAPLACE5, 64, 64) == pytest.approx(1.0)
    assert grid_condition(2 * LAPLACE5 - LAPLACE_X, 64, 64) < 1e-9       # the t = 2 trap: zero on the axes
    assert grid_condition(LAPLACE_X, 64, 64) < 1e-9                       # Δx alone: zero at (π, π)
    assert grid_condition(LAPLACE_X, 63, 63) > 0                          # … which an odd grid does not hold
    assert not in_family(template(1, 1, e=1), 64, 64)                     # mixed term too strong: zero at θ = −φ = π/2
    assert grid_condition(template(2, 2, e=1), 64, 64) < 0.02             # 4e^2 = ac: fourth order along θ = −φ
    assert all(in_family(m, 64, 64) for m in MEMBERS)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m", [LAPLACE5, template(4, 4, 1), template(1, 1, p=1), template(3, 3, e=1)],
                         ids=["L5", "4L5+Lx", "adv", "mixed"])
def test_fft_solve_recovers_exact_integers(dtype, m):
    q = float_to_int(make_field("wave", 64, dtype))[0]             # float64: |q| ~ 2^53 needs refinement passes
    f = apply_stencil(q, m)
    assert np.array_equal(solve_periodic(f, m, int(q[0, 0])), q)


@pytest.mark.parametrize("m", [LAPLACE5, template(1, 4), template(1, 1, p=1), template(0.5, 0.5, p=0.5, r=0.5),
                               template(2, 3, p=-1)], ids=["L5", "aniso", "adv", "onesided", "lead5"])
def test_march_recovers_exact_integers_int64_and_int32(m):
    assert can_march(m)
    q = float_to_int(make_field("heat", 48, np.float64))[0]
    for qq in (q, (q >> 30).astype(np.int32)):
        f = apply_stencil(qq, m)
        assert np.array_equal(solve_march(f[1:-1], qq[:2], m), qq)


def test_march_refuses_diagonal_templates():
    assert not can_march(stencil_matrix(1, 1))
    with pytest.raises(ValueError, match="cannot march"):
        solve_march(np.zeros((4, 6), np.int64), np.zeros((2, 6), np.int64), stencil_matrix(1, 1))


def test_solve_refuses_inconsistent_input():
    f = np.zeros((16, 16), np.int64)
    f[3, 3] = 1                                                    # sum(f) != 0: no integer solution
    with pytest.raises(SolveError):
        solve_periodic(f, LAPLACE5, 0)


def test_learned_stencil_on_poisson_is_laplacian():
    assert np.array_equal(learn_stencil(float_to_int(make_field("poisson", 128, np.float32))[0]), LAPLACE5)


FAST = CONFIG["fast"]        # the chapter's recovery size and seeds


@pytest.mark.parametrize("name", ["u_xx+4u_yy", "Δ5+2∂x"])
def test_learning_recovers_other_operators_float64(name):
    """Data from an anisotropic and an advection–diffusion operator come back as that operator, not Δ5."""
    m = RECOVERY_OPERATORS[name]
    for seed in range(FAST["n_recovery"]):
        u = operator_field(m, FAST["recovery_n"], np.float64, seed=seed)
        assert np.array_equal(learn_stencil(float_to_int(u)[0]), m)


def test_learning_recovers_advection_float32():
    m = RECOVERY_OPERATORS["Δ5+2∂x"]
    for seed in range(FAST["n_recovery"]):
        u = operator_field(m, FAST["recovery_n"], np.float32, seed=seed)
        assert np.array_equal(learn_stencil(float_to_int(u)[0]), m)


@pytest.mark.parametrize("name", ["Δ5+Δx", "3Δ5+4∂xy"])
def test_learning_recovers_diagonal_operators_float64(name):
    m = RECOVERY_OPERATORS[name]
    u = operator_field(m, FAST["recovery_n"], np.float64, seed=0)
    assert np.array_equal(learn_stencil(float_to_int(u)[0]), m)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_learning_control_laplacian_data_returns_laplacian(dtype):
    for seed in range(FAST["n_recovery"]):
        u = operator_field(LAPLACE5, FAST["recovery_n"], dtype, seed=seed)
        assert np.array_equal(learn_stencil(float_to_int(u)[0]), LAPLACE5)


def test_learning_path_is_monotone_in_coded_size():
    m, path = learn_stencil(float_to_int(operator_field(template(1, 4), 128, np.float64, 0))[0], return_path=True)
    sizes = [s for _, s in path]
    assert np.array_equal(path[-1][0], m) and all(b <= a for a, b in zip(sizes, sizes[1:], strict=False))


def test_family_sizes_generating_operator_codes_shortest_float64():
    """The coded-size criterion itself: on float64 data the generating operator is the shortest of the set."""
    for name in ("u_xx+4u_yy", "2Δ5+2∂x−2∂y", "2u_xx+u_yy+Δx"):
        sizes = family_sizes(operator_field(RECOVERY_OPERATORS[name], FAST["recovery_n"], np.float64, seed=0))
        assert min(sizes, key=sizes.get) == name


def test_operator_field_solves_its_operator():
    c = np.array([[0, 4, 0], [1, -10, 1], [0, 4, 0]])
    u = operator_field(c, 64, np.float64, seed=0).astype(np.float64)
    f = correlate(u - 280.0, c.astype(float), mode="wrap")
    assert abs(f.mean()) < 1e-9 and np.abs(f).max() > 0
    with pytest.raises(ValueError, match="3x3"):
        operator_field(np.ones((2, 2)), 64)
    with pytest.raises(ValueError, match="invertible"):
        operator_field(np.array([[1, 0, 1], [0, -4, 0], [1, 0, 1]]), 64)   # Δ× vanishes at (π, π)
    with pytest.raises(ValueError, match="n must"):
        operator_field(c, 4)


def test_learn_stencil_rejects_bad_input():
    with pytest.raises(ValueError, match="integer"):
        learn_stencil(np.zeros((8, 8)))
    with pytest.raises(ValueError, match="sides"):
        learn_stencil(np.zeros((2, 8), np.int64))
    with pytest.raises(ValueError, match="start"):
        learn_stencil(np.zeros((8, 8), np.int64), start=LAPLACE_X)


def test_stencil_recovery_runs():
    rows = stencil_recovery("fast", dtypes=("float64",), operators=("Δ5", "u_xx+4u_yy"))
    assert {r["operator"] for r in rows} == {"Δ5", "u_xx+4u_yy"}
    assert all(r["hit"] for r in rows)


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
    lap = apply_stencil(u, LAPLACE5)[1:-1, 1:-1]
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
