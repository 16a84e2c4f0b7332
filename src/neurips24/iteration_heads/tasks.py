"""Iterative tasks s_t = F(s_{t-1}, x_t) and the token layout of the official code (Cabannes et al. 2024, §2;
github.com/facebookresearch/pal, ``src/cot/data/data_processing.py`` and ``src/cot/config.py``).

Three tasks, each an iteration over the inputs x_1 … x_L:

- ``copy``: s_t = x_t, x ∈ {0, 1};
- ``parity``: s_t = s_{t-1} + x_t mod 2 (s_0 = 0), x ∈ {0, 1};
- ``polynomial``: s_1 = x_1, s_t = s_{t-1} · x_t + 1 mod 11, x ∈ {1, …, 10}.

A sequence of length L (the code's layout, 0-based positions)::

    with CoT:     [task, x_1 … x_L, EoI, s_1 … s_L, EoS, EoS …]     position of EoI: L + 1, of s_t: L + 1 + t
    without CoT:  [task, x_1 … x_L, EoI, s_L, EoS, EoS …]

padded with EoS to the common width 2·L_max + 3 (``get_len(L_max) + 1`` in the code). Vocabulary: 64 tokens, the
values 0 … 10 and the special ids of :data:`TOKENS`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..checks import check_count

TOKENS = {"polynomial": 58, "parity": 59, "copy": 60, "BoS": 61, "EoI": 62, "EoS": 63}
"""Special token ids of the official code (``TOKEN_DICT``; the code names the copy task ``binary_copy``)."""
VOCAB = 64
"""Vocabulary size of the official code."""
MOD = 11
"""Modulus of the polynomial iteration (``grid_run_pretrain.py``: ``mod = 11``)."""
TASKS = ("copy", "parity", "polynomial")
ALPHABET = {"copy": (0, 1), "parity": (0, 1), "polynomial": tuple(range(1, MOD))}
"""The values x_t can take in each task."""


def _check_task(task) -> str:
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    return task


def _check_inputs(task: str, x) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim != 2 or x.shape[1] < 1:
        raise ValueError(f"x must have shape (n, L) with L >= 1, got {x.shape}")
    if not np.issubdtype(x.dtype, np.integer):
        raise TypeError(f"x must hold integers, got dtype {x.dtype}")
    low, high = min(ALPHABET[task]), max(ALPHABET[task])
    if x.size and (x.min() < low or x.max() > high):
        raise ValueError(f"x must hold values of the {task} alphabet {{{low}, ..., {high}}}, "
                         f"got values in [{x.min()}, {x.max()}]")
    return x.astype(np.int64)


def states(task: str, x) -> np.ndarray:
    """The chain of thought s_1 … s_L of an iterative task, s_t = F(s_{t-1}, x_t) (paper §2, eq. (1)).

    Parameters
    ----------
    task : 'copy', 'parity' or 'polynomial'.
    x : (n, L) integer array of inputs, each in the task's alphabet (:data:`ALPHABET`).

    Returns
    -------
    (n, L) int64 array s, s[:, t-1] = s_t.

    Raises
    ------
    ValueError for an unknown task, a shape other than (n, L ≥ 1), or a value outside the alphabet;
    TypeError for non-integer x.
    """
    task = _check_task(task)
    x = _check_inputs(task, x)
    if task == "copy":
        return x.copy()
    if task == "parity":
        return np.cumsum(x, axis=1) % 2
    s = x.copy()
    for t in range(1, x.shape[1]):
        s[:, t] = (s[:, t - 1] * x[:, t] + 1) % MOD
    return s


def width(L_max: int) -> int:
    """Common sequence width 2·L_max + 3 for lengths 1 … L_max (code: ``get_len(L_max) + 1``)."""
    return 2 * check_count("L_max", L_max, 1) + 3


def encode(task: str, x, cot: bool = True, L_max: int | None = None) -> np.ndarray:
    """Token sequences of one length L in the official layout (module docstring).

    Parameters
    ----------
    task : 'copy', 'parity' or 'polynomial'.
    x : (n, L) integer inputs in the task's alphabet.
    cot : with the chain of thought s_1 … s_L (True) or only the answer s_L (False).
    L_max : pad to width 2·L_max + 3 (default: L, i.e. width 2L + 3); L_max >= L.

    Returns
    -------
    (n, 2·L_max + 3) int64 array of token ids in [0, 64).

    Raises
    ------
    ValueError as :func:`states`, or if L_max < L.
    """
    s = states(task, x)
    n, L = s.shape
    L_max = L if L_max is None else check_count("L_max", L_max, 1)
    if L_max < L:
        raise ValueError(f"L_max must be >= the sequence length L = {L}, got {L_max}")
    out = np.full((n, width(L_max)), TOKENS["EoS"], dtype=np.int64)
    out[:, 0] = TOKENS[task]
    out[:, 1:L + 1] = x
    out[:, L + 1] = TOKENS["EoI"]
    if cot:
        out[:, L + 2:2 * L + 2] = s
    else:
        out[:, L + 2] = s[:, -1]
    return out


def sample_unique_inputs(task: str, L: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """min(n, |alphabet|^L) *distinct* input sequences of length L, in random order.

    Drawn as distinct integers in [0, |alphabet|^L) (NumPy's ``Generator.choice`` without replacement when the
    space is small, rejection of repeats otherwise) and written in base |alphabet|.

    Returns
    -------
    (min(n, K), L) int64 array, K = |alphabet|^L.

    Raises
    ------
    ValueError for an unknown task, L < 1 or n < 1.
    """
    task = _check_task(task)
    L, n = check_count("L", L, 1), check_count("n", n, 1)
    alphabet = np.asarray(ALPHABET[task])
    K = len(alphabet) ** L
    if K <= 4 * n:
        codes = rng.choice(K, size=min(n, K), replace=False)
    else:
        codes = np.unique(rng.integers(0, K, size=2 * n))
        while len(codes) < n:
            codes = np.unique(np.concatenate([codes, rng.integers(0, K, size=n)]))
        codes = rng.permutation(codes)[:n]
    digits = (codes[:, None] // len(alphabet) ** np.arange(L)[None, :]) % len(alphabet)
    return alphabet[digits]


@dataclass(frozen=True)
class Dataset:
    """A train/test split of one task, for lengths 1 … L_max.

    Attributes
    ----------
    train, test : (N, 2·L_max + 3) int64 tensors of token ids, ordered by length (as the code's ``set_data``).
    train_len, test_len : (N,) int64 tensors, the length L of each sequence.
    task, cot, L_max : what was generated.
    """

    train: torch.Tensor
    test: torch.Tensor
    train_len: torch.Tensor
    test_len: torch.Tensor
    task: str
    cot: bool
    L_max: int


def make_dataset(task: str, L_max: int, n_per_len: int, cot: bool = True, seed: int = 0,
                 train_fraction: float = 0.5) -> Dataset:
    """Train and test sequences of lengths 1 … L_max, split per length and **deduplicated**.

    For each L, min(n_per_len, |alphabet|^L) distinct inputs are drawn and split train/test (fraction
    ``train_fraction`` to train, the code's ``split_probas = 0.5``), so no test sequence is seen in training —
    unlike the official code, which samples with repeats (see the chapter's "vs the paper" table).

    Parameters
    ----------
    task : 'copy', 'parity' or 'polynomial'.
    L_max : longest sequence, >= 1.
    n_per_len : sequences drawn per length, >= 2.
    cot : chain-of-thought layout (True) or answer only (False).
    seed : seeds NumPy's generator, >= 0.
    train_fraction : in (0, 1).

    Returns
    -------
    :class:`Dataset`.

    Raises
    ------
    ValueError for an unknown task, L_max < 1, n_per_len < 2, a negative seed, train_fraction outside (0, 1).
    """
    task = _check_task(task)
    L_max = check_count("L_max", L_max, 1)
    n_per_len = check_count("n_per_len", n_per_len, 2)
    seed = check_count("seed", seed, 0)
    if not isinstance(train_fraction, (float, int)) or not 0 < train_fraction < 1:
        raise ValueError(f"train_fraction must be in (0, 1), got {train_fraction!r}")
    rng = np.random.default_rng(seed)
    parts = {"train": [], "test": []}
    for L in range(1, L_max + 1):
        x = sample_unique_inputs(task, L, n_per_len, rng)
        n_train = max(1, min(len(x) - 1, int(round(train_fraction * len(x)))))
        for name, xs in (("train", x[:n_train]), ("test", x[n_train:])):
            parts[name].append((encode(task, xs, cot, L_max), np.full(len(xs), L)))
    out = {}
    for name, chunks in parts.items():
        out[name] = torch.from_numpy(np.concatenate([c[0] for c in chunks]))
        out[name + "_len"] = torch.from_numpy(np.concatenate([c[1] for c in chunks]).astype(np.int64))
    return Dataset(task=task, cot=bool(cot), L_max=L_max, **out)


def cot_mask(targets: torch.Tensor) -> torch.Tensor:
    """Which targets the loss reads: those **strictly after** the first EoI (code: ``train.py``).

    Parameters
    ----------
    targets : (..., T) int64 tensor, the sequences shifted by one (``sequence[..., 1:]``).

    Returns
    -------
    (..., T) bool tensor: True at s_1 … s_L and at the EoS padding, False up to and including EoI.
    """
    is_eoi = targets == TOKENS["EoI"]
    return (is_eoi.long().cumsum(-1) > 0) & ~is_eoi
