"""Iterative tasks and the official token layout, against hand-worked cases (Cabannes et al. 2024, §2)."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24.iteration_heads import tasks

EOI, EOS = tasks.TOKENS["EoI"], tasks.TOKENS["EoS"]


def test_states_by_hand():
    # polynomial: s1 = 3, s2 = 3*4+1 = 13 = 2 (mod 11), s3 = 2*5+1 = 11 = 0, s4 = 0*7+1 = 1
    np.testing.assert_array_equal(tasks.states("polynomial", [[3, 4, 5, 7]]), [[3, 2, 0, 1]])
    np.testing.assert_array_equal(tasks.states("parity", [[1, 0, 1, 1]]), [[1, 1, 0, 1]])
    np.testing.assert_array_equal(tasks.states("copy", [[1, 0, 0, 1]]), [[1, 0, 0, 1]])


def test_states_against_a_python_loop():
    rng = np.random.default_rng(3)
    x = rng.integers(1, 11, size=(50, 9))
    ref = []
    for row in x:
        s, out = None, []
        for t, xt in enumerate(row):
            s = int(xt) if t == 0 else (s * int(xt) + 1) % 11
            out.append(s)
        ref.append(out)
    np.testing.assert_array_equal(tasks.states("polynomial", x), ref)


def test_layout_with_and_without_cot():
    x = np.array([[3, 4, 5]])
    cot = tasks.encode("polynomial", x, cot=True, L_max=4)
    # [task, x1 x2 x3, EoI, s1 s2 s3, EoS ...] padded to 2*4+3 = 11
    np.testing.assert_array_equal(cot[0], [58, 3, 4, 5, EOI, 3, 2, 0, EOS, EOS, EOS])
    nocot = tasks.encode("polynomial", x, cot=False, L_max=4)
    np.testing.assert_array_equal(nocot[0], [58, 3, 4, 5, EOI, 0, EOS, EOS, EOS, EOS, EOS])
    assert tasks.encode("parity", [[1]], cot=True).tolist() == [[59, 1, EOI, 1, EOS]]
    assert tasks.width(16) == 35 and tasks.VOCAB == 64


def test_cot_mask_is_strictly_after_eoi():
    seq = torch.tensor(tasks.encode("polynomial", np.array([[3, 4]]), L_max=3))      # width 9
    targets = seq[:, 1:]                 # [3, 4, EoI, s1, s2, EoS, EoS, EoS]
    assert tasks.cot_mask(targets).tolist() == [[False, False, False, True, True, True, True, True]]


def test_dataset_is_deduplicated_split_and_ordered():
    ds = tasks.make_dataset("polynomial", 4, 64, cot=True, seed=1)
    # L = 1: all 10 inputs (5 / 5), L = 2: 64 of 100, L = 3, 4: 64 each, split in half
    assert len(ds.train) + len(ds.test) == 10 + 3 * 64
    assert torch.all(ds.train_len[1:] >= ds.train_len[:-1])
    train = {tuple(r) for r in ds.train.tolist()}
    assert not train & {tuple(r) for r in ds.test.tolist()}
    assert len(train) == len(ds.train)
    for seqs, lens in ((ds.train, ds.train_len), (ds.test, ds.test_len)):
        for row, L in zip(seqs.tolist(), lens.tolist(), strict=True):
            assert row[L + 1] == EOI and row[1 + L:].count(EOI) == 1
            np.testing.assert_array_equal(row[L + 2:2 * L + 2], tasks.states("polynomial", [row[1:L + 1]])[0])
    parity = tasks.make_dataset("parity", 3, 64, cot=True, seed=0)
    assert len(parity.train) + len(parity.test) == 2 + 4 + 8                 # every binary input, once


def test_bad_inputs_name_the_argument():
    with pytest.raises(ValueError, match="task"):
        tasks.states("sorting", [[1]])
    with pytest.raises(ValueError, match="alphabet"):
        tasks.states("polynomial", [[0, 3]])            # 0 is not in {1, ..., 10}
    with pytest.raises(ValueError, match="alphabet"):
        tasks.states("parity", [[2]])
    with pytest.raises(TypeError, match="integers"):
        tasks.states("parity", [[0.5]])
    with pytest.raises(ValueError, match="shape"):
        tasks.states("parity", [1, 0])
    with pytest.raises(ValueError, match="L_max"):
        tasks.make_dataset("parity", 0, 16)
    with pytest.raises(ValueError, match="L_max"):
        tasks.encode("parity", [[1, 0, 1]], L_max=2)
    with pytest.raises(ValueError, match="n_per_len"):
        tasks.make_dataset("parity", 3, 1)
    with pytest.raises(ValueError, match="train_fraction"):
        tasks.make_dataset("parity", 3, 8, train_fraction=1.0)
    with pytest.raises(ValueError, match="task"):
        tasks.make_dataset("addition", 3, 8)
