"""The chapter's reproduction checks, each with a control measured through the same code path (CHAPTER.md §7).

``checks(det, rec, sc)`` returns the keyword arguments of :func:`neurips24.claims.check` by claim id, from the
results of ``run_detectability``, ``run_recovery`` and ``run_scaling``; the notebook asserts them and the mutant
tests run them on small runs. The linear-scaling claims are judged over the ``full`` scale's d (up to 256); at
``fast`` they are NOT RUN HERE, with the fast run's exponents and the chapter's full-scale record
(:func:`load_full_record`, ``full/sparse_function_queries.jsonl``) for reference.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from .. import claims
from .experiment import CONFIG, dlq_name

INPUTS = ("gaussian", "boolean")
LINEAR_TOL = 0.25      # linear scaling: the fitted exponent α within 1 ± 0.25
STEM = "sparse_function_queries"
FULL_COMMAND = f'make full CHAPTERS="{STEM}"'   # the notebook at NEURIPS24_SCALE=full, records to full/
FULL_DIR = Path(__file__).resolve().parents[3] / "full"    # the repository's full-scale records


def _chunks(det, name: str) -> np.ndarray:
    """Per Monte Carlo chunk: the Gaussian table's entry of coordinate 1, leading basis function, column ``name``."""
    tab = det.tables["gaussian"]
    return tab.chunk_single[tab.column(name), -1, 0]


def query_checks(det) -> dict:
    """``dlq.csq_blind`` and ``dlq.l1_sees_singles`` from a :class:`~neurips24.dlq.experiment.Detectability`."""
    z, l1_0, sq_0 = det.z_star, dlq_name("l1", 0.0), dlq_name("squared", 0.0)

    def sees(name):
        return {i: {"min |t| on S*": round(float(det.support_singles_t(i, name).min()), 2),
                    "max |t| off S*": round(det.off_support_max_t(i, name), 2),
                    "coordinates detected alone": det.detected_coordinates(i, name)} for i in INPUTS}

    specific = lambda m: all(v["min |t| on S*"] > z and v["max |t| off S*"] < z for v in m.values())  # noqa: E731
    return {
        "dlq.csq_blind": dict(
            claim=f"CSQ (= DLQ with the squared loss) detects no single coordinate and no pair: max |t| < {z:.2f}",
            measured={i: round(det.csq_max_t(i), 2) for i in INPUTS}, test=lambda m: max(m.values()) < z,
            control={"name": "the same CSQ table on U = S* (all three coordinates)",
                     "measured": {i: round(det.support_t(i, "y"), 1) for i in INPUTS}},
            interval=claims.t_interval(_chunks(det, "y")),
            paper="squared loss: DLQ = CSQ (abstract); CSQ Leap = 3 on this target (book's construction)",
            paper_source="abstract"),
        "dlq.l1_sees_singles": dict(
            claim=f"DLQ with the l1 loss at u = 0 detects every relevant coordinate alone (min |t| on S* > {z:.2f}) "
                  f"and nothing outside the support (max |t| over single coordinates and pairs off S* < {z:.2f})",
            measured=sees(l1_0), test=specific,
            control={"name": "the same table for the squared loss", "measured": sees(sq_0)},
            interval=claims.t_interval(_chunks(det, l1_0)),
            paper="l1 loss: DLQ = SQ (abstract)", paper_source="abstract"),
    }


def recovery_checks(rec) -> dict:
    """``dlq.l1_recovers`` and ``dlq.squared_stuck`` from a :class:`~neurips24.dlq.experiment.Recovery`."""
    shares = {loss: {f"d={d}, seed {s}": round(f, 3) for (d, s), f in rec.fractions(loss).items()}
              for loss in ("l1", "squared")}

    def per_seed(loss, pick):
        f = rec.fractions(loss)
        return {int(s): round(pick(f[(d, s)] for d in rec.d_values), 3) for s in rec.seeds}

    top = {loss: rec.runs[(loss, rec.d_values[-1])].final() for loss in ("l1", "squared")}
    return {
        "dlq.l1_recovers": dict(
            claim="online SGD with the l1 loss aligns >= 25 % of the neurons with S*, every d and seed",
            measured=shares["l1"], test=lambda m: min(m.values()) >= 0.25,
            control={"name": "the squared loss, same runs", "measured": shares["squared"]},
            interval=claims.t_interval(top["l1"]), per_seed=per_seed("l1", min),
            paper="absolute loss: SGD learns the support (abstract; p. 8 figure as described)",
            paper_source="abstract; p. 8 figure"),
        "dlq.squared_stuck": dict(
            claim="online SGD with the squared loss aligns <= 10 % of the neurons with S*, every d and seed",
            measured=shares["squared"], test=lambda m: max(m.values()) <= 0.10,
            control={"name": "the l1 loss, same runs", "measured": shares["l1"]},
            interval=claims.t_interval(top["squared"]), per_seed=per_seed("squared", max),
            paper="squared loss: stuck at a saddle (p. 8 figure as described)", paper_source="p. 8 figure"),
    }


