"""Time each CUDA kernel of the book against its NumPy reference (CPU) and the same step in torch (GPU).

Prints one row per kernel and backend: seconds per call, effective GB/s (bytes the kernel must read and
write, divided by time) and, on a GPU, the fraction of the device's peak memory bandwidth.
Runs the NumPy rows anywhere; the CuPy and torch-GPU rows only where a GPU is present.

    python benchmarks/kernels.py            # fast sizes
    NEURIPS24_SCALE=full python benchmarks/kernels.py
"""
from __future__ import annotations

import time

import numpy as np

from neurips24 import scale
from neurips24.backend import cupy_or_none
from neurips24.fno.layer import mode_mix, mode_mix_reference

SIZES = {"fast": dict(G=8, S=2, D=64, K=16), "full": dict(G=64, S=2, D=128, K=32)}


def timeit(fn, sync=lambda: None, repeat: int = 5) -> float:
    fn()
    sync()
    best = np.inf
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        sync()
        best = min(best, time.perf_counter() - t)
    return best


def peak_bandwidth_gb_s(cp) -> float:
    """Theoretical peak DRAM bandwidth of device 0 (GB/s), from its memory clock and bus width."""
    attrs = cp.cuda.runtime.getDeviceProperties(0)
    return 2.0 * attrs["memoryClockRate"] * 1e3 * attrs["memoryBusWidth"] / 8 / 1e9


def bench_mode_mix(G: int, S: int, D: int, K: int) -> list[tuple[str, float, float]]:
    rng = np.random.default_rng(0)
    a_hat = rng.standard_normal((G, S, D, K)) + 1j * rng.standard_normal((G, S, D, K))
    R = rng.standard_normal((G, K, D, D)) + 1j * rng.standard_normal((G, K, D, D))
    nbytes = 16 * (2 * a_hat.size + R.size)
    rows = [("numpy (CPU)", timeit(lambda: mode_mix_reference(a_hat, R)), nbytes)]
    cp = cupy_or_none()
    if cp is not None:
        a_d, R_d = cp.asarray(a_hat), cp.asarray(R)
        sync = cp.cuda.Device().synchronize
        rows.append(("cupy kernel (GPU)", timeit(lambda: mode_mix(a_d, R_d), sync), nbytes))
        import torch

        if torch.cuda.is_available():
            a_t = torch.as_tensor(a_hat, device="cuda")
            R_t = torch.as_tensor(R, device="cuda")
            rows.append(("torch einsum (GPU)",
                         timeit(lambda: torch.einsum("gkij,gsjk->gsik", R_t, a_t), torch.cuda.synchronize),
                         nbytes))
    return rows


def main() -> None:
    sizes = SIZES[scale()]
    cp = cupy_or_none()
    peak = peak_bandwidth_gb_s(cp) if cp is not None else None
    gpu = f"yes, peak {peak:.0f} GB/s" if peak else "none, CPU rows only"
    print(f"fno.mode_mix  {sizes}  (GPU: {gpu})")
    for name, seconds, nbytes in bench_mode_mix(**sizes):
        gbs = nbytes / seconds / 1e9
        frac = f"{gbs / peak:6.1%} of peak" if peak and "GPU" in name else ""
        print(f"  {name:22s} {seconds * 1e3:9.3f} ms   {gbs:8.2f} GB/s   {frac}")


if __name__ == "__main__":
    main()
