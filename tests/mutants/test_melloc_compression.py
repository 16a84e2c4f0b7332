"""Planted bugs in the MeLLoC chapter (neurips24.melloc): each must make one of the chapter's claims fail.

The claims run at a small size: the damage check on the 96² mechanism-coded Poisson field with 60 flips per seed,
three seeds, and the template learning at 192² in float64 on the seven operators, three seeds (the rules of
``melloc.reproduction``).
"""
from __future__ import annotations

import numpy as np
import pytest

from neurips24 import seeding
from neurips24.melloc import codec, experiment, reproduction, stencil

from .harness import assert_caught, outcomes

CHAPTER = "melloc_compression"


def run_small() -> dict:
    damage = experiment.damage_check(seeding.seeds(3), n_flips=60, n=96)
    rec = experiment.stencil_recovery("fast", dtypes=("float64",), n=192)
    side = 192
    return outcomes({"melloc.damage_refused": reproduction.damage_refused(damage),
                     "melloc.stencil_learning": reproduction.stencil_learning(rec, side),
                     "melloc.stencil_recovery": reproduction.stencil_recovery(rec, "float64", side, "small run")})


@pytest.fixture(scope="module")
def base():
    return run_small()


def test_digest_switched_off(monkeypatch, base):
    monkeypatch.setattr(codec, "digest", lambda u, kind=0: bytes(16))
    assert_caught(CHAPTER, "digest_off", "the content digest switched off (a constant written and compared)",
                  run_small(), base)


def test_search_never_steps(monkeypatch, base):
    real = stencil.learn_stencil
    monkeypatch.setattr(experiment, "learn_stencil", lambda q, **kw: real(q, **{**kw, "max_steps": 0}))
    assert_caught(CHAPTER, "search_never_steps", "the template search returns its start (no step is taken)",
                  run_small(), base)


def test_coded_size_of_the_field_not_the_residual(monkeypatch, base):
    from neurips24.melloc.backends import encode_best

    def field_size(q, stencil_, backend="zstd", level=3):
        q = np.asarray(q)
        return len(encode_best(q[1:-1, 1:-1].astype(np.int64).ravel(), backend, level)[1])   # K q dropped

    monkeypatch.setattr(stencil, "coded_size", field_size)
    assert_caught(CHAPTER, "coded_size_of_q", "the search codes the field's interior instead of its source term K q",
                  run_small(), base)
