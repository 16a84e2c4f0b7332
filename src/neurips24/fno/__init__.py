"""Koshizuka et al., NeurIPS 2024: the Fourier Neural Operator at the edge of chaos (mean-field view)."""
from . import backward, data, experiment, layer, meanfield, model, montecarlo, plots, position, train
from .experiment import run_correlation, run_gradients, run_training

__all__ = ["backward", "data", "experiment", "layer", "meanfield", "model", "montecarlo", "plots", "position", "train",
           "run_correlation", "run_gradients", "run_training"]
