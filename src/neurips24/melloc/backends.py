"""Entropy backends from maintained libraries: zstandard (required) and pcodec (optional).

Each backend turns a 1-D integer or float array into bytes and back. A codec id (one byte) in the container
names the backend that wrote a stream, so any decoder can read any choice.

- ``zstd``: zig-zag (integers), byte shuffle (the k-th byte of every value together), then Zstandard.
- ``pcodec``: pcodec's standalone format; for int32 streams with a learned order-4 convolution predictor
  (``DeltaSpec.try_conv1(4)``), which captures the smooth part of the source term. pcodec 1.1.0's conv1
  delta panics (a Rust ``PanicException``, a ``BaseException``) on some int32 streams just over 2¹⁸ values,
  e.g. every 1022² source term of a 1024² block. We ask for one page per chunk
  (``PagingSpec.exact_page_sizes``), which avoids most of those lengths, and if the coder still panics we
  fall back to pcodec's default delta (``DeltaSpec.auto()``); a panic there too drops pcodec for that stream
  (``encode_best`` keeps zstd). A panic while *decoding* is reported as a corrupted stream (ValueError).
"""
from __future__ import annotations

import importlib.util

import numpy as np

MAX_ZSTD_CHUNK = 1 << 22   # bytes per read of the streaming zstd decoder: memory grows with real output only
MAX_EXPANSION = 1 << 16    # decoded bytes a stream may claim per coded byte (zstd's own format allows ~32768)
EXPANSION_SLACK = 1 << 12  # plus this many decoded bytes, for short streams (a frame header dominates them)


class CoderPanic(RuntimeError):
    """The pcodec coder panicked (a Rust panic turned into a ``BaseException`` by pyo3)."""


def _call_pcodec(fn, *args):
    """Run a pcodec call; turn a Rust panic (BaseException, not Exception) into :class:`CoderPanic`."""
    try:
        return fn(*args)
    except (KeyboardInterrupt, SystemExit, GeneratorExit):
        raise
    except Exception:
        raise
    except BaseException as err:           # pyo3_runtime.PanicException
        raise CoderPanic(f"pcodec panicked: {err}") from err

CODEC_IDS = {"raw": 0, "zstd": 1, "pcodec": 2}
CODEC_NAMES = {v: k for k, v in CODEC_IDS.items()}
BACKENDS = ("auto", "zstd", "pcodec")


def pcodec_available() -> bool:
    """True when the optional ``pcodec`` package imports."""
    return importlib.util.find_spec("pcodec") is not None


def _zstd():
    try:
        import zstandard
    except ImportError as err:  # pragma: no cover - zstandard is a dependency of the package
        raise ImportError("neurips24.melloc needs the 'zstandard' package (pip install zstandard)") from err
    return zstandard


def _shuffle(x: np.ndarray) -> bytes:
    return np.ascontiguousarray(x.view(np.uint8).reshape(-1, x.dtype.itemsize).T).tobytes()


def _unshuffle(raw: bytes, dtype, count: int) -> np.ndarray:
    dtype = np.dtype(dtype)
    return np.ascontiguousarray(np.frombuffer(raw, np.uint8).reshape(dtype.itemsize, count).T).view(dtype).ravel()


def _zigzag(x: np.ndarray) -> np.ndarray:
    bits = 8 * x.dtype.itemsize
    u = np.dtype(f"u{x.dtype.itemsize}")
    return ((x << 1) ^ (x >> (bits - 1))).view(u)


def _unzigzag(z: np.ndarray, dtype) -> np.ndarray:
    one = z.dtype.type(1)
    return ((z >> one) ^ (-(z & one).view(np.dtype(dtype)).view(z.dtype))).view(np.dtype(dtype))


def encode(x: np.ndarray, codec: str, level: int = 3) -> bytes:
    """Encode a 1-D array (int32/int64/uint*/float32/float64) with ``codec`` ('raw', 'zstd', 'pcodec')."""
    x = np.ascontiguousarray(x).ravel()
    if codec == "raw":
        return x.tobytes()
    if codec == "zstd":
        data = _zigzag(x) if x.dtype.kind == "i" else x
        return _zstd().ZstdCompressor(level=level).compress(_shuffle(data))
    if codec == "pcodec":
        from pcodec import ChunkConfig, DeltaSpec, PagingSpec, standalone

        if x.dtype == np.int32 and x.size:
            try:
                cfg = ChunkConfig(delta_spec=DeltaSpec.try_conv1(4), paging_spec=PagingSpec.exact_page_sizes([x.size]))
                return _call_pcodec(standalone.simple_compress, x, cfg)
            except CoderPanic:
                pass                        # pcodec 1.1.0 conv1 bug: fall back to the default delta
        return _call_pcodec(standalone.simple_compress, x, ChunkConfig())
    raise ValueError(f"codec must be one of {tuple(CODEC_IDS)}, got {codec!r}")


