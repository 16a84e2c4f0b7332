"""The self-describing MeLLoC container (this book's format).

Layout (little-endian)::

    magic  b"MLOC"            4 bytes
    version                   u8   (FORMAT_VERSION; versions 2 and 3 are read)
    dtype                     u8   (1 = float32, 2 = float64)
    ndim                      u8
    flags                     u8   the digest: 0 = BLAKE2b-128 (``hashlib``), 1 = XXH3-128 (``xxhash``; version 3)
    shape                     ndim × u64
    tile_h, tile_w            2 × u32   (rows/columns per tile; 0 when the array is one generic block)
    n_blocks                  u32
    blocks                    n_blocks block records (see ``codec``)
    digest                    16 bytes: the hash named by ``flags`` of the original array's bytes
    crc32                     u32  of everything before it

A reader checks, in order: length, magic, version (a newer one is refused), checksum, then the fields.
The CRC catches accidental damage; it cannot catch a file crafted (or damaged before sealing) with a valid
CRC. The content digest guards against accidental damage too — a wrong decode of a damaged stream — not against
a crafter, who can recompute it as easily as the CRC. What protects a reader from a crafted file is validation:
the decoder checks every field and stream header against the bytes that are really there before it allocates or
evaluates anything, and refuses a stream that claims more decoded bytes than its coded bytes can hold
(``backends.max_decoded_bytes``), so the work a container can ask for is bounded by its size
(``codec.decompress``; ``tests/test_melloc_crafted.py``). Version 3
added the XXH3-128 digest (about 30× faster than BLAKE2b; used when the ``xxhash`` package is installed) and the
marching block mode (``codec``); version 2 containers (BLAKE2b, FFT blocks only) are still read.
"""
from __future__ import annotations

import hashlib
import importlib.util
import struct
import zlib

import numpy as np

MAGIC = b"MLOC"
FORMAT_VERSION = 3
READABLE_VERSIONS = (2, 3)
BLAKE2B, XXH3 = 0, 1           # digest ids (the header's flags byte)
DIGEST_SIZE = 16
DTYPE_CODES = {np.dtype(np.float32): 1, np.dtype(np.float64): 2}
CODE_DTYPES = {v: k for k, v in DTYPE_CODES.items()}
_FIXED = struct.Struct("<4sBBBB")
MIN_SIZE = _FIXED.size + 12 + DIGEST_SIZE + 4   # magic..flags, tiles + n_blocks, digest, crc


def default_digest() -> int:
    """The digest the encoder writes: XXH3-128 when ``xxhash`` is installed, else BLAKE2b-128."""
    return XXH3 if importlib.util.find_spec("xxhash") is not None else BLAKE2B


def digest(u: np.ndarray, kind: int = BLAKE2B) -> bytes:
    """16-byte hash of the array's bytes (little-endian, C order): BLAKE2b-128 (``hashlib``) or XXH3-128.

    Raises
    ------
    ValueError for an unknown ``kind``; ImportError for XXH3 without the ``xxhash`` package.
    """
    u = np.asarray(u)
    le = np.ascontiguousarray(u, dtype=u.dtype.newbyteorder("<")).reshape(-1)   # a view when already so
    buf = le.view(np.uint8)                                                       # hashed in place, no copy
    if kind == BLAKE2B:
        return hashlib.blake2b(buf, digest_size=DIGEST_SIZE).digest()
    if kind == XXH3:
        try:
            import xxhash
        except ImportError as err:
            raise ImportError("this MeLLoC container carries an XXH3 digest; pip install xxhash to read it") from err
        return xxhash.xxh3_128_digest(buf)
    raise ValueError(f"unknown digest kind {kind}")


class FormatError(ValueError):
    """The bytes are not a valid MeLLoC container (foreign, truncated, corrupted or too new)."""


