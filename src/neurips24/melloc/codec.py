"""``compress(u) -> bytes`` and ``decompress(blob) -> ndarray``: bitwise-lossless MeLLoC for float arrays.

The array is cut into 2-D blocks (the last two axes, tiled); each block is coded either by the *mechanism*
(exact integer map → learned template → source term + boundary → entropy backend; decoded by integer
marching or the iterated FFT solve) or, where that cannot apply or does not pay, by a *generic* backend on the
raw floats. The encoder keeps whichever is shorter, so no block is ever coded worse than the generic backend (plus a few
bytes of header) and no block is ever decoded to a wrong value.

Block record after the container header (``container``)::

    mode u8   0 = generic: codec u8, length u64, payload (the floats)
              1 = mechanism, FFT decode: stencil 9 × i8, k i32, anchor i64, work dtype u8 (4 or 8), then three
                  streams (source term, boundary seam, exceptions), each: codec u8, count u64, length u64, payload
              2 = mechanism, marching decode (templates with ``stencil.can_march``): stencil 9 × i8, k i32,
                  work dtype u8, then the same three streams; the boundary stream holds the source term's two
                  side columns (rows 1 … H − 2) and the first two rows of q (row 0 as differences along the
                  row, row 1 minus row 0) instead of the periodic seam
"""
from __future__ import annotations

import struct
from functools import cache

import numpy as np

from . import backends
from .container import FormatError, Reader, default_digest, digest, open_container, pack_header, seal
from .inpaint import plane_fill
from .intmap import float_to_int, int_to_float
from .stencil import (
    MIN_CONDITION,
    SolveError,
    apply_stencil,
    can_march,
    coefficients,
    describe,
    grid_condition,
    learn_stencil,
    solve_march,
    solve_periodic,
    work_dtype,
)

MIN_SIDE = 8                  # smallest block side the mechanism is tried on
MIN_RECORD = 10               # bytes of the shortest block record (generic: mode, codec, length)
MAX_EXCEPTION_FRACTION = 0.25  # beyond this a block goes to the generic backend
GENERIC, MECHANISM, MARCH = 0, 1, 2


@cache
def ring_index(H: int, W: int) -> np.ndarray:
    """Flat indices of the block's outer ring, clockwise from (0, 0): (2H + 2W − 4,) int64."""
    idx = np.arange(H * W).reshape(H, W)
    return np.concatenate([idx[0, :], idx[1:, -1], idx[-1, -2::-1], idx[-2:0:-1, 0]]).astype(np.int64)


def _edges(n: int, tile: int) -> list[int]:
    """Tile boundaries along one axis; a remainder shorter than MIN_SIDE joins the previous tile."""
    edges = list(range(0, n, tile)) + [n]
    if len(edges) > 2 and edges[-1] - edges[-2] < MIN_SIDE:
        del edges[-2]
    return edges


def _n_blocks(shape: tuple, tile: tuple[int, int]) -> int:
    """Number of blocks :func:`_blocks` yields, computed without enumerating them (Python ints, no overflow)."""
    n_stack = 1
    for s in shape[:-2]:
        n_stack *= int(s)

    def count(n: int, t: int) -> int:              # len(_edges(n, t)) - 1, without building the list
        full, rest = divmod(n, t)
        return full + 1 if rest >= MIN_SIDE or (rest and full == 0) else max(full, 1)

    return n_stack * count(int(shape[-2]), int(tile[0])) * count(int(shape[-1]), int(tile[1]))


def _blocks(shape: tuple, tile: tuple[int, int]):
    """Index tuples of the 2-D blocks of an array of ``shape`` (stack index, row slice, column slice)."""
    H, W = shape[-2:]
    n_stack = int(np.prod(shape[:-2], dtype=np.int64))
    rows, cols = _edges(H, tile[0]), _edges(W, tile[1])
    for s in range(n_stack):
        for r0, r1 in zip(rows[:-1], rows[1:], strict=True):
            for c0, c1 in zip(cols[:-1], cols[1:], strict=True):
                yield s, slice(r0, r1), slice(c0, c1)


def _stream(codec: str, count: int, raw: bytes) -> bytes:
    return struct.pack("<BQQ", backends.CODEC_IDS[codec], count, len(raw)) + raw


def _generic_record(u: np.ndarray, backend: str, level: int) -> bytes:
    codec, raw = backends.encode_best(u.ravel(), backend, level)
    return struct.pack("<BBQ", GENERIC, backends.CODEC_IDS[codec], len(raw)) + raw


