"""Tables of the chapter: rows + header for ``neurips24.tables.show_table``."""
from __future__ import annotations

import numpy as np

from .census import census_distribution, census_source, census_sources, covered_questions, geographies
from .experiment import PAPER_CLOSER_MAX, census_comparison
from .metrics import kl_bits, normalized_entropy


def question_table(result, fmt: str = "plain"):
    """One row per question: k, orders asked, letter mass, A-bias, entropies, KL to uniform and census (bits)."""
    covered = set(covered_questions())
    ab, hn, ha = result.metric("a_bias", fmt), result.metric("h_naive", fmt), result.metric("h_adj", fmt)
    rows = []
    for i, key in enumerate(result.keys):
        r = result.responses[fmt][key]
        hc = float(normalized_entropy(result.naive["chat"][key])) if "chat" in result.naive else float("nan")
        klc = float(kl_bits(r.p_adj, census_distribution(key))) if key in covered else None
        rows.append([key, len(r.p_adj), len(r.orders), float(r.mass[0]), ab[i], hn[i], ha[i], hc,
                     float(kl_bits(r.p_adj, np.full(len(r.p_adj), 1 / len(r.p_adj)))),
                     "—" if klc is None else klc])
    header = ["question", "k", "orders", "letter mass (naive)", "A-bias", "H naive", "H adjusted", "H naive (chat)",
              "KL(adj ‖ U) bits", "KL(adj ‖ census) bits"]
    return rows, header


def letter_mass_table(result):
    """Mean next-token probability of each letter family on the 25 naive prompts, per prompt format."""
    rows = []
    for fmt, d in result.letter_mass.items():
        scored = "' A', ' B', …" if fmt == "plain" else "'A', 'B', …"
        rows.append([fmt, float(d[" "].mean()), float(d[""].mean()), scored])
    return rows, ["prompt format", "mass of ' A', ' B', …", "mass of 'A', 'B', …", "letters scored"]


def census_table():
    """The sourced census values: question, geography count, national distribution, source kind."""
    src = census_sources()
    rows = []
    for key in covered_questions():
        s = census_source(key)
        rows.append([key, ", ".join(f"{v:.3f}" for v in census_distribution(key)), len(geographies(key)) - 1,
                     src[s]["kind"], s])
    return rows, ["question", "United States (choice order)", "states", "source kind", "source key"]


def paper_table(result, states, synthetic):
    """The paper's numbers beside ours."""
    comp = census_comparison(result)
    frac = float(np.mean([v["closer"] for v in comp.values()]))
    rows = [
        ["largest fraction of questions closer to census than to uniform",
         f"{PAPER_CLOSER_MAX} (max over 43 models, 25 questions)",
         f"{frac:.2f} (SmolLM2, {len(comp)} covered questions)"],
        ["adjusted responses trend to uniform", "all 43 models (Fig. 4)",
         f"mean normalised entropy {result.metric('h_adj').mean():.3f} (naive {result.metric('h_naive').mean():.3f})"],
        ["A-bias of the naive responses", "a bias towards 'A' (abstract; Fig. 3)",
         f"mean {result.metric('a_bias').mean():+.3f}, positive on {int((result.metric('a_bias') > 0).sum())} of 25"],
        ["divergence falls with subgroup entropy", "every model, 50 states (Fig. 5)",
         f"Spearman {states.rho:+.2f} (HICOV, {len(states.names)} states); "
         f"{synthetic.rho.mean():+.2f} (synthetic)"],
    ]
    return rows, ["result", "paper", "this chapter"]
