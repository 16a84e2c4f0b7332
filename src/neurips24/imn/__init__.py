"""Kadra, Pineda Arango & Grabocka, NeurIPS 2024: interpretable mesomorphic networks for tabular data."""
from . import data, experiment, faithfulness, model, plots
from .data import BETA, check_x, check_xy, load_tabular, make_logistic, make_noisy_moons
from .experiment import Results, auroc, explore_run, fit_baselines, run_experiment
from .faithfulness import deletion_curve, impact_correlation, neighbour_hyperplane_accuracy, occlusion_attributions
from .model import IMN, HyperNet, IMNConfig, linear_head

__all__ = ["data", "experiment", "faithfulness", "model", "plots", "BETA", "check_x", "check_xy", "load_tabular",
           "make_logistic", "make_noisy_moons", "Results", "explore_run", "run_experiment", "auroc", "fit_baselines",
           "deletion_curve", "impact_correlation", "neighbour_hyperplane_accuracy", "occlusion_attributions", "IMN",
           "HyperNet", "IMNConfig", "linear_head"]
