"""Dominguez-Olmedo, Hardt & Mendler-Dünner, NeurIPS 2024: questioning the survey responses of large language models."""
from ..assets import load_smollm, smollm_available
from . import (
    adjust,
    census,
    exercises,
    experiment,
    extraction,
    metrics,
    plots,
    prompts,
    questionnaire,
    reproduction,
    responders,
    subgroups,
    tables,
)
from .adjust import adjusted_response, adjusted_response_sigma, choice_orders, naive_response
from .census import census_distribution, census_sources, covered_questions, geographies
from .experiment import CONFIG, PAPER_CLOSER_MAX, run_hicov_states, run_survey, run_synthetic_states
from .metrics import a_bias, entropy_bits, kl_bits, kl_to_uniform, normalized_entropy
from .questionnaire import get_question, questions

__all__ = ["adjust", "census", "exercises", "experiment", "extraction", "metrics", "plots", "prompts",
           "questionnaire", "reproduction", "responders", "subgroups", "tables", "adjusted_response",
           "adjusted_response_sigma", "choice_orders", "naive_response", "census_distribution", "census_sources",
           "covered_questions", "geographies", "CONFIG", "PAPER_CLOSER_MAX", "run_hicov_states", "run_survey",
           "run_synthetic_states", "a_bias", "entropy_bits", "kl_bits", "kl_to_uniform", "normalized_entropy",
           "get_question", "questions",
           "load_smollm", "smollm_available"]
