"""The kernel pattern: every CUDA source of the package compiles with NVRTC for sm_80 and sm_90, no GPU needed."""
from __future__ import annotations

from pathlib import Path

import pytest

import neurips24
from neurips24.cuda import ARCHS, compile_ptx, read_source

pytest.importorskip("cuda.bindings.nvrtc", reason="cuda-bindings (the 'test' extra) is not installed")

PACKAGE_DIR = Path(neurips24.__file__).parent
CU_FILES = sorted(PACKAGE_DIR.rglob("*.cu"))


def test_there_are_cuda_sources():
    assert any(p.name == "mode_mix.cu" for p in CU_FILES)


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("path", CU_FILES, ids=[str(p.relative_to(PACKAGE_DIR)) for p in CU_FILES])
def test_every_cu_file_compiles(path, arch):
    cubin = compile_ptx(path.read_text(encoding="utf-8"), arch, path.name)
    assert isinstance(cubin, bytes) and len(cubin) > 0
    assert cubin[:4] == b"\x7fELF"           # a cubin is an ELF image


def test_archs_constant():
    assert ARCHS == ("sm_80", "sm_90")


def test_read_source_matches_file():
    assert read_source("neurips24.fno", "mode_mix.cu") == (PACKAGE_DIR / "fno" / "mode_mix.cu").read_text(
        encoding="utf-8")


def test_syntax_error_raises_with_log():
    bad = 'extern "C" __global__ void broken(double* x) { x[0] = 1.0 }\n'   # missing ';'
    with pytest.raises(RuntimeError, match="broken.cu") as info:
        compile_ptx(bad, "sm_80", "broken.cu")
    msg = str(info.value)
    assert "sm_80" in msg and "error" in msg


@pytest.mark.parametrize("arch", ["foo", "sm_", "sm_8x", "compute_80", 80])
def test_bad_arch_raises_value_error(arch):
    with pytest.raises(ValueError, match="arch"):
        compile_ptx('extern "C" __global__ void k() {}', arch)
