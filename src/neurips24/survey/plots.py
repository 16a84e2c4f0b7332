"""Figures of the chapter (matplotlib; labelled axes, units in the labels)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .metrics import normalized_entropy
from .prompts import LETTERS
from .questionnaire import get_question


def plot_responses(result, fmt: str = "plain"):
    """Per question: normalised entropy of the naive and adjusted responses (top) and the A-bias (bottom)."""
    keys = result.keys
    x = np.arange(len(keys))
    fig, ax = plt.subplots(2, 1, figsize=(10, 5.2), sharex=True)
    ax[0].plot(x, result.metric("h_naive", fmt), "o", label="naive (questionnaire order)")
    ax[0].plot(x, result.metric("h_adj", fmt), "s", label="adjusted (averaged over orders)")
    if "chat" in result.naive:
        ax[0].plot(x, [float(normalized_entropy(result.naive["chat"][k])) for k in keys], "^", alpha=0.7,
                   label="naive, chat template")
    ax[0].axhline(1.0, color="0.5", lw=1, ls="--")
    ax[0].set_ylabel("normalised entropy\nH(p) / log2 k")
    ax[0].set_ylim(0, 1.08)
    ax[0].legend(loc="lower left", fontsize=8, ncol=3)
    ab = result.metric("a_bias", fmt)
    ax[1].bar(x, ab, color="C3")
    ax[1].axhline(0, color="0.3", lw=1)
    ax[1].set_ylabel("A-bias\nchoice_p[A] - 1/k")
    ax[1].set_xticks(x, keys, rotation=60, fontsize=8)
    ax[1].set_xlabel("ACS question (PUMS variable)")
    fig.tight_layout()
    return fig


def plot_question(result, key: str, fmt: str = "plain", census=None):
    """One question: the letter distribution under every order asked (left) and the naive vs adjusted response."""
    q = get_question(key)
    r = result.responses[fmt][key]
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.4), gridspec_kw={"width_ratios": [1, 1.3]})
    im = ax[0].imshow(r.P, aspect="auto", cmap="viridis", vmin=0, vmax=1)
    ax[0].set_xticks(range(q.k), list(LETTERS[:q.k]))
    J = len(r.orders)
    if J <= 12:   # label each row by the choices shown at A, B, ... (1-based, questionnaire numbering)
        ax[0].set_yticks(range(J), [" ".join(str(int(c) + 1) for c in o) for o in r.orders], fontsize=7)
    else:
        ax[0].yaxis.set_major_locator(plt.MaxNLocator(integer=True))
    ax[0].set_xlabel("answer letter (position)")
    ax[0].set_ylabel("order asked (choices at A, B, …)")
    fig.colorbar(im, ax=ax[0], label="probability")
    x = np.arange(q.k)
    w = 0.27 if census is not None else 0.4
    ax[1].bar(x - w, r.naive, w, label="naive")
    ax[1].bar(x, r.p_adj, w, label="adjusted")
    if census is not None:
        ax[1].bar(x + w, census, w, label="census 2019", color="C2")
    ax[1].axhline(1 / q.k, color="0.5", ls="--", lw=1, label="uniform")
    ax[1].set_xticks(x, [c if len(c) < 18 else c[:16] + "…" for c in q.choices], rotation=30, ha="right",
                     fontsize=8)
    ax[1].set_ylabel("probability")
    ax[1].set_title(f"{key}: {q.text[:60]}{'…' if len(q.text) > 60 else ''}", fontsize=9)
    ax[1].legend(fontsize=8)
    fig.tight_layout()
    return fig


def plot_subgroups(states, synthetic):
    """Divergence vs subgroup entropy: HICOV in real states (left), synthetic Dirichlet states (right)."""
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.6))
    ax[0].plot(states.entropy, states.divergence, "o", label=f"SmolLM2 adjusted (ρ = {states.rho:+.2f})")
    ax[0].plot(states.entropy, states.control_divergence, "x", color="C3",
               label=f"control: answers like the least-uninsured state (ρ = {states.control_rho:+.2f})")
    ax[0].set_xlabel("normalised entropy of the state's HICOV answers")
    ax[0].set_ylabel("KL(p || q_state)  [bits]")
    ax[0].set_yscale("log")
    ax[0].set_title(f"HICOV, {len(states.names)} states with a sourced 2019 value", fontsize=9)
    ax[0].legend(fontsize=7)
    ex = synthetic.example
    ax[1].plot(ex["entropy"], ex["divergence"], "o", label="SmolLM2 adjusted")
    ax[1].plot(ex["entropy"], ex["control_divergence"], "x", color="C3", label="control: the states' base profile")
    ax[1].set_xlabel("mean normalised entropy of the state (23 questions)")
    ax[1].set_ylabel("div(m, s): mean KL  [bits]")
    ax[1].set_yscale("log")
    ax[1].set_title("SYNTHETIC Dirichlet states (seed 0)", fontsize=9)
    ax[1].legend(fontsize=7)
    fig.tight_layout()
    return fig