def _alpha(sc, case) -> dict:
    a = sc.fitted_exponent(*case)
    inc = sc.doubling_increments(*case)
    pairs = [f"{d1}→{d2}" for d1, d2 in zip(sc.d_values[:-1], sc.d_values[1:], strict=True)]
    fin = a[np.isfinite(a)]
    return {"α (least squares, mean over seeds)": round(float(fin.mean()), 3) if fin.size == a.size else math.inf,
            "d": list(sc.d_values),
            "per-doubling α (mean over seeds)": {p: (round(float(r.mean()), 3) if np.all(np.isfinite(r)) else math.inf)
                                                 for p, r in zip(pairs, inc, strict=True)}}


def load_full_record(folder: Path | str | None = None) -> dict | None:
    """The chapter's full-scale record, written by ``make full`` (:mod:`neurips24.fullscale`).

    Parameters
    ----------
    folder : where ``sparse_function_queries.jsonl`` and ``.meta.json`` lie (default: the repository's ``full/``).

    Returns
    -------
    None when there is no record (e.g. an installed package without the repository); otherwise
    ``{"claims": {claim_id: record dict}, "meta": dict}`` — the meta's ``date_utc``, ``machine``, ``gpu``,
    ``commit``, ``wall_s`` (seconds) and ``error`` (None, or the error that stopped the run).

    Raises
    ------
    ValueError if a line of the record is not JSON.
    """
    folder = FULL_DIR if folder is None else Path(folder)
    path, meta_path = folder / f"{STEM}.jsonl", folder / f"{STEM}.meta.json"
    if not path.is_file():
        return None
    recs = {}
    for k, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if line.strip():
            try:
                r = json.loads(line)
            except json.JSONDecodeError as err:
                raise ValueError(f"{path}: line {k + 1} is not JSON ({err})") from None
            recs[r["claim_id"]] = r
    meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.is_file() else {}
    return {"claims": recs, "meta": meta}


def full_measured(full: dict | None, claim_id: str):
    """What the full-scale record measured for ``claim_id``, with where and when; a sentence when it has none."""
    rec = None if full is None else full["claims"].get(claim_id)
    if rec is None:
        return "not measured at full scale yet"
    meta = full["meta"]
    return {"measured": rec["measured"], "per seed": rec["per_seed"], "holds there": rec["holds"],
            "where": f"{meta.get('gpu') or meta.get('machine', '?')}, {meta.get('date_utc', '?')} UTC, "
                     f"commit {meta.get('commit', '?')}"}


def full_summary(full: dict | None) -> dict[str, str]:
    """The full-scale record's scaling numbers as short strings for the chapter's text (glue values).

    Keys: ``where`` (machine, date, commit), ``wall_s``, ``stopped`` (a clause, empty when the run ended
    normally), ``timing`` (the three in one clause), and per target ``bool`` / ``gauss``: ``{target}_alpha``,
    ``{target}_inc`` (per-doubling α), ``{target}_seeds`` (α per seed), ``{target}_interval``, ``{target}_d``,
    ``{target}_within`` ("within" or "outside 1 ± 0.25"); ``gauss_text``, the Gaussian result in one clause.
    A missing record or claim reads "not measured at full scale yet".
    """
    none = "not measured at full scale yet"
    meta = {} if full is None else full["meta"]
    where = f"{meta.get('gpu') or meta.get('machine', '?')}, {meta.get('date_utc', '?')} UTC, " \
            f"commit {meta.get('commit', '?')}"
    out = {"where": none if full is None else where,
           "wall_s": f"{meta['wall_s']:.0f}" if "wall_s" in meta else "?",
           "stopped": " (that run stopped at a check that raised, before the chapter's last cells)"
           if meta.get("error") else ""}
    out["timing"] = ("has no record in this copy of the book" if full is None or "wall_s" not in meta else
                     f"took {out['wall_s']} s on {where}{out['stopped']}")
    for key, cid in (("bool", "dlq.linear_scaling"), ("gauss", "dlq.linear_scaling_gaussian")):
        rec = None if full is None else full["claims"].get(cid)
        if rec is None:
            out.update({f"{key}_{k}": none for k in ("alpha", "inc", "seeds", "interval", "d", "within")})
            continue
        m, iv = rec["measured"], rec["interval"]
        out[f"{key}_alpha"] = f"{m['α (least squares, mean over seeds)']:.2f}"
        out[f"{key}_inc"] = ", ".join(f"{v:.2f} ({k})" for k, v in m["per-doubling α (mean over seeds)"].items())
        out[f"{key}_seeds"] = ", ".join(f"{v:.2f}" for v in (rec["per_seed"] or {}).values())
        out[f"{key}_interval"] = ("—" if iv is None else f"[{iv['low']:.2f}, {iv['high']:.2f}] "
                                  f"({'95 % ' if iv['level'] else ''}{iv['method']})")
        out[f"{key}_d"] = ", ".join(map(str, m["d"]))
        out[f"{key}_within"] = f"{'within' if rec['holds'] else 'outside'} 1 ± {LINEAR_TOL}"
    g = out["gauss_alpha"]
    out["gauss_text"] = none if g == none else (f"α = {g} over d = {out['gauss_d']} (per seed {out['gauss_seeds']}; "
                                                f"per doubling {out['gauss_inc']})")
    return out