def _mechanism_record(u: np.ndarray, backend: str, level: int, verify: bool,
                      inpaint: bool = True) -> bytes | None:
    """The mechanism coding of one 2-D block, or None when it cannot apply."""
    H, W = u.shape
    q, k, exc_index, exc_bits = float_to_int(u)
    if exc_index.size > MAX_EXCEPTION_FRACTION * u.size:
        return None
    if exc_index.size and inpaint:                                    # masked cells: integer-plane fill (free values)
        hole = np.zeros(u.size, dtype=bool)
        hole[exc_index] = True
        q = plane_fill(q, hole.reshape(H, W))
    m = learn_stencil(q)
    wd = work_dtype(int(np.abs(q).max()), m)
    qw = q.astype(wd)
    f = apply_stencil(qw, m)                                           # exact source term, eq. (melloc-residual)
    march = can_march(m)
    if verify:
        try:
            back = (solve_march(f[1:-1], qw[:2], m) if march else solve_periodic(f, m, int(qw[0, 0])))
            if not np.array_equal(back, qw):
                return None
        except SolveError:
            return None
    source = f[1:-1, 1:-1].ravel()
    if march:
        top = qw[:2].astype(np.int64)
        boundary = np.concatenate([f[1:-1, 0], f[1:-1, -1], np.diff(top[0], prepend=np.int64(0)), top[1] - top[0]])
    else:
        seam = f.ravel()[ring_index(H, W)].astype(np.int64)
        boundary = np.diff(seam, prepend=np.int64(0))
    exceptions = np.concatenate([np.diff(exc_index, prepend=np.int64(0)), exc_bits.view(f"i{exc_bits.itemsize}")
                                 .astype(np.int64)]) if exc_index.size else np.zeros(0, np.int64)
    parts = [struct.pack("<B", MARCH if march else MECHANISM), m.astype(np.int8).tobytes(),
             struct.pack("<iB", k, np.dtype(wd).itemsize) if march else
             struct.pack("<iqB", k, int(qw[0, 0]), np.dtype(wd).itemsize)]
    for arr in (source, boundary.astype(np.int64)):
        codec, raw = backends.encode_best(arr, backend, level)
        parts.append(_stream(codec, arr.size, raw))
    parts.append(_stream("zstd", exc_index.size, backends.encode(exceptions, "zstd", level)))
    return b"".join(parts)


def compress(u, backend: str = "auto", level: int = 3, tile: int = 1024, verify: bool = True,
             mode: str = "auto", inpaint: bool = True) -> bytes:
    """Compress a float array losslessly (MeLLoC: learned local mechanism + exact integer source term).

    Parameters
    ----------
    u : array_like of float32 or float64, any shape (2-D and 3-D use the mechanism on each 2-D slice of the
        last two axes; 0-D, 1-D and slices smaller than 8 × 8 use the generic backend). NaN, ±inf, −0.0 and
        denormals are all kept bit for bit.
    backend : 'auto' (zstd and, when installed, pcodec; the shorter per stream), 'zstd' or 'pcodec'.
    level : zstd level for the zstd streams, 1–22.
    tile : largest block side, ≥ 8; a 4096 × 4096 field becomes 16 blocks of 1024 × 1024.
    verify : run the decoder's solve at encode time and fall back to the generic backend if it fails.
    mode : 'auto' (per block, the shorter of mechanism and generic), 'mechanism' (the mechanism wherever it
        applies, even when it codes longer: the fallback-free measurement of the method) or 'generic'.
    inpaint : fill the exception cells (NaN, ±inf, −0.0, too-fine values; their bits are stored apart) with
        an integer plane fitted to their neighbours before the residual (``inpaint.plane_fill``); False
        leaves them at 0 (the control). The decoded array is bit-identical either way.

    Returns
    -------
    bytes, a self-describing container (``container``): magic, format version, dtype, shape, per-block
    stencil coefficients and codec ids, CRC-32.

    Raises
    ------
    TypeError if ``u`` is not float32/float64; ValueError for a bad ``backend``, ``level`` or ``tile``;
    ImportError for ``backend='pcodec'`` without the pcodec package.
    """
    u = np.asarray(u)
    if u.dtype.kind != "f" or u.dtype.itemsize not in (4, 8):
        raise TypeError(f"u must be a float32 or float64 array, got dtype {u.dtype}")
    u = np.ascontiguousarray(u, dtype=np.dtype(f"<f{u.dtype.itemsize}")).reshape(u.shape)
    backends.candidates(backend)
    if mode not in ("auto", "mechanism", "generic"):
        raise ValueError(f"mode must be 'auto', 'mechanism' or 'generic', got {mode!r}")
    if not (isinstance(level, (int, np.integer)) and 1 <= level <= 22):
        raise ValueError(f"level must be an integer in 1..22, got {level!r}")
    if not isinstance(inpaint, (bool, np.bool_)):
        raise TypeError(f"inpaint must be a bool, got {inpaint!r}")
    if not (isinstance(tile, (int, np.integer)) and tile >= MIN_SIDE):
        raise ValueError(f"tile must be an integer >= {MIN_SIDE}, got {tile!r}")
    kind = default_digest()
    if u.ndim < 2 or u.shape[-1] < MIN_SIDE or u.shape[-2] < MIN_SIDE or u.size == 0:
        return seal(pack_header(u.dtype, u.shape, (0, 0), 1, kind) + _generic_record(u, backend, level)
                    + digest(u, kind))
    stack = u.reshape(-1, *u.shape[-2:])
    records = []
    for s, rs, cs in _blocks(u.shape, (tile, tile)):
        block = stack[s, rs, cs]
        mech = None if mode == "generic" else _mechanism_record(block, backend, level, verify, inpaint)
        if mode == "mechanism" and mech is not None:
            records.append(mech)
            continue
        generic = _generic_record(block, backend, level)
        records.append(mech if mech is not None and len(mech) < len(generic) else generic)
    return seal(pack_header(u.dtype, u.shape, (tile, tile), len(records), kind) + b"".join(records)
                + digest(u, kind))


