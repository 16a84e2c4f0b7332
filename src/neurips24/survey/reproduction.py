"""The chapter's reproduction checks, each with a control measured through the same code path.

``checks(...)`` returns claim id -> keyword arguments of :func:`neurips24.claims.check`, so that the notebook
and a plain pytest run check the same things.
"""
from __future__ import annotations

import numpy as np

from .. import seeding
from ..claims import bootstrap_interval, t_interval
from .adjust import adjusted_response, adjusted_response_sigma, choice_orders, naive_response
from .census import census_distribution, covered_questions
from .experiment import PAPER_CLOSER_MAX, census_comparison, orders_for, run_hicov_states
from .metrics import a_bias, kl_bits, kl_to_uniform, normalized_entropy
from .questionnaire import questions
from .responders import content_P, decaying_positions, positional_P

UNIFORM_TOL = 1e-9
GAIN_MARGIN = 1e-6   # an entropy gain counts only if its interval clears this (float noise is ~1e-16)


def positional_mechanism(scale: str, responder: str = "positional", seed: int | None = None) -> dict:
    """A synthetic responder through the chapter's adjustment, on every question's orders at this scale.

    Parameters
    ----------
    scale : 'fast' or 'full' (which orders are asked).
    responder : 'positional' (P = decaying position probabilities, a pure A-bias) or 'content' (P follows
        random Dirichlet choice preferences, no ordering bias).
    seed : seeds the content responder's preferences (default ``neurips24.seed(0)``).

    Returns
    -------
    dict of (25,) arrays: 'a_bias', 'max_dev_uniform' = max_c |p_adj[c] - 1/k|, 'max_dev_pref' =
    max_c |p_adj[c] - pref[c]| (the content responder's own preferences; the positional responder's
    ``pref`` is uniform), 'h_naive', 'h_adj'.

    Raises
    ------
    ValueError for an unknown responder or scale.
    """
    if responder not in ("positional", "content"):
        raise ValueError(f"responder must be 'positional' or 'content', got {responder!r}")
    rng = np.random.default_rng(seeding.seed(0) if seed is None else seed)
    out = {"a_bias": [], "max_dev_uniform": [], "max_dev_pref": [], "h_naive": [], "h_adj": []}
    for q in questions().values():
        orders = orders_for(q.k, scale)
        pref = np.full(q.k, 1 / q.k) if responder == "positional" else rng.dirichlet(np.ones(q.k))
        P = positional_P(orders, decaying_positions(q.k)) if responder == "positional" else content_P(orders, pref)
        choice_p, p_adj = adjusted_response(P, orders)
        out["a_bias"].append(float(a_bias(choice_p)))
        out["max_dev_uniform"].append(float(np.max(np.abs(p_adj - 1 / q.k))))
        out["max_dev_pref"].append(float(np.max(np.abs(p_adj - pref))))
        out["h_naive"].append(float(normalized_entropy(naive_response(P, orders))))
        out["h_adj"].append(float(normalized_entropy(p_adj)))
    return {k: np.array(v) for k, v in out.items()}


def one_choice_entropies(k: int = 5) -> dict:
    """A responder that always picks choice 0, adjusted over all k! orders with the paper's σ⁻¹ mapping
    (:func:`~neurips24.survey.adjust.adjusted_response`) and with the official code's σ mapping
    (:func:`~neurips24.survey.adjust.adjusted_response_sigma`).

    Returns
    -------
    dict: 'sigma_inverse' and 'sigma' -> normalised entropy of the adjusted response (0 = the choice is
    recovered), 'n_orders' -> k!.
    """
    orders = choice_orders(k)
    P = content_P(orders, np.eye(k)[0])
    return {"sigma_inverse": abs(float(normalized_entropy(adjusted_response(P, orders)[1]))),
            "sigma": float(normalized_entropy(adjusted_response_sigma(P, orders))), "n_orders": len(orders)}


def closer_threshold(key: str) -> float:
    """How far from uniform a responder must move towards the census before it counts as closer to the census.

    Along p_t = (1 - t) U + t q_census, the smallest max_c |p_t[c] - 1/k| at which KL(p_t||U) >= KL(p_t||q)
    (bisection on t; the difference is increasing in t).
    """
    q = census_distribution(key)
    U = np.full(q.size, 1 / q.size)

    def closer(t):
        p = (1 - t) * U + t * q
        return float(kl_to_uniform(p)) >= float(kl_bits(p, q))

    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if closer(mid) else (mid, hi)
    return float(np.max(np.abs((1 - hi) * U + hi * q - U)))


def order_invariant_entropy_gain(result, fmt: str = "plain") -> np.ndarray:
    """Control of the entropy claim: a content-only responder with SmolLM2's adjusted answers as preferences.

    It is asked the same orders; with no ordering bias its naive and adjusted responses coincide, so the
    entropy gain (adjusted - naive) per question must be 0.
    """
    gains = []
    for r in result.responses[fmt].values():
        P = content_P(r.orders, r.p_adj)
        _, p_adj = adjusted_response(P, r.orders)
        gains.append(float(normalized_entropy(p_adj) - normalized_entropy(naive_response(P, r.orders))))
    return np.array(gains)


