"""The chapter's experiment: concept dictionaries of a VLM's token representations, grounded and scored (§4).

For every target token and every method of :mod:`.decompositions`, on the trained VLM's representations and on
the untrained-projector control: fit K concepts on the training rows of Z, ground them in words (through
SmolLM2's unembedding) and in images (MAS), and measure reconstruction (train and test), overlap and attribute
precision; beside them, the random-words baseline on the Semi-NMF concepts' images.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import seeding
from . import grounding, metrics
from .collection import TokenSet
from .decompositions import METHODS, Decomposition, decompose
from .seminmf import encode_nonneg, kmeans_init

FAST_METHODS = ("snmf", "pca", "kmeans", "simple", "nmf")   # 'dict' (scikit-learn's Semi-NMF) is slow: full only
CONFIG = {
    "fast": dict(K=8, n_test=40, alpha=1.0, max_iter=100, n_words=10, pre_top=50, n_mas=5, n_random=5,
                 methods=FAST_METHODS, models=("trained", "untrained"), n_seeds=3),
    "full": dict(K=20, n_test=40, alpha=1.0, max_iter=500, n_words=10, pre_top=50, n_mas=5, n_random=20,
                 methods=METHODS, models=("trained", "untrained"), n_seeds=5),
}


@dataclass
class ConceptResult:
    """One dictionary, grounded and scored.

    Attributes
    ----------
    target, model ('trained' or 'untrained'), method : what was fitted.
    decomposition : :class:`.decompositions.Decomposition` on the training rows.
    scale : float, Z was divided by it (the RMS entry of the training rows) before fitting.
    words : K lists of grounded words. mas : (K, n_mas) int, indices into the training rows.
    precision : (K,) attribute precision. overlap : float. recon_train, recon_test : relative errors.
    """

    target: str
    model: str
    method: str
    decomposition: Decomposition
    scale: float
    words: list
    mas: np.ndarray
    precision: np.ndarray
    overlap: float
    recon_train: float
    recon_test: float


@dataclass
class ConceptsRun:
    """Everything the chapter shows.

    Attributes
    ----------
    results : (target, model, method) -> :class:`ConceptResult` at the first seed (every method).
    random_precision, random_words : (target, model) -> the random-words baseline (the paper's) at the first seed.
    seeds : the Semi-NMF initialisation seeds. by_seed : seed -> {(target, model): Semi-NMF ConceptResult}.
    test_error : seed -> {target: {'snmf', 'dict', 'frozen': relative test reconstruction error}}; 'dict' is
        scikit-learn's DictionaryLearning at the same K, α and seed (the same objective, another solver),
        'frozen' the Semi-NMF's initial dictionary never updated (activations fitted, atoms not).
    """

    config: dict
    meta: dict
    tokens: dict
    results: dict = field(default_factory=dict)
    random_precision: dict = field(default_factory=dict)   # (target, model) -> (n_random,) mean precision per draw
    random_words: dict = field(default_factory=dict)       # (target, model) -> K lists of words (draw 0)
    seeds: tuple = ()
    by_seed: dict = field(default_factory=dict)
    test_error: dict = field(default_factory=dict)

    def get(self, target: str, model: str = "trained", method: str = "snmf") -> ConceptResult:
        return self.results[(target, model, method)]


def split(tokens: TokenSet, n_test: int, model: str = "trained"):
    """Training and test rows of Z (the last ``n_test`` rows are the test set; the images are i.i.d.)."""
    Z = tokens.Z if model == "trained" else tokens.Z_control
    if not 1 <= n_test < len(Z) - 1:
        raise ValueError(f"n_test must be in [1, M - 2] = [1, {len(Z) - 2}], got {n_test}")
    return Z[:-n_test].astype(np.float64), Z[-n_test:].astype(np.float64)


def analyse(tokens: TokenSet, W_U: np.ndarray, vocab: np.ndarray, method: str = "snmf", model: str = "trained",
            K: int = 8, alpha: float = 1.0, n_test: int = 40, max_iter: int = 100, n_words: int = 10,
            pre_top: int = 50, n_mas: int = 5, seed: int = 0) -> ConceptResult:
    """Fit, ground and score one concept dictionary (Parekh et al. 2024, §3-4; see the module's text).

    Parameters
    ----------
    tokens : :class:`.collection.TokenSet`. W_U : (V, D) float, the unembedding. vocab : (V,) words from
    :func:`.grounding.vocabulary_words`. method : one of :data:`.decompositions.METHODS`. model : 'trained' or
    'untrained' (the control's representations). K, alpha, max_iter, seed : as :func:`.decompositions.decompose`.
    n_test : test rows. n_words, pre_top : text grounding. n_mas : images per concept.

    Returns
    -------
    :class:`ConceptResult`.

    Raises
    ------
    ValueError for an unknown model or method, K larger than the training rows, or non-finite representations.
    """
    if model not in ("trained", "untrained"):
        raise ValueError(f"model must be 'trained' or 'untrained', got {model!r}")
    Z_train, Z_test = split(tokens, n_test, model)
    if not np.all(np.isfinite(Z_train)):
        raise ValueError("the representations have NaN or inf entries")
    scale = float(np.sqrt(np.mean(Z_train ** 2)))      # α = 1 means something only at a fixed scale of Z
    dec = decompose(Z_train / scale, K, method, alpha=alpha, seed=seed, max_iter=max_iter)
    words = grounding.text_grounding(dec.U, W_U, vocab, n_words, pre_top)
    mas = grounding.most_activating(dec.V, n_mas)          # PCA's signed activations: the largest positive ones
    attrs = tokens.attributes[:len(Z_train)]
    precision = metrics.attribute_precision(words, mas, attrs, n_words=1, exclude=(tokens.target,),
                                            vocabulary=attribute_vocabulary(tokens.target))
    return ConceptResult(
        target=tokens.target, model=model, method=method, decomposition=dec, scale=scale, words=words, mas=mas,
        precision=precision, overlap=_overlap_or_nan(words),
        recon_train=metrics.reconstruction_error(Z_train / scale, dec.reconstruct(Z_train / scale)),
        recon_test=metrics.reconstruction_error(Z_test / scale, dec.reconstruct(Z_test / scale)))


def _overlap_or_nan(words) -> float:
    """The overlap, or NaN where it is undefined (a concept without grounded words; :func:`.metrics.overlap`)."""
    try:
        return metrics.overlap(words)
    except ValueError:
        return float("nan")


def attribute_vocabulary(target: str) -> tuple:
    """The words that count for attribute precision: the values of the attributes that vary among the images of
    ``target`` (for 'circle': the colours, sizes and positions). Words of the target's own attribute (every shape
    word, for 'circle') cannot tell one of its images from another, so they are passed over."""
    from ..assets.shapes import ATTRIBUTES
    from .collection import attribute_of

    fixed = attribute_of(target)
    return tuple(v for name, values in ATTRIBUTES.items() if name != fixed for v in values)


def precision_any_attribute(run, model: str = "trained", method: str = "snmf") -> float:
    """Mean attribute precision when *every* attribute word counts, the target's own kind included (a shape word
    other than the target, for 'circle', is then a miss): the stricter reading, for comparison."""
    from ..assets.shapes import ATTRIBUTES

    every = tuple(v for values in ATTRIBUTES.values() for v in values)
    out = []
    for t, tokens in run.tokens.items():
        res = run.get(t, model, method)
        attrs = tokens.attributes[:len(res.decomposition.V)]
        out.append(metrics.attribute_precision(res.words, res.mas, attrs, 1, exclude=(t,), vocabulary=every).mean())
    return float(np.mean(out))


def mas_purity(run, model: str = "trained", method: str = "snmf", attribute: str = "position") -> float:
    """How much a concept's most activating images agree on one attribute: the share of them that hold its most
    common value, averaged over concepts and targets (1 = all alike; with 5 images and 5 equally likely values,
    chance is about 0.45). It reads the images only, not the words.

    Raises
    ------
    ValueError for an attribute that is no attribute of the shapes data set.
    """
    from ..assets.shapes import ATTRIBUTES

    if attribute not in ATTRIBUTES:
        raise ValueError(f"attribute must be one of {sorted(ATTRIBUTES)}, got {attribute!r}")
    values = set(ATTRIBUTES[attribute])
    out = []
    for t, tokens in run.tokens.items():
        res = run.get(t, model, method)
        attrs = tokens.attributes[:len(res.decomposition.V)]
        for m in res.mas:
            counts = [sum(1 for i in m if v in attrs[int(i)]) for v in values]
            out.append(max(counts) / len(m))
    return float(np.mean(out))


def random_word_precision(result: ConceptResult, tokens: TokenSet, W_U, vocab, n_random: int, n_words: int = 10,
                          pre_top: int = 50):
    """The random-words baseline: the concepts' own MAS images, words from random directions (one draw per seed)."""
    K = len(result.words)
    attrs = tokens.attributes[:len(result.decomposition.V)]
    draws, first = [], None
    for s in range(n_random):
        words = grounding.random_words(K, W_U, vocab, n_words, pre_top, seed=s)
        first = words if first is None else first
        draws.append(float(np.mean(metrics.attribute_precision(words, result.mas, attrs, 1,
                                                               exclude=(tokens.target,),
                                                               vocabulary=attribute_vocabulary(tokens.target)))))
    return np.array(draws), first


def held_out_errors(tokens: TokenSet, K: int, alpha: float, n_test: int, max_iter: int, seed: int,
                    snmf: ConceptResult | None = None) -> dict:
    """Relative reconstruction error on the held-out rows of three dictionaries fitted on the training rows at the
    same K, α and seed: Semi-NMF ('snmf'), scikit-learn's DictionaryLearning with a non-negative code ('dict',
    the official code's solver of the same objective) and the Semi-NMF's initial atoms never updated ('frozen',
    the control). Test activations come from the non-negative lasso on each dictionary (as ``transform``).

    Returns
    -------
    dict: 'snmf', 'dict', 'frozen' -> float ≥ 0.
    """
    Z_train, Z_test = split(tokens, n_test, "trained")
    scale = float(np.sqrt(np.mean(Z_train ** 2)))
    Ztr, Zte = Z_train / scale, Z_test / scale
    fit = snmf.decomposition if snmf is not None else decompose(Ztr, K, "snmf", alpha=alpha, seed=seed,
                                                                  max_iter=max_iter)
    ref = decompose(Ztr, K, "dict", alpha=alpha, seed=seed, max_iter=max_iter)
    U0 = kmeans_init(Ztr, K, seed)                          # where the Semi-NMF starts
    return {"snmf": metrics.reconstruction_error(Zte, fit.reconstruct(Zte)),
            "dict": metrics.reconstruction_error(Zte, encode_nonneg(Zte, ref.U, alpha) @ ref.U),
            "frozen": metrics.reconstruction_error(Zte, encode_nonneg(Zte, U0, alpha) @ U0)}


def run_concepts(scale: str, data: dict, W_U: np.ndarray, vocab: np.ndarray, targets=None, seeds=None,
                 methods=None, test_errors: bool = True) -> ConceptsRun:
    """The whole experiment at a run scale, on cached representations (:func:`.collection.load`).

    Every method of the scale is fitted at the first seed (the comparison table and figures); Semi-NMF, on the
    trained and the untrained representations, and the held-out errors (:func:`held_out_errors`) at every seed.

    Parameters
    ----------
    scale : 'fast' or 'full' (:data:`CONFIG`). data : the cache. W_U, vocab : the LM's unembedding and words.
    targets : which targets (default: all in the cache).
    seeds : the Semi-NMF initialisation seeds (default ``neurips24.seeds(CONFIG[scale]['n_seeds'])``).
    methods : the methods fitted at the first seed (default: the scale's).
    test_errors : compute :func:`held_out_errors` at every seed (scikit-learn's fit is the slow part).

    Returns
    -------
    :class:`ConceptsRun`.
    """
    from ..scale import check_scale

    cfg = dict(CONFIG[check_scale(scale)])
    if methods is not None:
        cfg["methods"] = tuple(methods)
    seeds = tuple(seeding.seeds(cfg["n_seeds"]) if seeds is None else seeds)
    targets = [t for t in data if t != "meta"] if targets is None else list(targets)
    run = ConceptsRun(config=cfg, meta=data["meta"], tokens={t: data[t] for t in targets}, seeds=seeds)

    def fit(t, model, method, seed):
        return analyse(data[t], W_U, vocab, method, model, cfg["K"], cfg["alpha"], cfg["n_test"], cfg["max_iter"],
                       cfg["n_words"], cfg["pre_top"], cfg["n_mas"], seed=seed)

    for t in targets:
        for model in cfg["models"]:
            for method in cfg["methods"]:
                run.results[(t, model, method)] = fit(t, model, method, seeds[0])
            draws, words = random_word_precision(run.results[(t, model, "snmf")], data[t], W_U, vocab,
                                                 cfg["n_random"], cfg["n_words"], cfg["pre_top"])
            run.random_precision[(t, model)] = draws
            run.random_words[(t, model)] = words
    for s in seeds:
        run.by_seed[s] = {(t, model): run.results[(t, model, "snmf")] if s == seeds[0] else fit(t, model, "snmf", s)
                          for t in targets for model in cfg["models"]}
        if not test_errors:
            continue
        run.test_error[s] = {t: held_out_errors(data[t], cfg["K"], cfg["alpha"], cfg["n_test"], cfg["max_iter"], s,
                                                run.by_seed[s][(t, "trained")]) for t in targets}
    return run


def explain_sample(run: ConceptsRun, target: str, test_row: int = 0, top: int = 3):
    """Explain one test representation: its Semi-NMF activations and the ``top`` concepts it uses most (§4.3).

    Returns
    -------
    dict: 'row' (index into the token set), 'activations' (K,), 'concepts' (top indices, largest first),
    'words' (their grounded words), 'caption', 'attributes'.
    """
    res = run.get(target, "trained", "snmf")
    tokens = run.tokens[target]
    _, Z_test = split(tokens, run.config["n_test"], "trained")
    if not 0 <= test_row < len(Z_test):
        raise ValueError(f"test_row must be in [0, {len(Z_test)}), got {test_row}")
    v = res.decomposition.transform(Z_test[test_row:test_row + 1] / res.scale)[0]
    order = np.argsort(-v)[:top]
    row = len(tokens.Z) - run.config["n_test"] + test_row
    return {"row": row, "activations": v, "concepts": order, "words": [res.words[k] for k in order],
            "caption": tokens.captions[row], "attributes": tokens.attributes[row]}
