"""The training data recipe of the shared small VLM (:mod:`neurips24.assets.tinyvlm`): which image, which
instruction, which answer, example by example, seeded (book's own).

Two sources, as LLaVA's stage-1 data mixes image-caption pairs of many kinds:

* **MNIST captions** - real digits from :func:`neurips24.assets.mnist_5k`, training split of :func:`mnist_split`,
  with the digit class drawn from a Zipf (long-tailed) law, :func:`zipf_class_probabilities`: VLM training data
  mentions a few classes often and most rarely (Zhang et al., NeurIPS 2024, Sec. 4, Fig. 3).
  Captions: ``"a handwritten seven."`` and two rewordings.
* **shape captions** - rendered shapes of :func:`neurips24.assets.shapes.render_shapes` with all attributes
  uniform: ``"a big red circle on the left."``.

The ``balanced`` variant adds **classification-format** examples (the question
``"What type of object is in this photo?"`` answered by the class name alone) with classes drawn uniformly: the
paper's fix (Sec. 5, "data") in miniature.

The ``zipf_question`` variant makes the same replacement with classes drawn from the captions' Zipf law: the
question format without the class balance, the control that separates the two changes of ``balanced``.

Every example is (source, image index, instruction, answer), drawn from its own seeded generator, so the stream
is prefix-stable and a chapter can recount exactly what a projector saw (:func:`seen_examples`; the two shipped
projectors were trained on the earlier, whole-stream draw, :func:`legacy_training_examples`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DIGIT_NAMES = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
TEST_PER_CLASS = 100
ZIPF_EXPONENT = 2.0
ZIPF_SEED = 2024
SHAPE_POOL = 4000          # rendered shapes in the training pool (render_shapes(SHAPE_POOL, seed=SHAPE_SEED))
SHAPE_SEED = 1
MNIST_SHARE = 0.5          # share of MNIST captions among caption examples (the rest: shapes)
CLASSIFY_SHARE = 1 / 3     # share of classification-format examples in the 'balanced' variant
VARIANTS = ("captions", "balanced", "zipf_question")
# No instruction before a caption: on 2 shared CPU cores every token of the frozen LM's forward and backward
# counts (LLaVA's stage 1 prepends a "describe briefly" instruction; here the caption follows the image directly).
CAPTION_INSTRUCTIONS = ("",)
DIGIT_CAPTIONS = ("a handwritten {}.", "the digit {}.", "the number {}.")
CLASSIFY_QUESTION = "What type of object is in this photo?"   # the paper's open-world question


@dataclass
class Example:
    """One training example.

    Attributes
    ----------
    source : 'mnist' (a caption of a digit), 'shape' (a caption of a rendered shape) or 'classify' (a digit in
        classification format).
    index : row of the image in ``mnist_5k()`` (sources 'mnist', 'classify') or in the shape pool.
    instruction : the text before the answer.
    answer : the target text (the loss is taken on it).
    label : the digit 0..9, or -1 for a shape.
    """

    source: str
    index: int
    instruction: str
    answer: str
    label: int


def mnist_split(y: np.ndarray, test_per_class: int = TEST_PER_CLASS, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Seeded split of the 5,000 MNIST digits into a training pool and a class-balanced test set.

    Parameters
    ----------
    y : (N,) int labels 0..9 (from ``mnist_5k()``).
    test_per_class : test images per class, >= 1 and below the smallest class size.
    seed : seed of ``numpy.random.default_rng``.

    Returns
    -------
    train, test : sorted int64 row indices; ``test`` has ``test_per_class`` rows of each class.

    Raises
    ------
    ValueError if ``y`` is not 1-D with labels 0..9 or ``test_per_class`` is out of range.
    """
    y = np.asarray(y)
    if y.ndim != 1 or y.size == 0 or y.min() < 0 or y.max() > 9:
        raise ValueError(f"y must be a non-empty 1-D array of digits 0..9, got shape {y.shape}")
    counts = np.bincount(y, minlength=10)
    if not 1 <= test_per_class < counts.min():
        raise ValueError(f"test_per_class must be in 1..{counts.min() - 1}, got {test_per_class}")
    rng = np.random.default_rng(seed)
    test = np.concatenate([rng.choice(np.flatnonzero(y == c), test_per_class, replace=False) for c in range(10)])
    train = np.setdiff1d(np.arange(y.size), test)
    return train.astype(np.int64), np.sort(test).astype(np.int64)


