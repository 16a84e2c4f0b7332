"""The baseline compressors, each from its own pip package (imported lazily; a missing one is skipped).

Every baseline maps a float array to bytes and back; the bytes returned by the library are counted as they
are (for zstd, lzma and blosc2 the shape and dtype are not even stored, which favours the baselines).
"""
from __future__ import annotations

import gzip
import importlib.util
import lzma

import numpy as np


def _zstd(level):
    def enc(u):
        import zstandard

        return zstandard.ZstdCompressor(level=level).compress(u.tobytes())

    def dec(blob, like):
        import zstandard

        return np.frombuffer(zstandard.ZstdDecompressor().decompress(blob), like.dtype).reshape(like.shape)
    return enc, dec


def _gzip():
    return (lambda u: gzip.compress(u.tobytes(), compresslevel=9, mtime=0),
            lambda blob, like: np.frombuffer(gzip.decompress(blob), like.dtype).reshape(like.shape))


def _lzma():
    return (lambda u: lzma.compress(u.tobytes(), preset=6),
            lambda blob, like: np.frombuffer(lzma.decompress(blob), like.dtype).reshape(like.shape))


def _blosc2():
    def enc(u):
        import blosc2

        return blosc2.compress2(u.tobytes(), typesize=u.dtype.itemsize, clevel=9, filter=blosc2.Filter.SHUFFLE,
                                codec=blosc2.Codec.ZSTD, nthreads=1)

    def dec(blob, like):
        import blosc2

        return np.frombuffer(blosc2.decompress2(blob, nthreads=1), like.dtype).reshape(like.shape)
    return enc, dec


def _fpzip():
    def enc(u):
        import fpzip

        return fpzip.compress(np.ascontiguousarray(u), precision=0, order="C")

    def dec(blob, like):
        import fpzip

        return fpzip.decompress(blob, order="C").reshape(like.shape)
    return enc, dec


def _zfpy():
    def enc(u):
        import zfpy

        return zfpy.compress_numpy(np.ascontiguousarray(u))          # no tolerance/rate/precision: reversible

    def dec(blob, like):
        import zfpy

        return zfpy.decompress_numpy(blob).reshape(like.shape)
    return enc, dec


def _pcodec():
    def enc(u):
        from pcodec import ChunkConfig, standalone

        return standalone.simple_compress(np.ascontiguousarray(u).ravel(), ChunkConfig())

    def dec(blob, like):
        from pcodec import standalone

        return np.asarray(standalone.simple_decompress(blob)).reshape(like.shape)
    return enc, dec


# name: (pip package / import name, factory)
BASELINES = {
    "zstd-3": ("zstandard", lambda: _zstd(3)),
    "zstd-19": ("zstandard", lambda: _zstd(19)),
    "gzip-9": ("gzip", _gzip),
    "lzma": ("lzma", _lzma),
    "blosc2": ("blosc2", _blosc2),
    "fpzip": ("fpzip", _fpzip),
    "zfpy": ("zfpy", _zfpy),
    "pcodec": ("pcodec", _pcodec),
}


def available_baselines() -> tuple[dict, list[str]]:
    """(name → (encode, decode)) for the installed baselines, and a note per missing one."""
    found, notes = {}, []
    for name, (module, factory) in BASELINES.items():
        if importlib.util.find_spec(module) is None:
            notes.append(f"{name}: skipped, the '{module}' package is not installed (pip install {module})")
        else:
            found[name] = factory()
    return found, notes