class Reader:
    """Sequential reader over a payload that raises :class:`FormatError` on truncation."""

    def __init__(self, data: memoryview, pos: int = 0):
        self.data, self.pos, self.digest, self.digest_kind = data, pos, b"", BLAKE2B

    @property
    def left(self) -> int:
        """Bytes not yet read."""
        return len(self.data) - self.pos

    def unpack(self, fmt: str):
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise FormatError("truncated MeLLoC container: a header field runs past the end")
        out = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return out

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise FormatError("truncated MeLLoC container: a stream runs past the end")
        out = bytes(self.data[self.pos:self.pos + n])
        self.pos += n
        return out


def pack_header(dtype, shape: tuple, tile: tuple[int, int], n_blocks: int, digest_kind: int = BLAKE2B) -> bytes:
    """Header bytes (everything before the block records)."""
    return (_FIXED.pack(MAGIC, FORMAT_VERSION, DTYPE_CODES[np.dtype(dtype)], len(shape), digest_kind)
            + struct.pack(f"<{len(shape)}Q", *shape) + struct.pack("<III", tile[0], tile[1], n_blocks))


def seal(body: bytes) -> bytes:
    """Append the CRC-32 trailer."""
    return body + struct.pack("<I", zlib.crc32(body) & 0xFFFFFFFF)


def open_container(blob) -> tuple[np.dtype, tuple, tuple[int, int], int, Reader]:
    """Validate ``blob`` and read its header.

    Returns
    -------
    (dtype, shape, (tile_h, tile_w), n_blocks, reader positioned at the first block record).

    Raises
    ------
    TypeError if ``blob`` is not bytes-like; FormatError (a ValueError) if it is too short, has a foreign
    magic, a newer format version, a checksum mismatch or an invalid header field.
    """
    if not isinstance(blob, (bytes, bytearray, memoryview)):
        raise TypeError(f"blob must be bytes, got {type(blob).__name__}")
    data = memoryview(blob).cast("B")
    if len(data) < 4 or bytes(data[:4]) != MAGIC:
        if len(data) < 4 and bytes(data) == MAGIC[:len(data)]:
            raise FormatError(f"truncated MeLLoC container: {len(data)} bytes")
        raise FormatError("not a MeLLoC container (magic bytes b'MLOC' missing)")
    if len(data) < MIN_SIZE:
        raise FormatError(f"truncated MeLLoC container: {len(data)} bytes, the header alone needs {MIN_SIZE}")
    version = data[4]
    if version > FORMAT_VERSION:
        raise FormatError(f"MeLLoC format version {version} is newer than this decoder supports "
                          f"({FORMAT_VERSION}); upgrade neurips24 to read it")
    if version not in READABLE_VERSIONS:
        raise FormatError(f"MeLLoC format version {version} has no content digest; this decoder reads only "
                          f"versions {READABLE_VERSIONS}")
    (crc,) = struct.unpack_from("<I", data, len(data) - 4)
    if zlib.crc32(data[:-4]) & 0xFFFFFFFF != crc:
        raise FormatError("MeLLoC checksum mismatch: the container is corrupted or truncated")
    body = Reader(data[:-4 - DIGEST_SIZE])
    _, _, dcode, ndim, flags = body.unpack(_FIXED.format)
    if dcode not in CODE_DTYPES:
        raise FormatError(f"invalid dtype code {dcode} in MeLLoC header")
    if flags not in ((BLAKE2B, XXH3) if version >= 3 else (BLAKE2B,)) or ndim > 32:
        raise FormatError(f"invalid MeLLoC header (flags={flags}, ndim={ndim})")
    shape = body.unpack(f"<{ndim}Q")
    tile_h, tile_w, n_blocks = body.unpack("<III")
    body.digest = bytes(data[len(data) - 4 - DIGEST_SIZE:len(data) - 4])
    body.digest_kind = flags
    return CODE_DTYPES[dcode], tuple(int(s) for s in shape), (tile_h, tile_w), n_blocks, body
