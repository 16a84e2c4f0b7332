"""Rendered shapes with known attributes (shape, colour, size, position) and their captions (book's own).

A seeded NumPy renderer of one coloured shape on a black square, for training and explaining the shared small VLM
(:mod:`neurips24.assets.tinyvlm`): every image comes with the ground truth of its four attributes, so a concept
(e.g. "red", "on the left") can be read off the data, not guessed. The caption names all four attributes,
e.g. ``"a big red circle on the left."`` (the word order of :func:`caption`).

Nothing here uses a library beyond NumPy; images are ``uint8`` RGB like the MNIST digits of
:func:`neurips24.assets.mnist_5k` after :func:`to_rgb`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

SHAPES = ("circle", "square", "triangle", "diamond", "cross")
COLOURS = {  # name -> RGB, 0..255
    "red": (230, 30, 30),
    "green": (30, 200, 40),
    "blue": (40, 70, 240),
    "yellow": (240, 220, 30),
    "purple": (160, 40, 200),
}
SIZES = {"small": 0.14, "big": 0.28}  # half-width of the shape over the image side
POSITIONS = {  # name -> (row, column) of the centre, as a fraction of the image side; phrase in the caption
    "left": (0.5, 0.27),
    "right": (0.5, 0.73),
    "top": (0.27, 0.5),
    "bottom": (0.73, 0.5),
    "middle": (0.5, 0.5),
}
POSITION_PHRASES = {"left": "on the left", "right": "on the right", "top": "at the top", "bottom": "at the bottom",
                    "middle": "in the middle"}
ATTRIBUTES = {"shape": SHAPES, "colour": tuple(COLOURS), "size": tuple(SIZES), "position": tuple(POSITIONS)}


@dataclass
class ShapeSet:
    """Rendered shapes and their ground truth.

    Attributes
    ----------
    images : (N, S, S, 3) uint8 RGB, a black background.
    shape, colour, size, position : (N,) int64, the index of each attribute's value in
        ``ATTRIBUTES[<attribute>]`` (e.g. ``SHAPES[shape[i]]``).
    captions : N strings, e.g. ``"a big red circle on the left."``.
    """

    images: np.ndarray
    shape: np.ndarray
    colour: np.ndarray
    size: np.ndarray
    position: np.ndarray
    captions: list

    def attribute(self, name: str) -> np.ndarray:
        """The (N,) int64 labels of attribute ``name`` ('shape', 'colour', 'size' or 'position')."""
        if name not in ATTRIBUTES:
            raise ValueError(f"name must be one of {sorted(ATTRIBUTES)}, got {name!r}")
        return getattr(self, name)

    def names(self, name: str) -> list:
        """The N value names of attribute ``name``, e.g. ['red', 'blue', ...]."""
        return [ATTRIBUTES[name][k] for k in self.attribute(name)]


def caption(shape: str, colour: str, size: str, position: str) -> str:
    """The caption of one shape: ``"a {size} {colour} {shape} {position phrase}."``.

    Raises
    ------
    ValueError if a value is not in :data:`ATTRIBUTES`.
    """
    for attr, value in (("shape", shape), ("colour", colour), ("size", size), ("position", position)):
        if value not in ATTRIBUTES[attr]:
            raise ValueError(f"{attr} must be one of {ATTRIBUTES[attr]}, got {value!r}")
    return f"a {size} {colour} {shape} {POSITION_PHRASES[position]}."


def _mask(shape: str, rows: np.ndarray, cols: np.ndarray, r0: float, c0: float, half: float) -> np.ndarray:
    """Boolean mask of one shape of half-width ``half`` centred at (r0, c0); coordinates in pixels."""
    dy, dx = (rows - r0) / half, (cols - c0) / half
    if shape == "circle":
        return dx ** 2 + dy ** 2 <= 1.0
    if shape == "square":
        return np.maximum(np.abs(dx), np.abs(dy)) <= 0.85
    if shape == "diamond":
        return np.abs(dx) + np.abs(dy) <= 1.0
    if shape == "cross":
        arm = 0.33
        return ((np.abs(dx) <= 1.0) & (np.abs(dy) <= arm)) | ((np.abs(dy) <= 1.0) & (np.abs(dx) <= arm))
    if shape == "triangle":   # apex up, base at dy = +0.8: inside the three half-planes
        return (dy <= 0.8) & (dy >= -1.0 + 2.0 * np.abs(dx) * 0.9)
    raise ValueError(f"shape must be one of {SHAPES}, got {shape!r}")


def render_shapes(n: int, seed: int = 0, image_size: int = 64, jitter: float = 0.04,
                  noise: float = 8.0, **fixed) -> ShapeSet:
    """Draw ``n`` images, each one shape with attributes drawn uniformly and independently (seeded).

    Every attribute value is drawn uniformly from :data:`ATTRIBUTES` unless fixed by a keyword, e.g.
    ``render_shapes(10, colour="red")``. The centre is jittered by up to ``jitter`` x the side and the half-width
    by up to +-15 %; the colour by Gaussian noise of ``noise`` grey levels per pixel, then clipped to 0..255.

    Parameters
    ----------
    n : number of images, >= 1.
    seed : seed of ``numpy.random.default_rng``; the same seed gives the same images.
    image_size : side S in pixels, 16..512.
    jitter : centre jitter, a fraction of the side in [0, 0.1].
    noise : standard deviation of the pixel noise in grey levels, in [0, 64].
    **fixed : attribute -> value name, to hold an attribute fixed (keys 'shape', 'colour', 'size', 'position').

    Returns
    -------
    :class:`ShapeSet` with (n, S, S, 3) uint8 images, the (n,) int64 attribute indices and n captions.

    Raises
    ------
    ValueError for n < 1, a bad ``image_size``, ``jitter`` or ``noise``, an unknown attribute or value.
    TypeError if n, seed or image_size is not an integer.
    """
    for name, v in (("n", n), ("seed", seed), ("image_size", image_size)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{name} must be an integer, got {v!r}")
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    if not 16 <= image_size <= 512:
        raise ValueError(f"image_size must be in 16..512, got {image_size}")
    if not (np.isfinite(jitter) and 0 <= jitter <= 0.1):
        raise ValueError(f"jitter must be in [0, 0.1], got {jitter!r}")
    if not (np.isfinite(noise) and 0 <= noise <= 64):
        raise ValueError(f"noise must be in [0, 64], got {noise!r}")
    for key, value in fixed.items():
        if key not in ATTRIBUTES:
            raise ValueError(f"fixed attributes must be among {sorted(ATTRIBUTES)}, got {key!r}")
        if value not in ATTRIBUTES[key]:
            raise ValueError(f"{key} must be one of {ATTRIBUTES[key]}, got {value!r}")
    rng = np.random.default_rng(seed)
    labels = {}
    for attr, values in ATTRIBUTES.items():   # drawn in a fixed order so a fixed attribute keeps the others' draws
        draw = rng.integers(0, len(values), size=n)
        labels[attr] = np.full(n, values.index(fixed[attr]), dtype=np.int64) if attr in fixed else draw
    S = int(image_size)
    rows, cols = np.mgrid[0:S, 0:S].astype(np.float64) + 0.5
    images = np.zeros((n, S, S, 3), dtype=np.uint8)
    shift = rng.uniform(-jitter, jitter, size=(n, 2)) * S
    scale = rng.uniform(0.85, 1.15, size=n)
    pixel_noise = rng.normal(0.0, noise, size=(n, 3))
    captions = []
    for i in range(n):
        shp, col, siz, pos = (ATTRIBUTES[a][labels[a][i]] for a in ("shape", "colour", "size", "position"))
        r0, c0 = POSITIONS[pos]
        m = _mask(shp, rows, cols, r0 * S + shift[i, 0], c0 * S + shift[i, 1], SIZES[siz] * S * scale[i])
        rgb = np.clip(np.asarray(COLOURS[col], dtype=np.float64) + pixel_noise[i], 0, 255)
        images[i][m] = rgb.astype(np.uint8)
        captions.append(caption(shp, col, siz, pos))
    return ShapeSet(images=images, shape=labels["shape"], colour=labels["colour"], size=labels["size"],
                    position=labels["position"], captions=captions)


def to_rgb(grey: np.ndarray) -> np.ndarray:
    """Grey images (N, H, W) or (N, H*W) square, uint8 -> (N, H, W, 3) uint8 RGB (the grey copied to 3 channels).

    Raises
    ------
    TypeError if ``grey`` is not uint8. ValueError for another shape (a flat row must be a square number of
    pixels, e.g. MNIST's 784).
    """
    x = np.asarray(grey)
    if x.dtype != np.uint8:
        raise TypeError(f"grey must be uint8, got {x.dtype}")
    if x.ndim == 2:
        side = int(round(np.sqrt(x.shape[1])))
        if side * side != x.shape[1]:
            raise ValueError(f"flat grey images must have a square number of pixels, got {x.shape[1]}")
        x = x.reshape(len(x), side, side)
    if x.ndim != 3 or min(x.shape) < 1:
        raise ValueError(f"grey must be (N, H, W) or (N, H*W), got shape {x.shape}")
    return np.repeat(x[..., None], 3, axis=-1)
