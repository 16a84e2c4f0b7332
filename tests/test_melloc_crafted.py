"""Crafted MeLLoC containers: a small file with a valid CRC that declares a huge block is refused at once.

Each crafted file is a container of about a hundred bytes whose header and CRC are valid and whose single block
record declares one mechanism block of side 8192, 12288 or 16384 (source, boundary and exception streams with
the exact counts the block needs, but a few bytes of payload). The decoder must refuse it with FormatError in
under 0.1 s of CPU time and with a peak of traced allocations under 64 MiB: it reads and bound-checks every
stream header before evaluating the template's symbol or decoding anything, and a stream may not claim more
decoded bytes than its coded bytes can hold (``backends.max_decoded_bytes``).
"""
from __future__ import annotations

import struct
import time
import tracemalloc

import numpy as np
import pytest

from neurips24.melloc import FormatError, backends, compress, decompress
from neurips24.melloc.codec import MARCH, MECHANISM
from neurips24.melloc.container import default_digest, pack_header, seal
from neurips24.melloc.fields import make_field
from neurips24.melloc.stencil import LAPLACE5

SIDES = (8192, 12288, 16384)
MAX_SECONDS = 0.1
MAX_PEAK = 64 * 2**20


def crafted(side: int, mode: int, *, k: int = 0, stencil=LAPLACE5, source: tuple[int, bytes] | None = None,
            itemsize: int = 4) -> bytes:
    """A sealed container declaring one ``side``² mechanism block (``mode`` 1 = FFT, 2 = marching) whose streams
    carry the right counts but only the given payload (default: none)."""
    body = pack_header(np.float32, (side, side), (side, side), 1, default_digest())
    rec = struct.pack("<B", mode) + np.asarray(stencil, np.int8).tobytes()
    rec += struct.pack("<iB", k, itemsize) if mode == MARCH else struct.pack("<iqB", k, 0, itemsize)
    cid, payload = source if source is not None else (backends.CODEC_IDS["zstd"], b"")
    rec += struct.pack("<BQQ", cid, (side - 2) ** 2, len(payload)) + payload
    rec += struct.pack("<BQQ", backends.CODEC_IDS["zstd"], 4 * side - 4, 0)
    rec += struct.pack("<BQQ", backends.CODEC_IDS["zstd"], 0, 0)
    return seal(body + rec + bytes(16))


def refused_cheaply(blob: bytes, match: str | None = None) -> tuple[float, int]:
    """Decode ``blob``, expect FormatError; return (CPU seconds, peak traced bytes). CPU time, not wall time, so
    that a loaded machine (other processes taking the cores) does not count against the decoder."""
    tracemalloc.start()
    t0 = time.process_time()
    try:
        with pytest.raises(FormatError, match=match):
            decompress(blob)
        seconds = time.process_time() - t0
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert seconds < MAX_SECONDS, f"refusal took {seconds:.3f} s"
    assert peak < MAX_PEAK, f"refusal peaked at {peak / 2**20:.1f} MiB"
    return seconds, peak


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("mode", [MECHANISM, MARCH])
def test_huge_declared_block_refused_fast_and_small(side, mode):
    blob = crafted(side, mode)
    assert len(blob) <= 160
    refused_cheaply(blob, match="claims|runs past")


@pytest.mark.parametrize("side", SIDES)
def test_real_but_tiny_zstd_stream_claiming_a_huge_block_refused(side):
    """A genuine zstd frame of a few bytes whose header count says (side − 2)² values."""
    src = backends.encode(np.zeros(64, np.int32), "zstd")
    blob = crafted(side, MECHANISM, source=(backends.CODEC_IDS["zstd"], src))
    refused_cheaply(blob, match="claims")


@pytest.mark.skipif(not backends.pcodec_available(), reason="pcodec not installed")
def test_pcodec_bomb_refused_before_decoding():
    """pcodec codes 2²⁴ zeros in about 70 bytes: a real stream, refused because it expands too much."""
    side = 4098                                   # (side − 2)² = 2²⁴ source values
    src = backends.encode(np.zeros((side - 2) ** 2, np.int32), "pcodec")
    assert len(src) < 200
    blob = crafted(side, MARCH, source=(backends.CODEC_IDS["pcodec"], src))
    refused_cheaply(blob, match="claims")


@pytest.mark.parametrize("k", [-2**31, 2**31 - 1, 1100, -1100])
def test_block_scale_out_of_range_refused(k):
    refused_cheaply(crafted(64, MARCH, k=k), match="scale k")


def test_singular_template_refused_on_fft_blocks_only_after_the_bytes_check():
    lx = np.array([[1, 0, 1], [0, -4, 0], [1, 0, 1]])               # Δ×: symbol zero at (π, π)
    refused_cheaply(crafted(16384, MECHANISM, stencil=lx), match="claims")   # the size is refused first
    src = backends.encode(np.zeros(62 * 62, np.int32), "zstd")
    bnd_ok = crafted(64, MECHANISM, stencil=lx, source=(backends.CODEC_IDS["zstd"], src))
    refused_cheaply(bnd_ok, match="invertible")


def test_generic_block_bomb_refused():
    """A generic (tile 0) container whose pcodec/zstd payload claims far more floats than its bytes hold."""
    blob = compress(np.zeros(100, np.float64), backend="zstd")
    body = bytearray(blob[:-4])
    body[8:16] = struct.pack("<Q", 2**30)                            # shape (2^30,)
    refused_cheaply(seal(bytes(body)), match="claims")


def test_encoder_never_writes_a_stream_the_decoder_refuses():
    """A constant field: pcodec would code it in a few dozen bytes; the encoder keeps a coding within the cap."""
    u = np.full((512, 512), 3.0, np.float32)
    for mode in ("auto", "mechanism", "generic"):
        blob = compress(u, mode=mode)
        assert np.array_equal(decompress(blob), u)
    assert backends.max_decoded_bytes(0) == backends.EXPANSION_SLACK
    coded = backends.encode(np.zeros(2**20, np.int32), "zstd")
    assert 4 * 2**20 <= backends.max_decoded_bytes(len(coded))       # zstd's own ratio is within the cap


def test_legitimate_large_block_still_decodes():
    u = make_field("poisson", 256, np.float32)
    blob = compress(u, tile=256, mode="mechanism")
    assert np.array_equal(decompress(blob).view(np.uint32), u.view(np.uint32))


# ----- the chapter's damage check and its control ------------------------------------------------------------

def test_damage_check_digest_on_and_off():
    from neurips24.melloc import experiment, reproduction

    damage = experiment.damage_check((0, 1, 2), n_flips=40, n=96)
    kw = reproduction.damage_refused(damage)
    assert kw["measured"]["wrong decodes"] == 0 and kw["control"]["measured"]["wrong decodes"] > 0
    assert set(kw["per_seed"]) == {0, 1, 2}


@pytest.mark.parametrize(("kwargs", "match"), [(dict(n=8), "n must be"), (dict(n_flips=0), "n_flips must be"),
                                               (dict(n=96.0), "n must be")])
def test_corruption_counts_bad_arguments(kwargs, match):
    from neurips24.melloc.experiment import corruption_counts

    with pytest.raises(ValueError, match=match):
        corruption_counts(**kwargs)
