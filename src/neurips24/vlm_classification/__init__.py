"""Zhang et al., NeurIPS 2024: why visually-grounded language models are bad at image classification."""
from . import evaluation, exercises, experiment, plots, reproduction
from .evaluation import (
    OPEN_QUESTION,
    choice_correct,
    closed_world_candidates,
    closed_world_prompt,
    count_mentions,
    label_set_accuracy,
    linear_probe,
    per_class_accuracy,
    substring_correct,
)
from .experiment import CLASS_NAMES, VLMClassificationResult, run_vlm_classification

__all__ = ["evaluation", "exercises", "experiment", "plots", "reproduction", "OPEN_QUESTION", "choice_correct",
           "closed_world_candidates", "closed_world_prompt", "count_mentions", "per_class_accuracy",
           "label_set_accuracy", "linear_probe", "substring_correct", "CLASS_NAMES", "VLMClassificationResult",
           "run_vlm_classification"]
