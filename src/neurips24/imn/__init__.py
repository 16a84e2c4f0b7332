"""Kadra, Pineda Arango & Grabocka, NeurIPS 2024: interpretable mesomorphic networks for tabular data."""
from . import data, ebm, exercises, experiment, faithfulness, model, plots, reproduction
from .data import BETA, check_x, check_xy, load_tabular, make_logistic, make_noisy_moons
from .ebm import ebm_global_importance, ebm_local_scores, fit_ebm
from .experiment import Results, auroc, explore_run, fit_baselines, run_accuracy, run_experiment, run_faithfulness
from .faithfulness import deletion_curve, impact_correlation, neighbour_hyperplane_accuracy, occlusion_attributions
from .model import IMN, HyperNet, IMNConfig, forward_seconds, linear_head

__all__ = ["reproduction", "data", "ebm",
           "exercises", "experiment", "faithfulness", "model", "plots", "BETA", "check_x", "check_xy",
           "load_tabular", "make_logistic", "make_noisy_moons", "ebm_global_importance", "ebm_local_scores", "fit_ebm",
           "Results", "explore_run", "run_accuracy", "run_experiment", "run_faithfulness", "auroc", "fit_baselines",
           "deletion_curve", "impact_correlation", "neighbour_hyperplane_accuracy", "occlusion_attributions", "IMN",
           "HyperNet", "IMNConfig", "forward_seconds", "linear_head"]
