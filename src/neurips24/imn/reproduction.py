"""The chapter's reproduction checks: each claim's measurement, per-seed values, interval and control, ready for
``claims.check`` (the notebook's check cell and the mutant tests run the same rules).

- ``imn.auroc_shipped_sets``: as accurate as the tree ensembles on breast cancer and wine, at ``fast``;
- ``imn.beyond_linear``, ``imn.auroc_nonlinear_set`` and ``imn.auroc_vs_ebm``: at the paper's 500 epochs, which
  do not fit the ``fast`` budget: NOT RUN HERE, judged on the shipped record of ``scripts/imn_paper_budget.py``
  (on the non-linear set the IMN beats the global linear model, control the same gap on breast cancer; as
  accurate as the trees there; at least as accurate as the EBM);
- ``imn.faithful_impacts``: impacts correlate with β ⊙ x (with and without the L1 term).
"""
from __future__ import annotations

import numpy as np

from ..claims import t_interval
from .experiment import TREES, Results

MARGIN_TREE = -0.01      # IMN >= best tree - 0.01
MARGIN_DT = 0.03         # IMN >= decision tree + 0.03
BEYOND_LINEAR = 0.01     # IMN - logistic regression on noisy moons
FAITHFUL = 0.8
PAPER_SOURCE = "Sec. 5, AUROC over 35 data sets"
PAPER_AUROC = "comparable to CatBoost, better than explainable-by-design models"


def _r(x) -> float:
    return float(f"{float(x):.4g}")


def _best_tree(auroc: dict, s: str) -> str:
    return max(TREES, key=lambda m: np.mean(auroc[s][m]))


def margins(auroc: dict, model: str, sets) -> dict:
    """Worst case over ``sets`` of the seed-mean AUROC of ``model`` minus the best tree model's and minus the
    decision tree's (auroc: set -> model -> per-seed list)."""
    return {"vs best tree": _r(min(np.mean(auroc[s][model]) - np.mean(auroc[s][_best_tree(auroc, s)]) for s in sets)),
            "vs decision tree": _r(min(np.mean(auroc[s][model]) - np.mean(auroc[s]["decision tree"]) for s in sets))}


def rule(m: dict) -> bool:
    """The accuracy rule: within 0.01 of the best tree and at least 0.03 above the decision tree."""
    return m["vs best tree"] >= MARGIN_TREE and m["vs decision tree"] >= MARGIN_DT


def _per_seed_margin(auroc: dict, model: str, sets, seeds) -> dict:
    out = {}
    for i, seed in enumerate(seeds):
        out[int(seed)] = {"vs best tree": _r(min(auroc[s][model][i] - auroc[s][_best_tree(auroc, s)][i] for s in sets)),
                          "vs decision tree": _r(min(auroc[s][model][i] - auroc[s]["decision tree"][i] for s in sets))}
    return out


def _gap_interval(auroc: dict, s: str, a: str, b: str):
    return t_interval(np.subtract(auroc[s][a], auroc[s][b]))


def auroc_shipped_sets(res: Results) -> dict:
    sets = [s for s in ("breast_cancer", "wine") if s in res.auroc]
    seeds = res.config["seeds"]
    best = _best_tree(res.auroc, sets[0])
    return dict(
        claim=f"{' and '.join(sets)}: IMN AUROC >= best tree - 0.01 and >= decision tree + 0.03 (seed means, "
              f"worst set; {res.config['epochs']} epochs)",
        measured={**margins(res.auroc, "IMN", sets),
                  "logistic regression, same rule": margins(res.auroc, "logistic regression", sets)},
        test=rule, per_seed=_per_seed_margin(res.auroc, "IMN", sets, seeds),
        interval=_gap_interval(res.auroc, sets[0], "IMN", best),
        control={"name": "the decision tree (explainable by design) through the same rule, same sets",
                 "measured": margins(res.auroc, "decision tree", sets)},
        paper=PAPER_AUROC, paper_source=PAPER_SOURCE)


def beyond_linear(record: dict) -> dict:
    a = record["auroc"]
    gap = np.subtract(a["noisy_moons"]["IMN"], a["noisy_moons"]["logistic regression"])
    control = np.subtract(a["breast_cancer"]["IMN"], a["breast_cancer"]["logistic regression"])
    iv = t_interval(gap)
    return dict(
        claim=f"noisy moons (a curved boundary): IMN AUROC exceeds logistic regression's by > {BEYOND_LINEAR} "
              f"(lower end of the interval over seeds; {record['epochs']} epochs, shipped record)",
        measured={"mean gap": _r(iv.estimate), "lower end": _r(iv.low)},
        test=lambda m: m["lower end"] > BEYOND_LINEAR,
        per_seed={int(s): _r(g) for s, g in zip(record["seeds"], gap, strict=True)}, interval=iv,
        control={"name": "the same gap on breast cancer, a nearly linear set (lower end of its interval)",
                 "measured": {"mean gap": _r(control.mean()), "lower end": _r(t_interval(control).low)}},
        paper="per-instance linear models are as expressive as the hypernetwork (deep in x -> W(x))",
        paper_source="Sec. 3", **_record_kwargs(record))


MIN_RECORD_SEEDS = 3