def scaling_checks(sc, tried: str, full: dict | None = None) -> dict:
    """``dlq.linear_scaling`` (±1 target) and ``dlq.linear_scaling_gaussian`` from a
    :class:`~neurips24.dlq.experiment.Scaling`: α by least squares of log T on log d, judged over the ``full``
    scale's d = 32, …, 256 (5 seeds).

    At ``full``: the ±1 target is expected to hold (it did on the chapter's first full-scale run); the Gaussian
    target is expected not to (its signal is quadratic: the chapter's log d argument), and the check decides. At
    any other scale the d range stops below the full scale's, where the ±1 exponent is still falling with each
    doubling of d: both claims are NOT RUN HERE, with this run's exponents and the full-scale record ``full``
    (from :func:`load_full_record`) in ``measured``.

    Returns
    -------
    {claim_id: keyword arguments of :func:`neurips24.claims.check`}.
    """
    linear = lambda m: abs(m["α (least squares, mean over seeds)"] - 1) <= LINEAR_TOL   # noqa: E731
    control = {"name": "the squared loss on the ±1 target (inf: not recovered within 40 d at some d)",
               "measured": _alpha(sc, ("boolean", "squared"))}
    at_full = sc.scale == "full"

    def check(cid, case, label, expect_at_full):
        a = sc.fitted_exponent(*case)
        kw = dict(
            claim=f"l1 loss, {label}: steps to recovery ∝ d^α with |α - 1| <= {LINEAR_TOL} (least squares over "
                  f"d = {', '.join(map(str, CONFIG['full']['scaling_d']))}, the full scale)",
            control=control, interval=claims.t_interval(a) if np.all(np.isfinite(a)) else None,
            per_seed={int(s): float(round(x, 3)) for s, x in zip(sc.seeds, a, strict=True)},
            paper="O(d) iterations with the absolute loss (p. 8 figure as described)", paper_source="p. 8 figure")
        if at_full:
            return dict(kw, measured=_alpha(sc, case), test=linear, expect=expect_at_full,
                        **({"tried": tried} if expect_at_full == "not reproduced" else {}))
        return dict(kw, measured={"this run": _alpha(sc, case), "full scale": full_measured(full, cid)},
                    control=dict(control, holds=bool(linear(control["measured"]))),   # this run's, same rule
                    expect="needs full scale", command=FULL_COMMAND, tried=tried)

    return {"dlq.linear_scaling": check("dlq.linear_scaling", ("boolean", "l1"), "±1 target", "holds"),
            "dlq.linear_scaling_gaussian": check("dlq.linear_scaling_gaussian", ("gaussian", "l1"),
                                                 "Gaussian target", "not reproduced")}


def checks(det, rec, sc, full: dict | None = None) -> dict:
    """Every claim of the chapter, by claim id (see the three functions above); ``full``: the full-scale record
    (:func:`load_full_record`) shown beside the scaling claims at ``fast``."""
    cfg_d = ", ".join(map(str, sc.d_values))
    tried = (f"online SGD of m = 256 ReLU neurons, batch 16, η = 2/d, horizon 40 d steps, d = {cfg_d}, "
             f"{len(sc.seeds)} seeds; the paper's d values, width, batch and step size are not known here")
    return {**query_checks(det), **recovery_checks(rec), **scaling_checks(sc, tried, full)}
