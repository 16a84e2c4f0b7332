"""The chapter's reproduction checks, each beside a control measured through the same code path (CHAPTER.md §7).

The drop is judged on the held-out logs of the shipped 3 × 3, rank-1 runs (one per training seed) by two numbers:
how much of the plateau's masked error the run removes, and how *abrupt* the removal is — the largest decrease
of the masked MSE between two log points (100 steps apart) over the median absolute change between log points,
both from step 500 on (after the first fall onto the copy plateau). The search's 2 × 2 run, which removes a
quarter of its plateau error gradually, is the control.
"""
from __future__ import annotations

import json

import numpy as np

from .. import claims
from .experiment import HERE, shipped_run

#: The shipped 3 × 3, rank-1, batch-256 runs by training seed (products of scripts/abrupt_learning_train.py).
DROP_RUNS = {0: "drop_3x3", 1: "drop_3x3_seed1"}
#: The search's 2 × 2, rank-1, batch-256 run (8 000 steps): it leaves the plateau gradually (the control).
GRADUAL_RUN = "m2r1_d64L2_b256_lr1e-3_long"
SETTLED = 500          # the log from this step on: after the first fall onto the copy plateau
PLATEAU_END = 2000     # the plateau level is the median masked MSE over steps SETTLED..PLATEAU_END
REMOVED_MIN = 0.2      # a drop removes at least a fifth of the plateau's masked error ...
ABRUPT_MIN = 10.0      # ... with a largest 100-step decrease at least 10 times the median |change|


def drop_log(seed: int) -> list[dict]:
    """The held-out log ({step, masked, observed}) of the shipped 3 × 3 run of training seed ``seed``."""
    if seed not in DROP_RUNS:
        raise ValueError(f"seed must be one of the shipped drop runs' seeds {sorted(DROP_RUNS)}, got {seed!r}")
    return shipped_run(DROP_RUNS[seed])["record"]["log"]


def gradual_log() -> list[dict]:
    """The held-out log of the search's 2 × 2 run (``search/GRADUAL_RUN.jsonl``)."""
    return [json.loads(line) for line in (HERE / "search" / f"{GRADUAL_RUN}.jsonl").read_text().splitlines()
            if line.strip()]


def drop_measures(log: list[dict]) -> dict:
    """{'removed', 'abruptness', 'step of the largest decrease'} of a held-out log (see the module docstring).

    removed = 1 − (last masked MSE) / (median masked MSE over steps 500..2000);
    abruptness = largest decrease between consecutive log points / median |change| between them (steps ≥ 500).

    Raises
    ------
    ValueError if the log has fewer than 5 points from step 500 on, or none in 500..2000.
    """
    steps = np.array([r["step"] for r in log])
    masked = np.array([r["masked"] for r in log], dtype=np.float64)
    keep = steps >= SETTLED
    if keep.sum() < 5 or not ((steps >= SETTLED) & (steps <= PLATEAU_END)).any():
        raise ValueError(f"log needs at least 5 points from step {SETTLED} on, some of them before {PLATEAU_END}")
    level = float(np.median(masked[(steps >= SETTLED) & (steps <= PLATEAU_END)]))
    change = np.diff(masked[keep])
    i = int(np.argmin(change))
    return {"removed": round(1.0 - float(masked[-1]) / level, 4),
            "abruptness": round(float(-change[i] / np.median(np.abs(change))), 2),
            "step of the largest decrease": int(steps[keep][i + 1])}


def is_drop(m: dict) -> bool:
    return m["removed"] >= REMOVED_MIN and m["abruptness"] >= ABRUPT_MIN


def plateau_check(ev: dict, nuc: dict, var: float, interval=None) -> dict:
    """``abrupt_learning.plateau``: the model copies (observed MSE < 1e-3, masked MSE within 20 % of Var)."""
    is_copy = lambda d: d["observed MSE"] < 1e-3 and 0.8 <= d["masked MSE / Var"] <= 1.2   # noqa: E731
    return dict(
        claim="on the plateau the model copies: observed MSE < 1e-3 while masked MSE is within 20% of Var(X_ij)",
        measured={"observed MSE": ev["observed"], "masked MSE / Var": ev["masked"] / var},
        test=is_copy, interval=interval,
        control={"name": "nuclear-norm minimisation, same matrices",
                 "measured": {"observed MSE": nuc["observed"], "masked MSE / Var": nuc["masked"] / var}},
        paper="copies the observed entries before the drop", paper_source="abstract; §4")


def drop_check(logs: dict, control_log: list[dict]) -> dict:
    """``abrupt_learning.drop_3x3`` over the shipped seeds' logs ``{seed: log}``; control: the gradual 2 × 2 run."""
    per = {int(s): drop_measures(log) for s, log in logs.items()}
    return dict(
        claim=f"3×3, rank 1, batch 256: on every shipped training seed the masked MSE drops off the copy plateau — it "
              f"removes >= {REMOVED_MIN:.0%} of the plateau's masked error, with a largest 100-step decrease >= "
              f"{ABRUPT_MIN:g}× the median |change|",
        measured=per, test=lambda m: all(is_drop(v) for v in m.values()),
        interval=claims.binomial_interval(sum(is_drop(v) for v in per.values()), len(per)),
        control={"name": "the search's 2×2 run (leaves the plateau gradually)",
                 "measured": {0: drop_measures(control_log)}},
        paper="the loss plateaus, then drops sharply (7×7, rank 2)", paper_source="abstract")


