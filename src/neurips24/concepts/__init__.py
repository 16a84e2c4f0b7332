"""A concept-based explainability framework for large multimodal models (Parekh et al., NeurIPS 2024): CoX-LMM.

Modules, in the paper's order:

- ``representations``: the LM state that predicts a target token, per image (§3.1).
- ``collection``: collect them from the shared small VLM, and cache them (book's own).
- ``seminmf``: the Semi-NMF concept dictionary Z ≈ V U, V ≥ 0 (§3.2, eq. (2)); ``kernels``: its V-step on a GPU.
- ``decompositions``: Semi-NMF and the baselines (PCA, k-means, Simple, scikit-learn's dictionary learning, NMF).
- ``grounding``: concepts in words (the LM's unembedding) and in images (most activating samples) (§3.3).
- ``metrics``: reconstruction, overlap, attribute precision (the book's stand-in for CLIPScore) (§4).
- ``experiment``: ``run_concepts(scale, ...)``; ``reproduction``: the checks; ``plots``; ``exercises``.
"""
from . import (
               collection,
               decompositions,
               exercises,
               experiment,
               grounding,
               kernels,
               metrics,
               plots,
               representations,
               reproduction,
               seminmf,
)
from .collection import TokenSet, load
from .decompositions import METHODS, decompose
from .experiment import CONFIG, ConceptsRun, analyse, explain_sample, run_concepts
from .grounding import most_activating, random_words, text_grounding, top_words, vocabulary_words
from .metrics import attribute_precision, overlap, reconstruction_error
from .seminmf import SemiNMF, encode_nonneg, objective, semi_nmf

__all__ = ["collection", "decompositions", "exercises", "experiment", "grounding", "kernels", "metrics", "plots",
           "representations", "reproduction", "seminmf", "TokenSet", "load", "METHODS", "decompose", "CONFIG",
           "ConceptsRun", "analyse", "explain_sample", "run_concepts", "most_activating", "random_words",
           "text_grounding", "top_words", "vocabulary_words", "attribute_precision", "overlap",
           "reconstruction_error", "SemiNMF", "encode_nonneg", "objective", "semi_nmf"]