K_LIMIT = 1100                # |k| of a block's scale 2^(−k): float_to_int gives −971 ≤ k ≤ 1074


def _refuse_bomb(what: str, nbytes: int, length: int) -> None:
    if nbytes > backends.max_decoded_bytes(length):
        raise FormatError(f"MeLLoC {what} claims {nbytes} decoded bytes from {length} coded bytes (more than "
                          f"{backends.MAX_EXPANSION}x): refused before decoding")


def _take_stream(rd: Reader, name: str, itemsize: int, expected: int | None, limit: int | None = None):
    """Read one stream's header and its coded bytes, checked before anything is decoded.

    Returns (codec name, count, coded bytes). The count must be the block's (``expected``) or at most ``limit``,
    the coded bytes must be in the file, and the decoded size may not exceed what they can hold
    (``backends.max_decoded_bytes``).
    """
    cid, count, length = rd.unpack("<BQQ")
    if cid not in backends.CODEC_NAMES:
        raise FormatError(f"unknown codec id {cid} in the {name} stream of a MeLLoC block")
    if expected is not None and count != expected:
        raise FormatError(f"MeLLoC {name} stream holds {count} values, the block needs {expected}")
    if limit is not None and count > limit:
        raise FormatError(f"MeLLoC {name} stream holds {count} values, the block has {limit} cells")
    if length > rd.left:
        raise FormatError(f"truncated MeLLoC container: the {name} stream runs past the end")
    _refuse_bomb(f"{name} stream", count * itemsize, length)
    return backends.CODEC_NAMES[cid], count, rd.take(length)


def _decode(stream, dtype) -> np.ndarray:
    codec, count, raw = stream
    try:
        return backends.decode(raw, codec, dtype, count)
    except ValueError as err:
        raise FormatError(str(err)) from err


