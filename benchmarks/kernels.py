"""Time every CUDA kernel of the book against its NumPy reference (CPU) and torch on the GPU.

Each chapter's subpackage has a ``bench_*`` function returning rows (name, seconds, bytes); this script runs
them at the sizes of the run scale and prints seconds, effective GB/s (bytes the step must read and write,
over time) and, on a GPU, the fraction of the device's peak memory bandwidth. Without a GPU only the NumPy
rows run.

    python benchmarks/kernels.py                         # fast sizes, any machine
    NEURIPS24_SCALE=full python benchmarks/kernels.py    # the issue's sizes, on a GPU
"""
from __future__ import annotations

from neurips24 import scale
from neurips24.backend import cupy_or_none
from neurips24.cherryq.kernels import bench_cherry_quant
from neurips24.complexity.kernels import bench_ridge_r2
from neurips24.concepts.kernels import bench_snmf_vstep
from neurips24.cts.kernels import bench_cts_step
from neurips24.defer.kernels import bench_defer_fused
from neurips24.dlq.kernels import bench_dlq_reduce
from neurips24.edl.kernels import bench_edl_fused
from neurips24.fno.layer import bench_mode_mix
from neurips24.iteration_heads.kernels import bench_attention
from neurips24.markov.flow import bench_flow
from neurips24.melloc.kernels import bench_melloc_kernels
from neurips24.mts.kernels import bench_mts_step
from neurips24.ttd.kernels import bench_rd_fuse

# (kernel, bench call per scale, how to read a row's throughput)
BENCHES = {
    "fast": [
        ("fno.mode_mix", lambda: bench_mode_mix(G=8, D=64, K=16), None),
        ("markov.flow", lambda: bench_flow([(64, 200)]), "inits x steps / s"),
        ("cts.step", lambda: bench_cts_step(R=10_000, m=65, n_steps=5), "rounds / s"),
        ("melloc.residual + solve", lambda: bench_melloc_kernels(sizes=(512,)), None),
        ("cherryq.quantize", lambda: bench_cherry_quant(sizes=[(1536, 576)], repeats=3), None),
        ("edl.fused loss + decomposition", lambda: bench_edl_fused(n=20_000, C=10), None),
        ("defer.fused surrogate + gradient", lambda: bench_defer_fused(N=20_000, n=10), None),
        ("dlq.mc_reduce", lambda: bench_dlq_reduce(n=2 ** 14, K=6, d=32), None),
        ("mts.fractional step", lambda: bench_mts_step(B=10_000, n=16, n_steps=5), None),
        ("ttd.rd_fuse weights + feature fusion", lambda: bench_rd_fuse(P=160 * 160, C=8), None),
        ("complexity.ridge_r2 batched ridge + R²", lambda: bench_ridge_r2(n=256, p=320, k=64, L=16), None),
        ("iteration_heads.causal attention + maps", lambda: bench_attention(G=256, T=11, dh=32), None),
        ("concepts.snmf_vstep Semi-NMF activations", lambda: bench_snmf_vstep(M=512, D=576, K=20, n_iter=100), None),
    ],
    "full": [
        ("fno.mode_mix", lambda: bench_mode_mix(G=64, D=128, K=32), None),
        ("markov.flow", lambda: bench_flow([(512, 1000)]), "inits x steps / s"),
        ("cts.step", lambda: bench_cts_step(R=100_000, m=65, n_steps=20), "rounds / s"),
        ("melloc.residual + solve", lambda: bench_melloc_kernels(sizes=(4096,)), None),
        ("cherryq.quantize", lambda: bench_cherry_quant(sizes=[(1536, 576), (576, 1536), (4096, 4096)]), None),
        ("edl.fused loss + decomposition", lambda: bench_edl_fused(n=1_000_000, C=10), None),
        ("defer.fused surrogate + gradient", lambda: bench_defer_fused(N=1_000_000, n=10), None),
        ("dlq.mc_reduce", lambda: bench_dlq_reduce(n=2 ** 16, K=12, d=64), None),
        ("mts.fractional step", lambda: bench_mts_step(B=200_000, n=32, n_steps=5), None),
        ("ttd.rd_fuse weights + feature fusion", lambda: bench_rd_fuse(P=512 * 512, C=32), None),
        ("complexity.ridge_r2 batched ridge + R²", lambda: bench_ridge_r2(n=2048, p=320, k=512, L=16), None),
        ("iteration_heads.causal attention + maps", lambda: bench_attention(G=4096, T=35, dh=128), None),
        ("concepts.snmf_vstep Semi-NMF activations", lambda: bench_snmf_vstep(M=20_000, D=4096, K=20), None),
    ],
}


def peak_bandwidth_gb_s(cp) -> float:
    """Theoretical peak DRAM bandwidth of device 0 (GB/s), from its memory clock and bus width."""
    props = cp.cuda.runtime.getDeviceProperties(0)
    return 2.0 * props["memoryClockRate"] * 1e3 * props["memoryBusWidth"] / 8 / 1e9


def throughput(kind: str | None, seconds: float, nbytes: float) -> str:
    if kind == "inits x steps / s":       # bench_flow: 48 bytes per initialisation and step
        return f"{nbytes / 48 / seconds:10.3g} {kind}"
    if kind == "rounds / s":              # bench_cts_step: seconds per round
        return f"{1 / seconds:10.3g} {kind}"
    return ""


def main() -> None:
    cp = cupy_or_none()
    peak = peak_bandwidth_gb_s(cp) if cp is not None else None
    print(f"scale: {scale()}; GPU: {f'yes, peak {peak:.0f} GB/s' if peak else 'none (CPU rows only)'}")
    for kernel, bench, kind in BENCHES[scale()]:
        print(kernel)
        for name, seconds, nbytes in bench():
            gbs = nbytes / seconds / 1e9
            frac = f"{gbs / peak:6.1%} of peak" if peak and "GPU" in name else ""
            print(f"  {name:58s} {seconds * 1e3:10.3f} ms {gbs:8.2f} GB/s {frac:>14s} "
                  f"{throughput(kind, seconds, nbytes)}")


if __name__ == "__main__":
    main()