def _zstd_bounded(raw: bytes, nbytes: int) -> bytes:
    """Decompress a zstd frame that must hold exactly ``nbytes``, allocating only as real output appears.

    The frame's own content-size field is not trusted (a crafted one would make a one-shot decoder allocate
    it); output is read in chunks and the stream is refused as soon as it runs past ``nbytes``.
    """
    zstandard = _zstd()
    declared = zstandard.frame_content_size(raw)
    if declared >= 0 and declared != nbytes:
        raise ValueError(f"zstd frame declares {declared} bytes, the block needs {nbytes}")
    parts, total = [], 0
    with zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=False) as reader:
        while True:
            chunk = reader.read(min(MAX_ZSTD_CHUNK, nbytes - total + 1))
            if not chunk:
                break
            total += len(chunk)
            if total > nbytes:
                raise ValueError(f"zstd stream holds more than the {nbytes} bytes the block needs")
            parts.append(chunk)
    if total != nbytes:
        raise ValueError(f"zstd stream holds {total} bytes, the block needs {nbytes}")
    return b"".join(parts)


def decode(raw: bytes, codec: str, dtype, count: int) -> np.ndarray:
    """Inverse of :func:`encode`: a 1-D array of ``count`` values of ``dtype``.

    Raises
    ------
    ValueError if the stream does not decode to ``count`` values (a corrupted container).
    """
    dtype = np.dtype(dtype)
    try:
        if codec == "raw":
            out = np.frombuffer(raw, dtype).copy()
        elif codec == "zstd":
            data = _zstd_bounded(raw, count * dtype.itemsize)
            if dtype.kind == "i":
                out = _unzigzag(_unshuffle(data, f"u{dtype.itemsize}", count), dtype)
            else:
                out = _unshuffle(data, dtype, count)
        elif codec == "pcodec":
            if not pcodec_available():
                raise ImportError("this blob was written with the pcodec backend; pip install pcodec to read it")
            from pcodec import standalone

            out = np.asarray(_call_pcodec(standalone.simple_decompress, raw))
        else:
            raise ValueError(f"unknown codec {codec!r}")
    except ImportError:
        raise
    except (Exception, CoderPanic) as err:
        raise ValueError(f"corrupted {codec} stream: {err}") from err
    if out.dtype != dtype or out.size != count:
        raise ValueError(f"corrupted {codec} stream: expected {count} values of {dtype}, got {out.size} of {out.dtype}")
    return out


def candidates(backend: str) -> tuple[str, ...]:
    """The codecs a backend choice tries: 'auto' → zstd and (when installed) pcodec, keeping the smaller.

    Raises
    ------
    ValueError for an unknown backend; ImportError for 'pcodec' when it is not installed.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "pcodec" and not pcodec_available():
        raise ImportError("backend='pcodec' needs the optional 'pcodec' package (pip install pcodec)")
    if backend == "auto":
        return ("zstd", "pcodec") if pcodec_available() else ("zstd",)
    return (backend,)


def max_decoded_bytes(length: int) -> int:
    """The most decoded bytes a stream of ``length`` coded bytes may claim: ``MAX_EXPANSION · length + slack``.

    The decoder refuses a stream that claims more (``codec._decode_block``), so the work and memory a container
    can ask for are bounded by its size; the encoder never writes such a stream (:func:`encode_best`). zstd's
    format cannot exceed about 32768 (an RLE block: 4 bytes for 128 KiB); pcodec can (67 bytes for 2²⁴ zeros).
    """
    return MAX_EXPANSION * int(length) + EXPANSION_SLACK


def encode_best(x: np.ndarray, backend: str, level: int = 3) -> tuple[str, bytes]:
    """Encode with every codec of ``backend`` and keep the shortest: (codec name, bytes).

    A coding that expands by more than :func:`max_decoded_bytes` allows (pcodec on a constant stream) is not
    kept; if no candidate is left (never with zstd), the values are stored raw.
    """
    x = np.ascontiguousarray(x).ravel()
    best = None
    for codec in candidates(backend):
        try:
            raw = encode(x, codec, level)
        except CoderPanic:
            continue                          # pcodec could not code this stream; zstd always can
        if x.nbytes > max_decoded_bytes(len(raw)):
            continue                          # the decoder would refuse it as a decompression bomb
        if best is None or len(raw) < len(best[1]):
            best = (codec, raw)
    return best if best is not None else ("raw", encode(x, "raw"))