def _decode_block(rd: Reader, dtype, shape: tuple[int, ...], device: str) -> np.ndarray:
    """One block record -> the block's floats.

    Every header field and stream header is read and bound-checked, and each stream's coded bytes taken from
    the file, before anything is decoded or allocated from a declared size: a record that declares more values
    than its bytes can hold (``backends.max_decoded_bytes``) is refused at once, so the work is bounded by the
    file's size. Only then is the template's symbol evaluated (FFT blocks only; marching needs none) and the
    streams decoded.
    """
    (mode,) = rd.unpack("<B")
    size = 1
    for s in shape:
        size *= int(s)                              # Python int: a crafted shape cannot overflow it
    if mode == GENERIC:
        cid, length = rd.unpack("<BQ")
        if cid not in backends.CODEC_NAMES:
            raise FormatError(f"unknown codec id {cid} in MeLLoC block")
        if length > rd.left:
            raise FormatError("truncated MeLLoC container: a stream runs past the end")
        _refuse_bomb("generic block", size * np.dtype(dtype).itemsize, length)
        return _decode((backends.CODEC_NAMES[cid], size, rd.take(length)), dtype).reshape(shape)
    if mode not in (MECHANISM, MARCH) or len(shape) != 2:
        raise FormatError(f"invalid MeLLoC block mode {mode}")
    H, W = shape
    m = np.frombuffer(rd.take(9), np.int8).reshape(3, 3).astype(np.int64)
    try:
        coefficients(m)
    except ValueError:
        raise FormatError(f"stencil {m.tolist()} is not a template of the family") from None
    if mode == MARCH and not can_march(m):
        raise FormatError(f"stencil {m.tolist()} cannot march (a marching block needs a bottom row [0, l, 0])")
    if mode == MARCH:
        (k, itemsize), anchor = rd.unpack("<iB"), 0
    else:
        k, anchor, itemsize = rd.unpack("<iqB")
    if itemsize not in (4, 8):
        raise FormatError(f"invalid work dtype size {itemsize}")
    if not -K_LIMIT < k < K_LIMIT:
        raise FormatError(f"MeLLoC block scale k = {k} is outside (-{K_LIMIT}, {K_LIMIT})")
    wd = np.dtype(f"i{itemsize}")
    streams = (_take_stream(rd, "source", itemsize, (H - 2) * (W - 2)),
               _take_stream(rd, "boundary", 8, 2 * H + 2 * W - 4),
               _take_stream(rd, "exception", 16, None, size))
    if mode == MECHANISM and grid_condition(m, H, W) < MIN_CONDITION:   # the symbol, now bounded by the bytes
        raise FormatError(f"stencil {m.tolist()} is not an invertible template of the family on a {H}x{W} grid")
    source, boundary = _decode(streams[0], wd), _decode(streams[1], np.int64)
    n_exc = streams[2][1]
    exc = _decode((streams[2][0], 2 * n_exc, streams[2][2]), np.int64)
    exc_index = np.cumsum(exc[:n_exc])
    if n_exc and (exc_index[0] < 0 or exc_index[-1] >= size or np.any(exc[1:n_exc] <= 0)):
        raise FormatError("MeLLoC exception indices out of range")
    if mode == MARCH:
        n = 2 * (H - 2)
        top = np.cumsum(boundary[n:n + W])
        parts = (boundary[:n], top, top + boundary[n + W:])
    else:
        parts = (np.cumsum(boundary),)
    info = np.iinfo(wd)
    if not (info.min <= anchor <= info.max) or any(p.size and (p.min() < info.min or p.max() > info.max)
                                                     for p in parts):
        raise FormatError("MeLLoC block values out of range for its work dtype")
    if mode == MARCH:
        f = np.empty((H - 2, W), dtype=wd)
        f[:, 1:-1] = source.reshape(H - 2, W - 2)
        f[:, 0], f[:, -1] = parts[0][:H - 2], parts[0][H - 2:]
        q = solve_march(f, np.stack(parts[1:]).astype(wd), m)
    else:
        f = np.empty((H, W), dtype=wd)
        f[1:-1, 1:-1] = source.reshape(H - 2, W - 2)
        f.reshape(-1)[ring_index(H, W)] = parts[0]
        try:
            if device == "gpu":
                from .kernels import solve_periodic_gpu

                q = solve_periodic_gpu(f, m, anchor)
            else:
                q = solve_periodic(f, m, anchor)
        except SolveError as err:
            raise FormatError(f"MeLLoC block does not decode exactly: {err}") from err
    bits = exc[n_exc:].astype(np.dtype(f"u{np.dtype(dtype).itemsize}")) if n_exc else None
    return int_to_float(q, k, dtype, exc_index, bits)


def decompress(blob, device: str = "cpu") -> np.ndarray:
    """Decompress a MeLLoC container to the exact original array (same dtype, shape and bits).

    Parameters
    ----------
    blob : bytes from :func:`compress`.
    device : 'cpu' (SciPy FFT) or 'gpu' (CuPy FFT + the chapter's CUDA kernels); both give identical bits.

    Returns
    -------
    ndarray of float32/float64 with the stored shape (native byte order).

    Raises
    ------
    TypeError if ``blob`` is not bytes-like; ValueError for a bad ``device``; FormatError (a ValueError)
    for foreign, truncated or corrupted input or a newer format version; ImportError if the blob needs
    pcodec and it is not installed.
    """
    if device not in ("cpu", "gpu"):
        raise ValueError(f"device must be 'cpu' or 'gpu', got {device!r}")
    return _decompress(blob, device, check_digest=True)


