"""Speed of MeLLoC's mechanism blocks (issue 15: decode >= 100 MB/s at 1024² on one core), in one run with
pcodec and zstd-19 on the same floats.

For each field × dtype × side the field is compressed with ``mode='mechanism'`` (every block by the learned
template, no generic fallback) and both directions are timed: median CPU time (``time.process_time``, so other
processes on a shared machine do not count) over ``--repeat`` calls, one thread. Prints MB/s of floats for
MeLLoC, pcodec (standalone, default config, on the raw floats) and zstd-19 (byte-shuffled floats), and MeLLoC's
speed as a ratio to each; the template and decoder (march / fft) of the block and the compression ratios.

    python benchmarks/melloc_decode.py                 # 512 and 1024
    python benchmarks/melloc_decode.py --sides 512 --repeat 9
"""
from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from neurips24.melloc import backends, compress, decompress, inspect  # noqa: E402
from neurips24.melloc.fields import make_field  # noqa: E402


def cpu_median(fn, repeat: int) -> float:
    """Median CPU seconds of ``fn()`` over ``repeat`` calls (after one warm-up call)."""
    fn()
    ts = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        ts.append(time.process_time() - t)
    return float(np.median(ts))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sides", type=int, nargs="+", default=[512, 1024])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--kinds", nargs="+", default=["poisson", "heat", "wave", "turbulence", "signed"])
    args = ap.parse_args()
    print(f"{'field':<11}{'dtype':<9}{'side':>5}  {'template':<14}{'dec':<6}"
          f"{'comp MB/s':>10}{'dec MB/s':>10} | {'pcodec c/d':>12} {'zstd19 c/d':>12} | "
          f"{'comp÷pco':>9}{'dec÷pco':>8}{'comp÷z19':>9}{'dec÷z19':>8} | {'ratio mel/pco/z19':>18}")
    for n in args.sides:
        for kind in args.kinds:
            for dtype in (np.float32, np.float64):
                u = make_field(kind, n, dtype, seed=0)
                flat = u.ravel()
                blob = compress(u, mode="mechanism")
                info = inspect(blob)
                assert np.array_equal(decompress(blob).view(np.uint8), u.view(np.uint8))
                mb = u.nbytes / 1e6
                t_c = cpu_median(lambda u=u: compress(u, mode="mechanism"), max(1, args.repeat // 3))
                t_d = cpu_median(lambda blob=blob: decompress(blob), args.repeat)
                pc = backends.encode(flat, "pcodec")
                zs = backends.encode(flat, "zstd", 19)
                t_pc_c = cpu_median(lambda flat=flat: backends.encode(flat, "pcodec"), max(1, args.repeat // 3))
                t_zs_c = cpu_median(lambda flat=flat: backends.encode(flat, "zstd", 19), max(1, args.repeat // 3))
                t_pc = cpu_median(lambda pc=pc, flat=flat: backends.decode(pc, "pcodec", flat.dtype, flat.size),
                                  args.repeat)
                t_zs = cpu_median(lambda zs=zs, flat=flat: backends.decode(zs, "zstd", flat.dtype, flat.size),
                                  args.repeat)
                b = info[0]
                tmpl = b.get("template", "generic")[:13]
                print(f"{kind:<11}{np.dtype(dtype).name:<9}{n:>5}  {tmpl:<14}{b.get('decoder', '-'):<6}"
                      f"{mb / t_c:>10.1f}{mb / t_d:>10.1f} | {mb / t_pc_c:>5.0f}/{mb / t_pc:<6.0f} "
                      f"{mb / t_zs_c:>5.1f}/{mb / t_zs:<6.0f} | {t_pc_c / t_c:>9.3f}{t_pc / t_d:>8.3f}"
                      f"{t_zs_c / t_c:>9.3f}{t_zs / t_d:>8.3f} | "
                      f"{u.nbytes / len(blob):>6.2f}/{u.nbytes / len(pc):.2f}/{u.nbytes / len(zs):.2f}", flush=True)


if __name__ == "__main__":
    main()
