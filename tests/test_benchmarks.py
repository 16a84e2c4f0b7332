"""The kernel benchmark script runs on the CPU path (its NumPy rows) where no GPU is present."""
import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "kernels.py"


def test_benchmark_script_runs_its_numpy_rows(capsys):
    spec = importlib.util.spec_from_file_location("bench_kernels", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main()
    out = capsys.readouterr().out
    for kernel in ("fno.mode_mix", "markov.flow", "cts.step", "melloc", "cherryq"):
        assert kernel in out
    assert out.count("GB/s") >= 5          # one row per kernel at least (NumPy)
