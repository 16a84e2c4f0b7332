"""Cui & Wang, NeurIPS 2024: parameter heterogeneity and CherryQ mixed-precision quantization of LLMs."""
from ..assets import load_smollm, smollm_available
from . import (
    charlm,
    corpus,
    exercises,
    experiment,
    impact,
    kernels,
    plots,
    qat,
    quantizer,
    real,
    reproduction,
    selection,
    smollm,
    tables,
    tail,
)
from .experiment import (
    CONFIG,
    PAPER_HS,
    PAPER_LLAMA2_7B,
    explore_ptq,
    run_real_model,
    run_real_training,
    run_trainable,
)
from .impact import fisher_lm, heterogeneity_score, per_sample_fisher
from .qat import QuantLinear, quantized_weights, swap_in_quant_linears
from .quantizer import fake_quantize, num_cherries, quantize_reference, select_cherries
from .selection import cherry_scores

__all__ = ["charlm", "corpus", "exercises", "experiment", "impact", "kernels", "plots", "qat", "quantizer", "real",
           "reproduction", "selection", "smollm", "tables", "tail", "CONFIG", "PAPER_HS", "PAPER_LLAMA2_7B",
           "explore_ptq", "run_real_model", "run_real_training", "run_trainable", "fisher_lm", "heterogeneity_score",
           "per_sample_fisher", "QuantLinear", "quantized_weights", "swap_in_quant_linears", "fake_quantize",
           "num_cherries", "quantize_reference", "select_cherries", "cherry_scores", "load_smollm",
           "smollm_available"]
