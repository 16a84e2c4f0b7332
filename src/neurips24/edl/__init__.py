"""Shen, Ryu, Ghosh, Bu, Sattigeri, Das, Wornell, NeurIPS 2024: are evidential deep learning's uncertainties a mirage?

Modules, in the order of the paper:

- ``dirichlet``: the Dirichlet meta-distribution, its total evidence and uncertainty decomposition (Sec. 2);
- ``objectives``: the unified objective (eq. (6)), its optimum, the energy view, the Bootstrap-Distill loss;
- ``data``: a Gaussian mixture with a known posterior, and scikit-learn's digits with held-out classes;
- ``models``: many small MLPs trained at once (evidential, softmax bootstrap, distilled);
- ``experiment``: the chapter's runs (Sec. 5.1 and 5.2 in miniature); ``plots``: its figures;
- ``reproduction``: the chapter's reproduction checks (claims, per-seed values, controls);
- ``kernels``: a fused CUDA kernel (``edl_fused.cu``) for the loss, its gradient and the decomposition, beside
  its torch reference.
"""
from . import data, dirichlet, exercises, experiment, kernels, models, objectives, plots, reproduction
from .data import GaussianMixture, digits_split
from .dirichlet import (
    aleatoric_uncertainty,
    ensemble_uncertainties,
    epistemic_uncertainty,
    kl_dirichlet,
    total_evidence,
    total_uncertainty,
    uncertainties,
)
from .experiment import explore_maps, run_digits, run_gaussian
from .objectives import distill_loss, energy_score, evidential_alpha, optimal_alpha, target_alpha, unified_loss

__all__ = ["data", "dirichlet", "exercises", "experiment", "kernels", "models", "objectives", "plots", "reproduction",
           "GaussianMixture", "digits_split",
           "aleatoric_uncertainty", "ensemble_uncertainties", "epistemic_uncertainty", "kl_dirichlet",
           "total_evidence", "total_uncertainty", "uncertainties", "explore_maps", "run_digits", "run_gaussian",
           "distill_loss", "energy_score", "evidential_alpha", "optimal_alpha", "target_alpha", "unified_loss"]