def zipf_class_probabilities(n_classes: int = 10, exponent: float = ZIPF_EXPONENT,
                             seed: int = ZIPF_SEED) -> np.ndarray:
    """Long-tailed class probabilities: p(rank r) proportional to r^-exponent, ranks assigned to classes by a seeded
    permutation (so the head class is not digit 0).

    Returns
    -------
    (n_classes,) float64 probabilities, summing to 1, indexed by class.

    Raises
    ------
    ValueError if ``n_classes`` < 2 or ``exponent`` < 0 or not finite.
    """
    if n_classes < 2:
        raise ValueError(f"n_classes must be >= 2, got {n_classes}")
    if not (np.isfinite(exponent) and exponent >= 0):
        raise ValueError(f"exponent must be finite and >= 0, got {exponent!r}")
    by_rank = np.arange(1, n_classes + 1, dtype=np.float64) ** -float(exponent)
    ranks = np.random.default_rng(seed).permutation(n_classes)   # class c has rank ranks[c]
    p = by_rank[ranks]
    return p / p.sum()


def _check_stream(n, variant: str) -> None:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")


def training_examples(n: int, y: np.ndarray, variant: str = "captions", seed: int = 0) -> list[Example]:
    """The first ``n`` training examples of the projector, deterministically and **prefix-stable**: example i
    is drawn from its own generator ``default_rng([seed, i])``, so ``training_examples(m)[:n]`` equals
    ``training_examples(n)`` for any m >= n and a chapter can recount exactly what a run of any length saw.

    Parameters
    ----------
    n : number of examples (steps x batch size), >= 1.
    y : (5000,) MNIST labels (``mnist_5k()[1]``); the training pool is ``mnist_split(y)[0]``.
    variant : 'captions' (MNIST + shape captions), 'balanced' (the same stream with a share
        :data:`CLASSIFY_SHARE` of examples replaced by class-balanced classification-format digits) or
        'zipf_question' (the same replacement in classification format, with classes drawn from the captions'
        Zipf law: the control that changes the format but not the class balance).
    seed : seed of the stream (>= 0).

    Returns
    -------
    list of :class:`Example`, length n. The caption examples are the same in every variant.

    Raises
    ------
    ValueError for n < 1, a negative seed or an unknown variant.
    """
    _check_stream(n, variant)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
    y = np.asarray(y)
    train, _ = mnist_split(y)
    pools = [train[y[train] == c] for c in range(10)]
    p = zipf_class_probabilities()
    examples = []
    for i in range(int(n)):
        rng = np.random.default_rng([int(seed), i])      # example i's own draws: the stream is prefix-stable
        u_source, u_pick, u_format, u_classify_pick = rng.random(4)
        caption_class, question_class = rng.choice(10, size=2, p=p)
        uniform_class = int(rng.integers(0, 10))
        template, shape_index = int(rng.integers(0, len(DIGIT_CAPTIONS))), int(rng.integers(0, SHAPE_POOL))
        if variant != "captions" and u_format < CLASSIFY_SHARE:
            c = uniform_class if variant == "balanced" else int(question_class)
            idx = int(pools[c][int(u_classify_pick * len(pools[c]))])
            examples.append(Example("classify", idx, CLASSIFY_QUESTION, f"{DIGIT_NAMES[c]}.", c))
        elif u_source < MNIST_SHARE:
            c = int(caption_class)
            idx = int(pools[c][int(u_pick * len(pools[c]))])
            examples.append(Example("mnist", idx, CAPTION_INSTRUCTIONS[0],
                                    DIGIT_CAPTIONS[template].format(DIGIT_NAMES[c]), c))
        else:
            examples.append(Example("shape", shape_index, CAPTION_INSTRUCTIONS[0], "", -1))
    return examples


LEGACY_STREAM_STEPS = 5000   # scripts/train_projector.py's default --steps when the shipped projectors were made


