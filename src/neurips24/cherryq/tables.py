"""The chapter's tables as (rows, header) for :func:`neurips24.tables.show_table` (book's own)."""
from __future__ import annotations

import numpy as np

from .experiment import PAPER_LLAMA2_7B
from .real import GRIDS_RTN, RealResult, share_label
from .reproduction import paired_ratio, tail_nll


def ptq_table(res: RealResult) -> tuple[list, list]:
    """3-bit PTQ of SmolLM2: every grid and cherry criterion, perplexity and ratio to zero-point RTN (95 %)."""
    zp = res.nll["RTN, zero-point (asymmetric)"]
    rows = [["reference (the 4-bit file, dequantized)", "—", res.ppl("reference"), "—"]]
    for label in GRIDS_RTN:
        iv = paired_ratio(res.nll[label], zp)
        rows.append([label, "none", res.ppl(label), f"{iv.estimate:.3g} [{iv.low:.3g}, {iv.high:.3g}]"])
    for f in res.config["fractions"]:
        for c in res.config["criteria"]:
            label = f"{c} {share_label(f)}"
            if label in res.nll:
                iv = paired_ratio(res.nll[label], zp)
                rows.append([f"official grid + cherries by {c}", share_label(f), res.ppl(label),
                             f"{iv.estimate:.3g} [{iv.low:.3g}, {iv.high:.3g}]"])
    return rows, ["weights (3 bits, groups of 64)", "cherries per row", "held-out perplexity",
                  "ratio to zero-point RTN [95 %]"]


def tail_table(res: RealResult) -> tuple[list, list]:
    """QAT and CherryQ on the last blocks: perplexity before training (PTQ) and after, per seed; ratio to QAT."""
    seeds = res.config["tail_seeds"]
    methods = sorted({m for m, _ in res.tail if m != "reference"}, key=lambda m: (m != "QAT", m))
    rows = []
    for m in methods:
        ratio = "—" if m == "QAT" else (lambda iv: f"{iv.estimate:.3g} [{iv.low:.3g}, {iv.high:.3g}]")(
            paired_ratio(tail_nll(res, m), tail_nll(res, "QAT")))
        rows.append([m, res.tail_ppl(m, "PTQ")] + [res.tail_ppl(m, s) for s in seeds] + [ratio])
    header = ["method", "before training (PTQ)"] + [f"trained, seed {s}" for s in seeds] + ["ratio to QAT [95 %]"]
    return rows, header


def toy_table(toy) -> tuple[list, list]:
    """Character MLP: PTQ perplexity per method and seed (mean, per seed) at each bit width."""
    methods = ["RTN", "RTN, zero-point"] + [f"cherries ({c})" for c in ("impact", "magnitude", "activation",
                                                                         "random")]
    methods += [m for m in ("QAT", "CherryQ (impact)", "CherryQ (magnitude)", "CherryQ (activation)",
                            "CherryQ (random)") if (m, toy.bits[0], toy.seeds[0]) in toy.ppl]
    rows = [["full precision", f"{toy.mean('FP', None):.3f}; " + ", ".join(f"{v:.3f}" for v in toy.values(
        "FP", None))] + [""] * (len(toy.bits) - 1)]
    rows += [[m] + [f"{toy.mean(m, b):.3f}; " + ", ".join(f"{v:.3f}" for v in toy.values(m, b)) for b in toy.bits]
             for m in methods]
    return rows, ["method"] + [f"{b} bits (mean; per seed)" for b in toy.bits]


def paper_table(res: RealResult, toy) -> tuple[list, list]:
    """The paper's LLaMA2-7B perplexities (C4 / WikiText-2) beside this chapter's SmolLM2 and miniature values."""
    P = PAPER_LLAMA2_7B

    def paper(m, key):
        v = P.get(m, {}).get(key)
        return f"{v[0]:.2f} / {v[1]:.2f}" if v else "—"

    f = share_label(res.config["fractions"][0])
    b = toy.bits[0]
    seeds = res.config["tail_seeds"]
    rows = [
        ["FP16 / reference", paper("FP16", "3-bit g128"), paper("FP16", "3-bit g64"),
         f"{res.ppl('reference'):.3g} (4-bit file)", f"{toy.mean('FP', None):.3g}"],
        ["RTN, official grid", "—", "—", f"{res.ppl('RTN, official grid (no zero)'):.3g}", f"{toy.mean('RTN', b):.3g}"],
        ["RTN, zero-point", "—", "—", f"{res.ppl('RTN, zero-point (asymmetric)'):.3g}",
         f"{toy.mean('RTN, zero-point', b):.3g}"],
        [f"cherries by impact ({f}), no training", "—", "—", f"{res.ppl(f'impact {f}'):.3g}",
         f"{toy.mean('cherries (impact)', b):.3g}"],
    ]
    for m in ("GPTQ", "AWQ", "SqueezeLLM"):
        rows.append([m, paper(m, "3-bit g128"), paper(m, "3-bit g64"), "not run", "not run"])
    tail = {m: float(np.mean([res.tail_ppl(m, s) for s in seeds])) for m in ("QAT", "CherryQ (impact)")}
    for m, key in (("QAT", "QAT"), ("CherryQ", "CherryQ (impact)")):
        toy_v = f"{toy.mean(key, b):.3g}" if (key, b, toy.seeds[0]) in toy.ppl else "full scale only"
        rows.append([m, paper(m, "3-bit g128"), paper(m, "3-bit g64"),
                     f"{tail[key]:.3g} (last {res.config['tail_blocks']} block(s) only)", toy_v])
    return rows, ["method", "LLaMA2-7B 3-bit g128 (paper)", "LLaMA2-7B 3-bit g64 (paper)",
                  "SmolLM2-135M 3-bit g64 (ours)", f"char MLP {b}-bit g64 (ours)"]