def _decompress(blob, device: str = "cpu", check_digest: bool = True) -> np.ndarray:
    """:func:`decompress`; with ``check_digest=False`` the content digest is not compared (the control of the
    chapter's damage check: what the digest catches that the field validation does not)."""
    dtype, shape, tile, n_blocks, rd = open_container(blob)
    try:
        return _decode_all(dtype, shape, tile, n_blocks, rd, device, check_digest)
    except MemoryError as err:                      # a size the checks let through that this machine cannot hold
        raise FormatError(f"MeLLoC container needs more memory than is available: {err}") from err


def _decode_all(dtype, shape, tile, n_blocks, rd, device, check_digest) -> np.ndarray:
    size = 1
    for s in shape:
        size *= s                                   # Python int: a crafted shape cannot overflow it
    # Nothing is allocated from a header field until it is tied to bytes that are really there: the block
    # count must match shape and tiling and fit the remaining bytes (each record is at least MIN_RECORD
    # bytes), every stream must declare exactly the values its block needs, be in the file, claim no more
    # than its bytes can hold (backends.max_decoded_bytes) and decode to them (the zstd decoder grows its
    # output with the real data), and the array is assembled only after every block decoded. A decode that
    # does not reproduce the original bits fails the content digest.
    if n_blocks * MIN_RECORD > rd.left:
        raise FormatError(f"MeLLoC header says {n_blocks} blocks, the container holds {rd.left} bytes of them")
    if tile == (0, 0):
        if n_blocks != 1:
            raise FormatError(f"a generic MeLLoC container holds one block, header says {n_blocks}")
        out = _decode_block(rd, dtype, (size,), device).reshape(shape)
    else:
        if len(shape) < 2 or min(tile) < MIN_SIDE or min(shape[-2:]) < MIN_SIDE:
            raise FormatError(f"invalid MeLLoC tiling {tile} for shape {shape}")
        if _n_blocks(shape, tile) != n_blocks:
            raise FormatError(f"MeLLoC header says {n_blocks} blocks, the shape and tiling give "
                              f"{_n_blocks(shape, tile)}")
        parts = [(s, rs, cs, _decode_block(rd, dtype, (rs.stop - rs.start, cs.stop - cs.start), device))
                 for s, rs, cs in _blocks(shape, tile)]
        if len(parts) == 1 and parts[0][3].shape == shape:
            out = parts[0][3]                        # one block is the whole array: no copy
        else:
            out = np.empty(shape, dtype=dtype)       # every value of it has now been decoded
            stack = out.reshape(-1, *shape[-2:])
            for s, rs, cs, block in parts:
                stack[s, rs, cs] = block
    if rd.pos != len(rd.data):
        raise FormatError(f"MeLLoC container has {len(rd.data) - rd.pos} unread bytes")
    if check_digest and digest(out, rd.digest_kind) != rd.digest:
        raise FormatError("MeLLoC content digest mismatch: the decoded array is not the one that was compressed")
    return out


def inspect(blob) -> list[dict]:
    """Per-block summary of a container: mode, decoder (march/fft), stencil and its formula, scale k, stream codecs
    and byte counts."""
    dtype, shape, tile, n_blocks, rd = open_container(blob)
    out = []
    for _ in range(n_blocks):
        start = rd.pos
        (mode,) = rd.unpack("<B")
        if mode == GENERIC:
            cid, length = rd.unpack("<BQ")
            rd.take(length)
            out.append({"mode": "generic", "codec": backends.CODEC_NAMES.get(cid, "?"), "bytes": rd.pos - start})
            continue
        m = np.frombuffer(rd.take(9), np.int8).reshape(3, 3).astype(np.int64)
        k = rd.unpack("<iB")[0] if mode == MARCH else rd.unpack("<iqB")[0]
        rec = {"mode": "mechanism", "decoder": "march" if mode == MARCH else "fft", "stencil": m,
               "template": describe(m), "k": k}
        for name in ("source", "boundary", "exceptions"):
            cid, count, length = rd.unpack("<BQQ")
            rd.take(length)
            rec[f"{name}_codec"] = backends.CODEC_NAMES.get(cid)
            rec[f"{name}_count"], rec[f"{name}_bytes"] = count, length
        rec["bytes"] = rd.pos - start
        out.append(rec)
    return out
