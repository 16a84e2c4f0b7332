"""Joshi, Misiakiewicz & Srebro, NeurIPS 2024: learning sparse functions with statistical and gradient queries."""
from . import exercises, experiment, junta, kernels, leap, network, plots, queries, tables
from .experiment import explore_run, run_detectability, run_recovery, run_scaling
from .junta import Junta, make_junta
from .network import aligned_fraction, train_online
from .queries import loss_derivative, query_transforms
from .tables import correlation_table, exact_correlation

__all__ = ["exercises", "experiment", "junta", "kernels", "leap", "network", "plots", "queries", "tables",
           "explore_run", "run_detectability", "run_recovery", "run_scaling", "Junta", "make_junta", "aligned_fraction",
           "train_online", "loss_derivative", "query_transforms", "correlation_table", "exact_correlation"]
