"""Cabannes et al., NeurIPS 2024: iteration heads, how chain-of-thought emerges in a two-layer transformer.

Modules, in the paper's order: ``tasks`` (iterative tasks and the token layout, §2), ``model`` (the 2-layer,
1-head transformer of the official code, as an ensemble, §3), ``train`` (Adam on the CoT loss, §3),
``metrics`` (accuracy, attention peakiness, §4), ``experiment`` (emergence, controls, transfer, grid, §3–§5),
``reproduction`` (the chapter's claim rules), ``plots``, ``kernels`` (a fused causal attention that returns the
maps: CUDA kernel and torch reference).
"""
from . import exercises, experiment, kernels, metrics, model, plots, reproduction, tasks, train
from .experiment import drop_ratio, run_emergence, run_grid, run_one_layer, run_transfer
from .model import EnsembleTransformer
from .tasks import TOKENS, make_dataset, states

__all__ = ["exercises", "experiment", "kernels", "metrics", "model", "plots", "reproduction", "tasks", "train",
           "drop_ratio",
           "run_emergence", "run_grid", "run_one_layer", "run_transfer", "EnsembleTransformer", "TOKENS",
           "make_dataset", "states"]
