"""Koshizuka et al., NeurIPS 2024: the Fourier Neural Operator at the edge of chaos (mean-field view)."""
from . import (
    backward,
    data,
    exercises,
    experiment,
    layer,
    meanfield,
    model,
    montecarlo,
    plots,
    position,
    train,
    trainability,
)
from .experiment import run_correlation, run_gradients, run_training
from .trainability import run_trainability

__all__ = ["backward", "data", "exercises", "experiment", "layer", "meanfield", "model", "montecarlo", "plots",
           "position", "train", "trainability", "run_correlation", "run_gradients", "run_training",
           "run_trainability"]
