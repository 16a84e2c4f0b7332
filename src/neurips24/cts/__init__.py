"""Zhang & Combes, NeurIPS 2024: combinatorial Thompson sampling, polynomial regret, mismatched sampling paradox."""
from . import (
    bandit,
    escb_code,
    escb_replay,
    exercises,
    experiment,
    kernels,
    plots,
    policies,
    reproduction,
    runs,
    tables,
    theory,
    two_set_runs,
)
from .bandit import SemiBandit, explicit_bandit, top_m_bandit, two_sets
from .experiment import (
    explore_run,
    load_full_record,
    run_curve,
    run_escb_replay,
    run_paper_setup,
    run_regret_vs_m,
)
from .policies import f_bonus, g_scale, make_policy, paper_policies
from .runs import SimResult, simulate
from .theory import chernoff_rate, escape_estimate, switch_probability
from .two_set_runs import simulate_two_sets

__all__ = ["bandit", "escb_code", "escb_replay", "exercises", "experiment", "kernels", "plots", "policies",
           "reproduction", "runs", "tables", "theory", "two_set_runs",
           "SemiBandit", "explicit_bandit", "top_m_bandit", "two_sets", "explore_run",
           "load_full_record", "run_curve", "run_escb_replay", "run_paper_setup", "run_regret_vs_m", "f_bonus",
           "g_scale", "make_policy", "paper_policies", "SimResult", "simulate", "chernoff_rate", "escape_estimate",
           "switch_probability", "simulate_two_sets"]