def _not_run(claim: str, control: str) -> dict:
    """A budget-dependent claim without a shipped record: NOT RUN HERE, with the command that runs it."""
    return dict(claim=claim, measured="not run at fast: the paper's 500 epochs do not fit the budget",
                paper=PAPER_AUROC, paper_source=PAPER_SOURCE, expect="needs full scale",
                command="nice -n 10 .venv/bin/python scripts/imn_paper_budget.py",
                control={"name": control, "measured": "not run", "holds": False})


def _record_kwargs(record: dict) -> dict:
    return dict(expect="needs full scale", command=record["command"],
                tried=f"the paper's default budget, {record['epochs']} epochs (the official main_experiment.py), "
                      f"seeds {record['seeds']} (recorded, not shifted), the fast scale's sizes; shipped record, "
                      f"{record['wall_s']:.0f} s")


def auroc_nonlinear_set(record: dict) -> dict:
    a, seeds = record["auroc"], record["seeds"]
    best = _best_tree(a, "noisy_moons")
    return dict(
        claim=f"noisy moons: IMN AUROC >= best tree - 0.01 and >= decision tree + 0.03 (seed means, "
              f"{record['epochs']} epochs, shipped record)",
        measured=margins(a, "IMN", ["noisy_moons"]), test=rule,
        per_seed=_per_seed_margin(a, "IMN", ["noisy_moons"], seeds),
        interval=_gap_interval(a, "noisy_moons", "IMN", best),
        control={"name": "logistic regression on noisy moons, same rule",
                 "measured": margins(a, "logistic regression", ["noisy_moons"])},
        paper=PAPER_AUROC, paper_source=PAPER_SOURCE, **_record_kwargs(record))


def auroc_vs_ebm(record: dict) -> dict:
    a, seeds = record["auroc"], record["seeds"]
    sets = ("breast_cancer", "noisy_moons")

    def vs(model):
        return {s: _r(np.mean(a[s][model]) - np.mean(a[s]["EBM"])) for s in sets}
    return dict(
        claim=f"IMN AUROC >= EBM AUROC on breast cancer and on noisy moons (seed means, {record['epochs']} epochs, "
              f"shipped record)",
        measured=vs("IMN"), test=lambda g: min(g.values()) >= 0,
        per_seed={int(seed): {s: _r(a[s]["IMN"][i] - a[s]["EBM"][i]) for s in sets} for i, seed in enumerate(seeds)},
        interval=_gap_interval(a, "noisy_moons", "IMN", "EBM"),
        control={"name": "decision tree vs EBM, same rule", "measured": vs("decision tree")},
        paper="IMNs outperform existing methods that are explainable by design (DT, LR, NAM in its tables)",
        paper_source="abstract; Sec. 5, AUROC over 35 data sets", **_record_kwargs(record))


def faithful_impacts(res: Results) -> dict:
    rho = res.faith_local["IMN"]
    no_l1 = res.faith_local.get("IMN, λ = 0 (no L1 term)")
    measured = {"λ = 0.1 (official)": _r(np.mean(rho))}
    if no_l1 is not None:
        measured["λ = 0 (no L1 term)"] = _r(np.mean(no_l1))
    return dict(
        claim=f"per-instance correlation of IMN impacts with beta * x >= {FAITHFUL} (seed mean, λ = 0.1)",
        measured=measured, test=lambda m: m["λ = 0.1 (official)"] >= FAITHFUL,
        per_seed={int(s): _r(v) for s, v in zip(res.config["seeds"], rho, strict=True)},
        interval=t_interval(rho),
        control={"name": "untrained hypernetwork, same measurement",
                 "measured": {"λ = 0.1 (official)": _r(np.mean(res.faith_local["IMN, untrained (control)"]))}},
        paper="IMN explanations are faithful (XAI benchmark of Liu et al., 2021)",
        paper_source="Sec. 5, explanation benchmark")


def checks(res: Results, record: dict | None = None) -> dict:
    """``{claim_id: keyword arguments of claims.check}`` for the chapter's claims. ``res`` from
    :func:`~neurips24.imn.experiment.run_experiment`; ``record`` the shipped 500-epoch record
    (:func:`~neurips24.imn.experiment.load_paper_budget`; None or fewer than 3 seeds: those two claims are NOT RUN
    HERE without a measurement)."""
    out = {"imn.auroc_shipped_sets": auroc_shipped_sets(res)}
    if record is not None and len(record["seeds"]) >= MIN_RECORD_SEEDS:
        out["imn.beyond_linear"] = beyond_linear(record)
        out["imn.auroc_nonlinear_set"] = auroc_nonlinear_set(record)
        out["imn.auroc_vs_ebm"] = auroc_vs_ebm(record)
    else:
        out["imn.beyond_linear"] = _not_run("noisy moons: IMN AUROC exceeds logistic regression's by > 0.01 "
                                            "(500 epochs)", "the same gap on breast cancer")
        out["imn.auroc_nonlinear_set"] = _not_run(
            "noisy moons: IMN AUROC >= best tree - 0.01 and >= decision tree + 0.03 (500 epochs)",
            "logistic regression on noisy moons, same rule")
        out["imn.auroc_vs_ebm"] = _not_run("IMN AUROC >= EBM AUROC on breast cancer and on noisy moons (500 epochs)",
                                           "decision tree vs EBM, same rule")
    if res.faith_local:
        out["imn.faithful_impacts"] = faithful_impacts(res)
    return out
