"""Decode speed of MeLLoC's mechanism blocks (issue 15: >= 100 MB/s at 512² and 1024² on one core).

For each field × dtype × side the field is compressed with ``mode='mechanism'`` (every block by the learned
stencil, no generic fallback) and ``decompress`` is timed: median CPU time (``time.process_time``, so other
processes on a shared machine do not count) over ``--repeat`` calls, one thread. Prints MB/s of decoded
floats and, for comparison, pcodec's own decode of the raw floats and zstd-19's.

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
    print(f"{'field':<11}{'dtype':<9}{'side':>6}{'blocks':>8}{'MeLLoC dec MB/s':>17}{'pcodec':>9}{'zstd-19':>9}")
    for n in args.sides:
        for kind in args.kinds:
            for dtype in (np.float32, np.float64):
                u = make_field(kind, n, dtype, seed=0)
                blob = compress(u, mode="mechanism")
                modes = {b["mode"] for b in inspect(blob)}
                assert np.array_equal(decompress(blob).view(np.uint8), u.view(np.uint8))
                mb = u.nbytes / 1e6
                t = cpu_median(lambda blob=blob: decompress(blob), args.repeat)
                flat = u.ravel()
                pc = backends.encode(flat, "pcodec")
                zs = backends.encode(flat, "zstd", 19)
                t_pc = cpu_median(lambda pc=pc, flat=flat: backends.decode(pc, "pcodec", flat.dtype, flat.size),
                                  args.repeat)
                t_zs = cpu_median(lambda zs=zs, flat=flat: backends.decode(zs, "zstd", flat.dtype, flat.size),
                                  args.repeat)
                print(f"{kind:<11}{np.dtype(dtype).name:<9}{n:>6}{'/'.join(sorted(modes)):>8}"
                      f"{mb / t:>17.1f}{mb / t_pc:>9.0f}{mb / t_zs:>9.0f}")


if __name__ == "__main__":
    main()