def beats_nuclear_check(err_last: dict, err_plateau: dict, err_nuc: dict) -> dict:
    """``abrupt_learning.beats_nuclear_3x3``: per shipped seed, masked MSE of the last checkpoint over nuclear-norm
    minimisation's on the same held-out hidden entries; ``err_*`` map seed → (hidden entries,) squared errors."""
    ratio = {int(s): round(float(err_last[s].mean() / err_nuc[s].mean()), 4) for s in err_last}
    ctrl = {int(s): round(float(err_plateau[s].mean() / err_nuc[s].mean()), 4) for s in err_plateau}
    s0 = min(err_last)
    return dict(
        claim="3×3, rank 1: after the drop, masked MSE is below nuclear-norm minimisation's on held-out matrices, "
              "on every shipped training seed",
        measured=ratio, test=lambda m: max(m.values()) < 1.0,
        interval=claims.bootstrap_interval(1 + (err_last[s0] - err_nuc[s0]) / err_nuc[s0].mean()),
        control={"name": "the same runs' plateau checkpoints", "measured": ctrl},
        paper="final MSE ≈ 4e-3, below nuclear-norm minimisation (7×7, rank 2)", paper_source="abstract; Fig. 3")


def best_head_rise(ev_from: dict, ev_to: dict) -> np.ndarray:
    """Per hidden query: the best head's row/column mass at ``ev_to`` minus the best head's at ``ev_from``
    (each checkpoint's best head by its mean score; ``evaluate`` outputs on the same held-out batch)."""
    b_to = np.unravel_index(np.argmax(ev_to["row_column"]), ev_to["row_column"].shape)
    b_from = np.unravel_index(np.argmax(ev_from["row_column"]), ev_from["row_column"].shape)
    return ev_to["row_column_masked"][b_to] - ev_from["row_column_masked"][b_from]


def attention_check(rise: dict, rise_control: dict, control_name: str) -> dict:
    """``abrupt_learning.attention_3x3``: per shipped seed the best head's row/column score at hidden entries rises by
    >= 0.2 from the plateau checkpoint to the last; control: the same rise between two checkpoints on the plateau."""
    s0 = min(rise)
    return dict(
        claim="3×3, rank 1: across the drop the best head's row/column score at hidden entries rises by >= 0.2, "
              "on every shipped training seed",
        measured={int(s): round(float(r.mean()), 4) for s, r in rise.items()},
        test=lambda m: min(m.values()) >= 0.2, interval=claims.bootstrap_interval(rise[s0]),
        control={"name": control_name,
                 "measured": {int(s): round(float(r.mean()), 4) for s, r in rise_control.items()}},
        paper="attention heads become structured by rows and columns (7×7, rank 2)", paper_source="abstract; §4")


#: The paper's configuration (``src/configs/train.yaml`` of tf-matcomp) through the chapter's training script.
OFFICIAL_COMMAND = ("python scripts/abrupt_learning_train.py out=official_7x7 m=7 n=7 r=2 p_mask=0.3 d=768 layers=4 "
                    "heads=8 batch=256 lr=0.0001 steps=50000 seed=0 n_eval=512 log_every=250 ckpts=0,10000,50000 "
                    "(on a GPU; NEURIPS24_SCALE=full trains the same configuration live)")


def seven_by_seven_checks(ev_first: dict, ev_last: dict, nuc: dict, ev_first_other: dict, first: int) -> dict:
    """The two 7 × 7 claims about what follows the drop: NOT RUN HERE (the paper's width 768, 4 layers and 50 000
    steps of 256 matrices do not fit a CPU); the miniature's values are recorded beside them.

    ``ev_first_other``: the first checkpoint evaluated on another held-out batch (the control's noise level)."""
    where = "measured on the 64-wide, 2-layer miniature's shipped 7×7 run (batch 64, 2000 steps), which never dropped"
    return {
        "abrupt_learning.beats_nuclear": dict(
            claim="7×7, rank 2: after the drop, masked MSE is below nuclear-norm minimisation's on held-out matrices",
            measured={"masked MSE / nuclear norm's": ev_last["masked"] / nuc["masked"], "where": where},
            test=lambda m: m["masked MSE / nuclear norm's"] < 1.0,
            control={"name": f"the step-{first} checkpoint (on the plateau)",
                     "measured": {"masked MSE / nuclear norm's": ev_first["masked"] / nuc["masked"], "where": where}},
            paper="final MSE ≈ 4e-3, below nuclear-norm minimisation", paper_source="abstract; Fig. 3",
            expect="needs full scale", command=OFFICIAL_COMMAND),
        "abrupt_learning.attention_rows_columns": dict(
            claim="7×7, rank 2: across the drop the attention becomes row/column structured: the best head's "
                  "row/column score rises by >= 0.2",
            measured={"rise": float(ev_last["row_column"].max() - ev_first["row_column"].max()), "where": where},
            test=lambda m: m["rise"] >= 0.2,
            control={"name": f"the step-{first} checkpoint against itself on another held-out batch",
                     "measured": {"rise": float(ev_first_other["row_column"].max() - ev_first["row_column"].max()),
                                  "where": where}},
            paper="attention heads become interpretable, structured by rows and columns", paper_source="abstract; §4",
            expect="needs full scale", command=OFFICIAL_COMMAND),
    }
