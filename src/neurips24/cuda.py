"""The kernel pattern: CUDA C sources that live beside their NumPy reference.

- :func:`compile_ptx` compiles a source with NVRTC (``cuda-bindings`` + the ``nvidia-cuda-nvrtc`` wheel) for a
  given architecture, with no GPU needed: the tests compile every source for sm_80 and sm_90.
- :func:`raw_kernel` loads a kernel through CuPy (``cupy.RawKernel``) for use on a GPU.
"""
from __future__ import annotations

from functools import cache
from importlib import resources

ARCHS = ("sm_80", "sm_90")


def read_source(package: str, filename: str) -> str:
    """The text of a ``.cu`` file shipped inside ``package`` (e.g. ``'neurips24.fno'``, ``'mode_mix.cu'``)."""
    return resources.files(package).joinpath(filename).read_text(encoding="utf-8")


def compile_ptx(source: str, arch: str = "sm_80", name: str = "kernel.cu") -> bytes:
    """Compile CUDA C ``source`` to a cubin for ``arch`` with NVRTC; no GPU needed.

    Returns
    -------
    bytes, the compiled cubin.

    Raises
    ------
    ValueError if ``arch`` is not like 'sm_80'; ImportError if ``cuda-bindings`` (the 'test' extra) is
    missing; RuntimeError with NVRTC's log if compilation fails.
    """
    if not (isinstance(arch, str) and arch.startswith("sm_") and arch[3:].isdigit()):
        raise ValueError(f"arch must look like 'sm_80', got {arch!r}")
    from cuda.bindings import nvrtc

    err, prog = nvrtc.nvrtcCreateProgram(source.encode(), name.encode(), 0, [], [])
    _ok(nvrtc, err, "nvrtcCreateProgram")
    try:
        opts = [f"--gpu-architecture={arch}".encode(), b"--std=c++17"]
        (err,) = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            _, size = nvrtc.nvrtcGetProgramLogSize(prog)
            log = b" " * size
            nvrtc.nvrtcGetProgramLog(prog, log)
            raise RuntimeError(f"NVRTC failed to compile {name} for {arch}:\n{log.decode(errors='replace')}")
        err, size = nvrtc.nvrtcGetCUBINSize(prog)
        _ok(nvrtc, err, "nvrtcGetCUBINSize")
        cubin = b" " * size
        (err,) = nvrtc.nvrtcGetCUBIN(prog, cubin)
        _ok(nvrtc, err, "nvrtcGetCUBIN")
        return cubin
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _ok(nvrtc, err, what: str) -> None:
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise RuntimeError(f"{what} failed: {err}")


@cache
def raw_kernel(package: str, filename: str, name: str):
    """A ``cupy.RawKernel`` for kernel ``name`` of ``package``/``filename`` (needs CuPy and a GPU)."""
    import cupy

    return cupy.RawKernel(read_source(package, filename), name, options=("--std=c++17",))
