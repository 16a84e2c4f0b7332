"""Cao, Xia, Ding, Zhang, Hu, NeurIPS 2024: test-time dynamic image fusion (TTD).

Modules, in the order of the paper:

- ``data``: two-source pairs with a ground truth (multi-focus from a measured depth map, multi-exposure, a
  synthetic infrared–visible stand-in), made from photographs that ship with scikit-image;
- ``network``: a small IFCNN-like fusion network, trained for fusion (unsupervised loss, Eq. 2) or, as the
  control, for reconstruction only;
- ``weights``: uni-source components, relative dominability (Eq. 6, the code's γ = 50 and ×M), weighted
  feature fusion (Alg. 1), the Theorem 3.1 bound terms;
- ``metrics``: EN, SD, AG, EI, SF, SCD, CE, SSIM and PSNR/SSIM against the ground truth;
- ``classical``: Laplacian-pyramid (scikit-image) and wavelet (PyWavelets) fusion baselines;
- ``experiment``: the chapter's run; ``reproduction``: its claims, over training seeds, at γ = 1 and 50;
  ``plots``: its figures;
- ``kernels``: a CUDA kernel (``rd_fuse.cu``) for the weights and the weighted feature fusion, beside its
  NumPy reference.
"""
from . import classical, data, exercises, experiment, kernels, metrics, network, plots, reproduction, weights
from .classical import laplacian_pyramid_fusion, wavelet_fusion
from .data import FusionPair, infrared_visible_pair, multi_exposure_pair, multi_focus_pair
from .experiment import evaluate, explore_gamma, run_fusion, train_networks
from .metrics import fusion_metrics
from .network import FusionNet, fusion_loss, train_fusion, train_reconstruction
from .weights import bound_terms, fuse, rd_weights, stack_sources, ttd_fuse, uni_source_loss

__all__ = ["classical", "data", "reproduction", "exercises", "experiment", "kernels", "metrics", "network", "plots",
           "weights",
           "laplacian_pyramid_fusion", "wavelet_fusion", "FusionPair", "infrared_visible_pair", "multi_exposure_pair",
           "multi_focus_pair", "evaluate", "explore_gamma", "run_fusion", "train_networks", "fusion_metrics",
           "FusionNet", "fusion_loss", "train_fusion", "train_reconstruction", "bound_terms", "fuse", "rd_weights",
           "stack_sources", "ttd_fuse", "uni_source_loss"]
