"""Mao, Mohri & Zhong, NeurIPS 2024: realizable H-consistent and Bayes-consistent losses for learning to defer."""
from . import data, exercises, experiment, kernels, losses, metrics, plots, pointwise, reproduction, train
from .data import DeferData, digits_data, mixture_data
from .experiment import explore_run, run_digits, run_pointwise, run_realizable, run_tradeoff
from .kernels import FusedSurrogate, fused_loss_grad
from .losses import (
                     ce_surrogate,
                     decide,
                     deferral_loss,
                     expert_error_cost,
                     general_surrogate,
                     inference_cost,
                     ova_surrogate,
                     psi,
                     rl2d_surrogate,
                     rs_surrogate,
                     surrogate,
)
from .metrics import deferral_metrics
from .train import Spec, train_specs

__all__ = ["data", "exercises", "experiment", "kernels", "losses", "metrics", "plots", "pointwise", "reproduction",
           "train",
           "DeferData", "digits_data", "mixture_data", "explore_run", "run_digits", "run_pointwise", "run_realizable",
           "run_tradeoff", "FusedSurrogate", "fused_loss_grad", "ce_surrogate", "decide", "deferral_loss",
           "expert_error_cost", "general_surrogate", "inference_cost", "ova_surrogate", "psi", "rl2d_surrogate",
           "rs_surrogate", "surrogate", "deferral_metrics", "Spec", "train_specs"]
