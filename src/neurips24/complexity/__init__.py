"""Fel, Béthune, Lampinen, Serre & Hermann, NeurIPS 2024: feature complexity through V-information."""
from . import experiment, features, images, layers, plots, resnet, vinfo
from .experiment import Analysis, analyse, run_digits, run_efficientnet, spearman_interval
from .features import Dictionary, fit_dictionary
from .layers import pooled_activations
from .resnet import build_resnet, train_resnet
from .vinfo import complexity, decodability, importance, linear_cka, split_halves, v_information

__all__ = ["experiment", "features", "images", "layers", "plots", "resnet", "vinfo", "Analysis", "analyse",
           "run_digits", "run_efficientnet", "spearman_interval", "Dictionary", "fit_dictionary", "pooled_activations",
           "build_resnet", "train_resnet", "complexity", "decodability", "importance", "linear_cka",
           "split_halves", "v_information"]
