"""The chapter's reproduction checks: each claim's measurement, interval and control, ready for ``claims.check``.

:func:`checks` turns the sweep and the relabelling control into keyword arguments of
:func:`neurips24.claims.check`, so the notebook's check cell, a plain test and the planted-bug tests
(``tests/mutants/test_barely_random_mts.py``) run the same rules.

1. ``mts.cap_and_service`` — the rounding's two invariants, measured over every step of every collective:
   m_t(i) <= 2k p_t(i) (the cap, eq. mts-cap) and <c_t, m_t/k> <= 2 <c_t, p_t> (service at most twice the
   fractional). Control: the single agent at the fractional mode, the k = 1 player of the same rule.
2. ``mts.factor_two`` — at k = n², (cost − n·diam/k) / fractional cost <= 2 on every instance (every metric,
   n, seed and all three adversaries, the threshold one included). Control: the collectives with k = n, one
   agent per point, under the same rule.
3. ``mts.no_growth_with_n`` — on the uniform metric the n²-collective's ratio to OPT grows less than
   √(n_hi / n_lo) from the smallest to the largest n. Control: the work function algorithm.
4. ``mts.uniform_agent_identity`` — E over the random bits of the named agent's cost equals the barely
   fractional cost, for every collective. Control: agents relabelled by a random permutation every step.
"""
from __future__ import annotations

import math

from ..claims import binomial_interval
from .experiment import Sweep, reproduction_values
from .game import Run

IDENTITY_TOL = 1e-9      # relative gap of the identity: floating point only
INVARIANT_TOL = 1e-9     # m_t(i) − 2k p_t(i) and the service excess, in agents and cost units


def _r(x: float) -> float:
    return float(f"{x:.4g}")


def _per_seed(sweep: Sweep, rule: str, k, what) -> dict:
    """seed -> max of ``what(run)`` over that seed's runs of ``rule`` with ``k`` agents (every adversary)."""
    seeds = sorted({s for s, _ in sweep.runs})
    return {s: _r(max(what(r) for r in sweep.select(rule=rule, k=k, seed=s))) for s in seeds}


def cap_and_service(sweep: Sweep) -> dict:
    """The cap m_t(i) <= 2k p_t(i) and the service bound, every step of every collective; control: the mode agent."""
    coll = sweep.select(rule="capped")
    mode = sweep.select(rule="mode")
    measured = {"cap excess": _r(max(r.cap_excess for r in coll)),
                "service excess": _r(max(r.service_excess for r in coll))}
    control = {"cap excess": _r(max(r.cap_excess for r in mode)),
               "service excess": _r(max(r.service_excess for r in mode))}
    return dict(
        claim="every collective, at every step: m_t(i) <= 2k p_t(i) at every point and <c_t, m_t/k> <= 2 <c_t, p_t> "
              f"(largest excess over {len(coll)} runs <= {INVARIANT_TOL:g})",
        measured=measured, test=lambda v: max(v.values()) <= INVARIANT_TOL,
        per_seed=_per_seed(sweep, "capped", None, lambda r: max(r.cap_excess, r.service_excess)),
        control={"name": "one agent at the fractional mode (k = 1, the same cap 2p)", "measured": control},
        paper="the rounding keeps at most twice the fractional mass on every point, so service costs at most 2x",
        paper_source="abstract (the factor 2); the cap is the chapter's capped rounding")


def factor_two(sweep: Sweep, values: dict) -> dict:
    """At k = n² the factor 2 holds on every instance (three adversaries); control: k = n."""
    factor, control = values["factor"], values["factor_kn"]
    holds = sum(f <= 2 for f in factor)
    return dict(
        claim="at k = n², collective cost <= 2 × fractional cost + n·diam/k on every instance tried "
              "(every metric, n and seed; crowded, threshold and random adversaries)",
        measured=_r(max(factor)), test=lambda m: m <= 2,
        per_seed=_per_seed(sweep, "capped", lambda n: n * n, lambda r: r.over_fractional),
        interval=binomial_interval(holds, len(factor)),
        control={"name": "the same rule with k = n agents (one per point), max over its instances",
                 "measured": _r(max(control))},
        paper="2α-competitive for k >= n² (2 log n random bits)", paper_source="abstract, main theorem")


def no_growth_with_n(sweep: Sweep, values: dict) -> dict:
    """Uniform metric: the n²-collective's cost / OPT grows < √(n_hi/n_lo); control: WFA."""
    n_lo, n_hi = min(sweep.config["n_values"]), max(sweep.config["n_values"])
    limit = math.sqrt(n_hi / n_lo)
    return dict(
        claim=f"uniform metric: cost/OPT of the n²-collective grows < √(n_hi/n_lo) = {limit:.2f}x "
              f"from n = {n_lo} to n = {n_hi}",
        measured=_r(values["growth_collective"]), test=lambda g: g < limit,
        control={"name": "one deterministic agent (WFA), same adversary", "measured": _r(values["growth_wfa"])},
        paper="collective O(log² n) (O(log n) on the uniform metric) vs a single agent Ω(n)",
        paper_source="abstract")


def uniform_agent_identity(values: dict) -> dict:
    """E over the bits of the named agent's cost = barely fractional cost; control: relabelled agents."""
    return dict(
        claim="E[cost of the agent named by log₂ k random bits] = barely fractional cost, every collective",
        measured=values["identity_gap"], test=lambda g: g <= IDENTITY_TOL,
        control={"name": "agents relabelled by a random permutation every step",
                 "measured": values["identity_control_gap"]},
        paper="barely random = barely fractional = collective",
        paper_source="abstract; equivalence of the three views")


def checks(sweep: Sweep, plain: Run, shuffled: Run) -> dict:
    """claim_id -> keyword arguments of :func:`neurips24.claims.check` for every claim of the chapter.

    Parameters
    ----------
    sweep : :func:`~neurips24.mts.experiment.run_sweep`'s result (at least three seeds).
    plain, shuffled : :func:`~neurips24.mts.experiment.relabel_control`'s two runs.
    """
    values = reproduction_values(sweep, plain, shuffled)
    return {"mts.cap_and_service": cap_and_service(sweep),
            "mts.factor_two": factor_two(sweep, values),
            "mts.no_growth_with_n": no_growth_with_n(sweep, values),
            "mts.uniform_agent_identity": uniform_agent_identity(values)}
