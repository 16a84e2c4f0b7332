"""Makkuva et al., NeurIPS 2024: local-to-global learning dynamics of a one-layer transformer on Markov chains."""
from . import canonical, chain, exercises, experiment, flow, model, plots, reduced, reproduction, train
from .chain import bigram_loss, sample_chain, stationary, unigram_loss
from .experiment import run_portraits, run_transformers
from .reduced import predict_basin

__all__ = ["canonical", "chain", "exercises", "experiment", "flow", "model", "plots", "reduced", "reproduction",
           "train", "bigram_loss",
           "sample_chain", "stationary", "unigram_loss", "predict_basin", "run_portraits", "run_transformers"]
