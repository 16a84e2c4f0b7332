"""Gopalani, Lubana & Hu, NeurIPS 2024: abrupt learning in a BERT trained on low-rank matrix completion.

Modules, in the paper's order: ``data`` (matrix completion as masked language modelling, §2), ``model`` (the
BERT encoder of the official code), ``train`` (Adam on the MSE over all entries; masked and observed MSE logged
apart), ``nuclear`` (the nuclear-norm baseline by ADMM + singular-value thresholding, §3), ``probes`` (attention
row/column scores, the copy-vs-compute score, linear probes, §4), ``experiment`` (the live plateau, the shipped
run, the search table), ``plots``, ``exercises``.
"""
from . import data, exercises, experiment, model, nuclear, plots, probes, train
from .data import Tokenizer, entry_variance, sample_batch
from .experiment import evaluate, held_out, nuclear_baseline, run_plateau, search_table, shipped_run
from .model import MatrixBERT
from .nuclear import cvx_complete, nuclear_norm_complete, svt
from .train import Config

__all__ = ["data", "exercises", "experiment", "model", "nuclear", "plots", "probes", "train", "Tokenizer",
           "entry_variance", "sample_batch", "evaluate", "held_out", "nuclear_baseline", "run_plateau",
           "search_table", "shipped_run", "MatrixBERT", "cvx_complete", "nuclear_norm_complete", "svt", "Config"]