def legacy_training_examples(n_drawn: int, y: np.ndarray, variant: str = "captions",
                             seed: int = 0) -> list[Example]:
    """The stream the two shipped projectors were trained on (before :func:`training_examples` became prefix-
    stable): every draw was made for the whole stream at once, ``n_drawn = steps x batch`` examples
    (``--steps`` 5000, :data:`LEGACY_STREAM_STEPS`, x ``--batch`` 8 in their recorded commands), so the
    examples a run saw are ``legacy_training_examples(n_drawn)[:meta['examples']]`` and a shorter draw gives
    *other* examples. Kept only to recount what the shipped projectors saw (:func:`seen_examples`).

    Raises
    ------
    ValueError for n_drawn < 1 or a variant other than 'captions' and 'balanced'.
    """
    _check_stream(n_drawn, variant)
    if variant == "zipf_question":
        raise ValueError("variant must be 'captions' or 'balanced' for the legacy stream, got 'zipf_question'")
    n = int(n_drawn)
    y = np.asarray(y)
    train, _ = mnist_split(y)
    pools = [train[y[train] == c] for c in range(10)]
    p = zipf_class_probabilities()
    rng = np.random.default_rng(seed)
    is_mnist = rng.random(n) < MNIST_SHARE
    digit = rng.choice(10, size=n, p=p)
    pick = rng.random(n)
    shape_index = rng.integers(0, SHAPE_POOL, size=n)
    instr = rng.integers(0, len(CAPTION_INSTRUCTIONS), size=n)
    template = rng.integers(0, len(DIGIT_CAPTIONS), size=n)
    extra = np.random.default_rng([seed, 1])
    classify = extra.random(n) < CLASSIFY_SHARE
    balanced_digit = extra.integers(0, 10, size=n)
    balanced_pick = extra.random(n)
    examples = []
    for i in range(n):
        if variant == "balanced" and classify[i]:
            c = int(balanced_digit[i])
            idx = int(pools[c][int(balanced_pick[i] * len(pools[c]))])
            examples.append(Example("classify", idx, CLASSIFY_QUESTION, f"{DIGIT_NAMES[c]}.", c))
        elif is_mnist[i]:
            c = int(digit[i])
            idx = int(pools[c][int(pick[i] * len(pools[c]))])
            examples.append(Example("mnist", idx, CAPTION_INSTRUCTIONS[instr[i]],
                                    DIGIT_CAPTIONS[template[i]].format(DIGIT_NAMES[c]), c))
        else:
            examples.append(Example("shape", int(shape_index[i]), CAPTION_INSTRUCTIONS[instr[i]], "", -1))
    return examples


def seen_examples(meta: dict, y: np.ndarray) -> list[Example]:
    """Exactly the examples a trained projector saw, from its file's metadata (``tinyvlm.load_projector``).

    A projector trained on the prefix-stable stream records ``meta['stream'] == 'per-example'``: its examples
    are ``training_examples(meta['examples'], y, variant, seed)``. The shipped projectors predate it (no
    'stream' entry): their examples are the first ``meta['examples']`` of the legacy stream drawn for
    ``--steps x --batch`` examples (:func:`legacy_training_examples`).

    Raises
    ------
    ValueError if ``meta`` lacks 'variant', 'seed', 'examples' or 'batch'.
    """
    missing = [k for k in ("variant", "seed", "examples", "batch") if k not in meta]
    if missing:
        raise ValueError(f"meta must record {missing} (a projector file written by scripts/train_projector.py)")
    n, variant, seed = int(meta["examples"]), meta["variant"], int(meta["seed"])
    if meta.get("stream") == "per-example":
        return training_examples(n, y, variant, seed)
    command = str(meta.get("command", "")).split()
    steps = int(command[command.index("--steps") + 1]) if "--steps" in command else LEGACY_STREAM_STEPS
    return legacy_training_examples(steps * int(meta["batch"]), y, variant, seed)[:n]


def shape_pool():
    """The training pool of rendered shapes: ``render_shapes(SHAPE_POOL, seed=SHAPE_SEED)`` (64 x 64 RGB)."""
    from .shapes import render_shapes

    return render_shapes(SHAPE_POOL, seed=SHAPE_SEED)


def fill_shape_answers(examples: list[Example], pool) -> list[Example]:
    """Set the answer of every 'shape' example to its image's caption in ``pool`` (a ShapeSet); returns the list."""
    for ex in examples:
        if ex.source == "shape":
            ex.answer = pool.captions[ex.index]
    return examples
