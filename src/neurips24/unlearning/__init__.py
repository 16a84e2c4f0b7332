"""Zhao, Kurmanji, Bărbulescu, Triantafillou & Triantafillou, NeurIPS 2024: what makes unlearning hard
(memorization, entanglement) and RUM, a refine-then-unlearn meta-algorithm."""
from . import (
           algorithms,
           data,
           entanglement,
           exercises,
           experiment,
           forget_sets,
           memorization,
           metrics,
           plots,
           reproduction,
           stack,
)
from .algorithms import ALGORITHMS, HYPER, Job, make_job, run_jobs
from .data import UnlearnData, noisy_digits
from .entanglement import entanglement_score
from .experiment import CONFIG, SeedResult, UnlearningResult, run_seed, run_unlearning
from .forget_sets import check_forget_set, distance_groups, memorization_groups, random_set
from .memorization import MemorizationResult, estimate_memorization, memorization_from_runs, subset_masks
from .metrics import accuracies, mia_efficacy, modified_entropy, tow, true_class_confidence
from .stack import Objective, fit_from_scratch, init_stack, train_stack

__all__ = ["reproduction", "algorithms", "data",
           "entanglement", "exercises", "experiment", "forget_sets", "memorization", "metrics",
           "plots", "stack", "ALGORITHMS", "HYPER", "Job", "make_job", "run_jobs", "UnlearnData", "noisy_digits",
           "entanglement_score", "CONFIG", "SeedResult", "UnlearningResult", "run_seed", "run_unlearning",
           "check_forget_set", "distance_groups", "memorization_groups", "random_set", "MemorizationResult",
           "estimate_memorization", "memorization_from_runs", "subset_masks", "accuracies", "mia_efficacy",
           "modified_entropy", "tow", "true_class_confidence", "Objective", "fit_from_scratch", "init_stack",
           "train_stack"]
