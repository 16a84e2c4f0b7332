"""Zhang & Combes, NeurIPS 2024: combinatorial Thompson sampling, polynomial regret, mismatched sampling paradox."""
from . import bandit, experiment, kernels, plots, policies
from .bandit import SemiBandit, explicit_bandit, top_m_bandit, two_sets
from .experiment import explore_run, run_regret_vs_m, simulate, switch_probability
from .policies import f_bonus, g_scale, make_policy, paper_policies

__all__ = ["bandit", "experiment", "kernels", "plots", "policies", "SemiBandit", "explicit_bandit",
           "top_m_bandit", "two_sets", "explore_run", "run_regret_vs_m", "simulate", "switch_probability",
           "f_bonus", "g_scale", "make_policy", "paper_policies"]
