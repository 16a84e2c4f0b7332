"""Fel, Béthune, Lampinen, Serre & Hermann, NeurIPS 2024: feature complexity through V-information."""
from . import (
    exercises,
    experiment,
    features,
    images,
    kernels,
    layers,
    plots,
    redundancy,
    reproduction,
    resnet,
    robustness,
    vinfo,
)
from .experiment import Analysis, analyse, run_digits, run_efficientnet, spearman_interval
from .features import Dictionary, fit_dictionary
from .kernels import decodability_any, ridge_r2_numpy
from .layers import pooled_activations
from .redundancy import masked_cka_ratios, random_neuron_masks
from .resnet import build_resnet, train_resnet
from .robustness import feature_sensitivity, noise_sensitivity, noisy_activations
from .vinfo import complexity, decodability, importance, linear_cka, split_halves, v_information

__all__ = ["exercises", "experiment", "reproduction", "features", "images", "kernels", "layers", "plots", "redundancy",
           "resnet",
           "robustness", "vinfo", "Analysis", "analyse", "run_digits", "run_efficientnet", "spearman_interval",
           "Dictionary", "fit_dictionary", "decodability_any", "ridge_r2_numpy", "pooled_activations",
           "masked_cka_ratios", "random_neuron_masks", "build_resnet", "train_resnet", "feature_sensitivity",
           "noise_sensitivity", "noisy_activations", "complexity", "decodability", "importance", "linear_cka",
           "split_halves", "v_information"]
