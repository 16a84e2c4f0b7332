"""The chapter's reproduction checks (Makkuva et al. 2024, §4 and Fig. 4), ready for ``claims.check``.

:func:`portrait_checks` (experiment A: the reduced model's flow against its energy basins) and
:func:`transformer_checks` (experiments B and C: counts of seeds that reach the bigram loss) turn the results
into keyword arguments of :func:`neurips24.claims.check`, so the notebook's check cells and the planted-bug tests
(``tests/mutants``) run the same rules. "Most seeds" means that the Wilson interval of the count
(:func:`neurips24.claims.binomial_interval`, SciPy) lies above one half.
"""
from __future__ import annotations

import numpy as np

from ..claims import binomial_interval
from .experiment import REACHED
from .reduced import predict_basin

AGREE = 0.9
"""Fraction of grid points outside the band on which the basin predictor must agree with the flow."""

FIG4 = "p = 0.5, q = 0.8: standard init -> unigram loss, our init -> bigram loss"


def most(count: dict) -> bool:
    """True when the Wilson interval of ``count`` = {'k', 'n'} lies above one half."""
    return binomial_interval(count["k"], count["n"]).low > 0.5


def portrait_checks(portraits) -> dict:
    """{claim_id: check kwargs} for the two claims on the reduced model (experiment A): the basin predictor
    (control: the other regime's basins against the same flows) and the small initialisation (control: the same
    start at p + q < 1). ``portraits`` : two :class:`~neurips24.markov.experiment.Portrait`, p + q > 1 first.

    Raises
    ------
    ValueError unless the first portrait has p + q > 1 and the second p + q < 1.
    """
    if len(portraits) < 2 or not (portraits[0].p + portraits[0].q > 1 > portraits[1].p + portraits[1].q):
        raise ValueError("portraits must start with one at p + q > 1 and one at p + q < 1")
    pair = portraits[:2]
    agree = {f"({r.p}, {r.q})": round(r.agreement(), 4) for r in pair}
    swapped = {f"({a.p}, {a.q}) flow vs ({b.p}, {b.q}) basins": round(float(np.mean((predict_basin(
        *np.meshgrid(a.e, a.w, indexing="ij"), b.p, b.q) == a.reached_global)[a.outside_band])), 4)
        for a, b in zip(pair, pair[::-1], strict=True)}
    ends = {f"({r.p}, {r.q})": bool(not r.reached_global[len(r.e) // 2, len(r.w) // 2]) for r in pair}
    high, low = pair
    return {
        "markov.basin_predictor": dict(
            claim=f"the energy basins predict where the reduced flow ends on >= {AGREE:.0%} of grid points outside "
                  "|E - E_sep| < 0.1, for p + q > 1 and p + q < 1",
            measured=agree, test=lambda m: min(m.values()) >= AGREE,
            control={"name": "the other regime's basins against the same flows", "measured": swapped},
            paper="basins I* / I_min bounded by the separatrix E = -(1 + log 2)/2", paper_source="§4, Fig. 1"),
        "markov.small_init": dict(
            claim="from next to the origin the reduced flow ends at the unigram loss when p + q > 1",
            measured=ends[f"({high.p}, {high.q})"], test=bool,
            control={"name": f"the same start at p + q < 1, ({low.p}, {low.q})",
                     "measured": ends[f"({low.p}, {low.q})"]},
            paper="small initialisation -> local minimum iff p + q > 1", paper_source="abstract, Fig. 1"),
    }


def reached(progress) -> np.ndarray:
    """Runs that reached the bigram loss: closed at least :data:`REACHED` of the unigram-to-bigram gap."""
    return np.asarray(progress) >= REACHED


def stayed(progress) -> np.ndarray:
    """Runs that did not reach the bigram loss (closed less than :data:`REACHED` of the gap)."""
    return ~reached(progress)


def _count(result, init, rule) -> tuple[dict, dict]:
    sel = result.select(init)
    prog = result.progress()[sel]
    seeds = np.asarray(result.seeds)[sel]
    return ({"k": int(np.sum(rule(prog))), "n": int(prog.size)},
            {int(s): round(float(p), 3) for s, p in zip(seeds, prog, strict=True)})


def transformer_checks(results: dict, expect: dict | None = None, tried: dict | None = None) -> dict:
    """{claim_id: check kwargs} for the four transformer claims (experiments B and C): counts of seeds, per-seed
    fraction of the gap closed, Wilson interval, control on the other initialisation or model.

    Parameters
    ----------
    results : {'simple': TrainResult, 'llm': TrainResult} from :func:`~neurips24.markov.experiment.run_transformers`.
    expect : optional {claim_id: expectation} overriding 'holds'.   tried : {claim_id: what was run} for those.
    """
    expect, tried = expect or {}, tried or {}
    rows = [
        ("markov.paper_init_reaches_bigram", "paper's model: the paper's init reaches the bigram loss (>= "
         f"{REACHED:.0%} of the gap closed) on most seeds", "simple", "good", reached,
         ("the standard init, same model", "simple", "standard")),
        ("markov.standard_init_at_unigram", "paper's model: the standard init does not reach the bigram loss on "
         "most seeds", "simple", "standard", stayed, ("the paper's init, same model", "simple", "good")),
        ("markov.layernorm_standard_escapes", "LayerNorm + GELU model: the standard init reaches the bigram loss "
         "on most seeds", "llm", "standard", reached, ("the standard init on the paper's model", "simple", "standard")),
        ("markov.layernorm_neutralises_paper_init", "LayerNorm + GELU model: the paper's init does not reach the "
         "bigram loss on most seeds", "llm", "good", stayed,
         ("the paper's init on the paper's model", "simple", "good")),
    ]
    out = {}
    for cid, claim, name, init, rule, (cname, cexp, cinit) in rows:
        m, per_seed = _count(results[name], init, rule)
        kw = dict(claim=claim, measured=m, test=most, per_seed=per_seed,
                  control={"name": cname, "measured": _count(results[cexp], cinit, rule)[0]},
                  interval=binomial_interval(m["k"], m["n"]),
                  paper=FIG4 if name == "simple" else "not in the paper: why its init needs the LayerNorm-free model",
                  paper_source="Fig. 4 (Markov-Simple/figures/loss.py)" if name == "simple" else None)
        if cid in expect:
            kw["expect"] = expect[cid]
            if cid in tried:
                kw["tried"] = tried[cid]
        out[cid] = kw
    return out