CONFIDENT = (0.7, 0.3)   # a confident HICOV responder ('Yes' 70 %) that the subgroup rule cannot tell from uniform


def checks(result, states, synthetic, fmt: str = "plain") -> dict:
    """Claim id -> kwargs of ``claims.check`` for the chapter's four checks (see the notebook's text)."""
    scale = result.scale
    pos = positional_mechanism(scale, "positional")
    con = positional_mechanism(scale, "content")

    def mech_holds(m):
        return bool(m["a_bias"].min() > 0.01 and m["max_dev_uniform"].max() < UNIFORM_TOL)

    gain = result.metric("h_adj", fmt) - result.metric("h_naive", fmt)
    gain_iv = bootstrap_interval(gain)
    ctrl_gain = order_invariant_entropy_gain(result, fmt)
    ctrl_iv = bootstrap_interval(ctrl_gain) if np.ptp(ctrl_gain) > 0 else None

    rho_iv = t_interval(synthetic.rho)
    crho_iv = t_interval(synthetic.control_rho)
    seeds = synthetic.seeds or tuple(range(len(synthetic.rho)))
    confident = run_hicov_states(np.array(CONFIDENT)).rho

    comp = census_comparison(result, fmt)
    frac = float(np.mean([v["closer"] for v in comp.values()]))
    census_frac = float(np.mean([float(kl_to_uniform(census_distribution(k))) >=
                                 float(kl_bits(census_distribution(k), census_distribution(k)))
                                 for k in covered_questions()]))
    reach = min(closer_threshold(k) for k in comp)
    return {
        "survey.positional_bias": dict(
            claim="a responder with a pure positional bias has A-bias > 0 when asked in one order and its "
                  "permutation-adjusted response is exactly uniform, while a content-only responder's adjusted "
                  "response is exactly its own preference (all 25 questions, max deviation < 1e-9)",
            measured=f"A-bias >= {pos['a_bias'].min():.3f}; max |p_adj - 1/k| = {pos['max_dev_uniform'].max():.1e}; "
                     f"content responder max |p_adj - pref| = {con['max_dev_pref'].max():.1e}",
            paper="ordering bias; adjustment removes it", paper_source="§3",
            holds=mech_holds(pos) and bool(con["max_dev_pref"].max() < UNIFORM_TOL),
            control={"name": "a content-only responder (no ordering bias), same orders",
                     "measured": f"max |A-bias| = {np.abs(con['a_bias']).max():.1e}", "holds": mech_holds(con)}),
        "survey.entropy_up": dict(
            claim="SmolLM2's adjusted responses have a higher normalised entropy than its naive ones "
                  "(mean gain over the 25 questions, 95 % bootstrap interval above 0)",
            measured=gain_iv.estimate, interval=gain_iv,
            paper="responses trend towards uniform once the order is randomised", paper_source="abstract; Fig. 4",
            holds=bool(gain_iv.low > GAIN_MARGIN),
            control={"name": "content-only responder with SmolLM2's adjusted answers, same orders",
                     "measured": float(ctrl_gain.mean()),
                     "holds": bool((ctrl_iv.low if ctrl_iv else ctrl_gain.mean()) > GAIN_MARGIN)}),
        "survey.subgroup_artifact": dict(
            claim="the divergence of SmolLM2's adjusted responses from a subgroup falls as the subgroup's entropy "
                  "rises: Spearman < 0 on the HICOV states and on synthetic states (interval over seeds < 0). "
                  f"The rule cannot tell a near-uniform responder from a confident one (p = {list(CONFIDENT)} also "
                  "gives -1 on HICOV, as does any 'Yes' share below the least-insured state's) nor the KL "
                  "direction (both give the same ranking)",
            measured=f"HICOV states {states.rho:+.3f}; synthetic {rho_iv.estimate:+.3f} "
                     f"[{rho_iv.low:+.3f}, {rho_iv.high:+.3f}]; confident responder on HICOV {confident:+.3f}",
            interval=rho_iv, per_seed={int(s): round(float(r), 4) for s, r in zip(seeds, synthetic.rho, strict=True)},
            paper="models look closest to the subgroups nearest uniform",
            paper_source="abstract; Fig. 5", holds=bool(states.rho < 0 and rho_iv.high < 0),
            control={"name": "a low-entropy responder (the least-uninsured state; the synthetic states' base profile)",
                     "measured": f"HICOV {states.control_rho:+.3f}; synthetic {crho_iv.estimate:+.3f}",
                     "holds": bool(states.control_rho < 0 and crho_iv.high < 0)}),
        "survey.closer_to_census": dict(
            claim=f"at most the paper's largest fraction ({PAPER_CLOSER_MAX}) of the covered questions "
                  f"({', '.join(comp)}) has SmolLM2's adjusted response closer to the census than to uniform. "
                  f"Any responder within {reach:.2f} of uniform passes this rule on these skewed binary questions",
            measured=frac, paper=f"<= {PAPER_CLOSER_MAX} for every one of 43 models",
            paper_source="figures.ipynb (official)",
            test=lambda f: f <= PAPER_CLOSER_MAX,
            control={"name": "a responder that answers with the census distribution itself", "measured": census_frac}),
    }
