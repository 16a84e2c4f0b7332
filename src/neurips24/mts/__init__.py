"""Cosson & Massoulié, NeurIPS 2024: barely random algorithms and collective metrical task systems."""
from . import exercises, experiment, fractional, game, kernels, metric, plots, reproduction, rounding
from .experiment import (
    Sweep,
    expected_cost_of_a_random_agent,
    explore_run,
    players_for,
    random_bits,
    relabel_control,
    reproduction_values,
    run_sweep,
)
from .fractional import mirror_descent_step, work_function_update
from .game import Player, Run, simulate
from .metric import (
    Metric,
    check_metric,
    dominating_star,
    line_metric,
    make_metric,
    star_metric,
    tree_metric,
    uniform_metric,
    wasserstein1,
)
from .rounding import capacity, capped_rounding_step, mode_agent_step, wfa_step

__all__ = ["exercises", "experiment", "fractional", "game", "kernels", "metric", "plots", "reproduction", "rounding",
           "Sweep",
           "expected_cost_of_a_random_agent", "explore_run", "players_for", "random_bits", "relabel_control",
           "reproduction_values", "run_sweep", "mirror_descent_step", "work_function_update", "Player", "Run",
           "simulate", "Metric", "check_metric", "dominating_star", "line_metric", "make_metric", "star_metric",
           "tree_metric", "uniform_metric", "wasserstein1", "capacity", "capped_rounding_step", "mode_agent_step",
           "wfa_step"]
