"""The miniature of the paper's analysis on the shared small VLM: generative vs probe accuracy, frequency, data.

:func:`run_vlm_classification` evaluates the shipped projectors of :mod:`neurips24.assets.tinyvlm` ('captions':
Zipf-frequency captions only; 'balanced': the same plus class-balanced classification-format data;
'zipf_question': the same classification format with Zipf-distributed classes) and, as a control, an *untrained*
projector, on a pool of held-out MNIST test digits (never trained on):

* open-world generation (greedy, substring match) with the paper's question, and with the projector's own
  training prompt (none: the caption follows the image), for the 'captions' projector (Sec. 2);
* probabilistic scoring of the ten digit names, from the same forward pass that yields the LM's last hidden
  state (Sec. 3.2);
* closed-world generation with 2 candidates, with the true class among them and, as a control, without it,
  on the first digits of each class (Sec. 2);
* linear probes on the vision features and on the LM's hidden state (Sec. 3.2). Each seed splits the pool into
  a class-balanced probe-training part and a test part; every accuracy of a seed is measured on its test part;
* the training frequency of each class name, counted in exactly the examples each projector saw (Sec. 4).

The language-model outputs (:func:`lm_outputs`) are the expensive part. They depend on the projectors and the
pool, not on the seeds, so they are cached: in ``$NEURIPS24_CACHE/vlm_classification/`` under a hash of what
they depend on, and, for the ``fast`` pool, shipped beside this module (``outputs_fast.npz``, written by
``scripts/vlm_outputs.py`` with its command inside); :func:`recheck` runs a few digits again to show that the
shipped file is what the model computes.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import seeding
from ..assets import mnist_5k, tinyvlm, tinyvlm_data
from ..assets.packages import cache_root
from ..scale import check_scale
from . import evaluation

CLASS_NAMES = tinyvlm_data.DIGIT_NAMES
PER_CLASS = {"fast": 30, "full": 100}            # held-out pool: digits per class of the test split
PROBE_TRAIN_PER_CLASS = {"fast": 10, "full": 50}  # of each class, this many train the probes; the rest test
CLOSED_PER_CLASS = {"fast": 6, "full": 20}       # closed-world prompts: the first digits of each class
N_SEEDS = {"fast": 3, "full": 5}                 # probe-training / test splits of the pool
MAX_NEW_TOKENS = 6
TRAINING_PROMPT = tinyvlm_data.CAPTION_INSTRUCTIONS[0]   # the prompt the projectors were trained with (empty)
UNTRAINED_SEED = 0    # the control's untrained projector (a recorded draw, like the shipped projectors' seeds)
CANDIDATE_SEED = 0    # the closed-world candidates (recorded with the shipped outputs)
PROJECTORS = ("captions", "balanced", "zipf_question", "untrained")
HERE = Path(__file__).resolve().parent
SHIPPED = {"fast": HERE / "outputs_fast.npz"}


@dataclass
class VariantResult:
    """What one projector does on the held-out pool.

    Attributes
    ----------
    name : 'captions', 'balanced', 'zipf_question' or 'untrained'.
    open_texts : N greedy answers to the paper's question (empty strings for 'untrained', which only gives
        hidden states); open_correct : (N,) bool, substring match.
    scores : (N, 10) float64, log-likelihood (nats) of each digit name as the answer; prob_pred : (N,) argmax.
    hidden : (N, 576) float32, the LM's final hidden state at the last prompt token (stored as float16).
    probe_accuracy : seed -> accuracy in [0, 1] of the linear probe on ``hidden`` on that seed's test part.
    open_accuracy : seed -> open-world accuracy on that seed's test part.
    train_prompt_texts, train_prompt_correct : the answers with the training prompt ('captions' only, else
        empty).
    closed_texts, closed_correct : the 2-candidate answers on the closed-world digits and their correctness
        (true class listed; 'captions' only). control_texts, control_correct : two wrong candidates listed.
    meta : the projector's training record (steps, seconds, losses, command); {} for 'untrained'.
    """

    name: str
    open_texts: list
    open_correct: np.ndarray
    scores: np.ndarray
    prob_pred: np.ndarray
    hidden: np.ndarray
    probe_accuracy: dict = field(default_factory=dict)
    open_accuracy: dict = field(default_factory=dict)
    train_prompt_texts: list = field(default_factory=list)
    train_prompt_correct: np.ndarray = None
    closed_texts: list = field(default_factory=list)
    closed_correct: np.ndarray = None
    control_texts: list = field(default_factory=list)
    control_correct: np.ndarray = None
    meta: dict = field(default_factory=dict)

    def accuracy(self, labels) -> dict:
        """Accuracies in [0, 1]: 'open', 'probabilistic' (on the whole pool), 'closed2', 'closed2_control' (on
        the closed-world digits; NaN where not run), 'probe' (mean over the seeds' test parts)."""
        y = np.asarray(labels)
        ran = self.closed_correct is not None and len(self.closed_correct) > 0
        return {"open": float(self.open_correct.mean()), "probabilistic": float((self.prob_pred == y).mean()),
                "closed2": float(self.closed_correct.mean()) if ran else float("nan"),
                "closed2_control": float(self.control_correct.mean()) if ran else float("nan"),
                "probe": float(np.mean(list(self.probe_accuracy.values())))}


@dataclass
class VLMClassificationResult:
    """Everything the chapter plots and checks.

    Attributes
    ----------
    scale : 'fast' or 'full'. labels : (N,) int64 pool digits. images : (N, 28, 28) uint8.
    seeds : the seeds of the probe splits; splits : seed -> (train_rows, test_rows), int64 indices into the pool.
    vision_probe_accuracy : seed -> accuracy of the probe on the vision features (mean of the 2 x 2 cells,
        1280-d) on that seed's test part.
    shuffled_probe_accuracy : seed -> the 'captions' LM probe trained on permuted labels (a control).
    frequency : (10,) int64, training captions that mention each digit name, counted in exactly the examples
        the 'captions' projector saw; frequency_balanced : the same for the 'balanced' projector.
    closed_rows : (n,) int64 pool indices of the closed-world digits; candidates, control_candidates : (n, 2).
    variants : name -> :class:`VariantResult` ('captions', 'balanced', 'zipf_question', 'untrained').
    seconds : wall-clock seconds of the run. source : where the LM outputs came from ('shipped', 'cache',
        'computed').
    """

    scale: str
    labels: np.ndarray
    images: np.ndarray
    seeds: tuple
    splits: dict
    vision_probe_accuracy: dict
    shuffled_probe_accuracy: dict
    frequency: np.ndarray
    frequency_balanced: np.ndarray
    closed_rows: np.ndarray
    candidates: np.ndarray
    control_candidates: np.ndarray
    variants: dict
    seconds: float
    source: str = "computed"


def _check_per_class(per_class, top: int) -> int:
    if isinstance(per_class, bool) or not isinstance(per_class, (int, np.integer)) or not 5 <= per_class <= top:
        raise ValueError(f"per_class must be an integer in 5..{top}, got {per_class!r}")
    return int(per_class)


def test_digits(per_class: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The first ``per_class`` test digits of each class of ``tinyvlm_data.mnist_split`` (never trained on): the
    held-out pool.

    Returns
    -------
    rows (N,) int64 into ``mnist_5k()``, images (N, 28, 28) uint8, labels (N,) int64, sorted by class.

    Raises
    ------
    ValueError if ``per_class`` is not an integer in 5..100.
    """
    _check_per_class(per_class, tinyvlm_data.TEST_PER_CLASS)
    X, y = mnist_5k()
    _, test = tinyvlm_data.mnist_split(y)
    rows = np.concatenate([test[y[test] == c][:per_class] for c in range(10)])
    return rows, X[rows].reshape(-1, 28, 28), y[rows]


def probe_split(labels, per_class_train: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A seeded class-balanced split of the pool: ``per_class_train`` digits of each class train the probes,
    the rest test them (the role of the paper's training and validation splits).

    Returns
    -------
    train_rows, test_rows : sorted int64 indices into ``labels``, disjoint, covering every row.

    Raises
    ------
    ValueError if a class has no more than ``per_class_train`` digits or ``per_class_train`` < 1.
    """
    y = np.asarray(labels)
    counts = np.bincount(y, minlength=10)
    if isinstance(per_class_train, bool) or not 1 <= per_class_train < counts.min():
        raise ValueError(f"per_class_train must be in 1..{counts.min() - 1}, got {per_class_train!r}")
    rng = np.random.default_rng(seed)
    train = np.concatenate([rng.choice(np.flatnonzero(y == c), per_class_train, replace=False) for c in range(10)])
    return np.sort(train).astype(np.int64), np.setdiff1d(np.arange(len(y)), train).astype(np.int64)


def class_frequency(tokenizer, variant: str, meta: dict | None = None) -> np.ndarray:
    """freq(c) of each digit name in exactly the training examples the projector ``variant`` saw (Sec. 4's count),
    recovered from its file's metadata (:func:`neurips24.assets.tinyvlm_data.seen_examples`).

    Returns
    -------
    (10,) int64.

    Raises
    ------
    ValueError for an unknown variant; FileNotFoundError if its projector file is missing.
    """
    if variant not in tinyvlm.WEIGHTS:
        raise ValueError(f"variant must be one of {sorted(tinyvlm.WEIGHTS)}, got {variant!r}")
    meta = tinyvlm.load_projector(variant)[1] if meta is None else meta
    _, y = mnist_5k()
    examples = tinyvlm_data.seen_examples(meta, y)
    texts = [e.answer for e in examples if e.source != "shape"]   # shape captions never name a digit
    caps = [tokenizer(" " + t, add_special_tokens=False).input_ids for t in texts]
    names = tinyvlm.class_name_tokens(tokenizer, CLASS_NAMES)
    return np.array([evaluation.count_mentions(caps, t) for t in names], dtype=np.int64)


def untrained_projector():
    """The control: a freshly initialised projector (seed :data:`UNTRAINED_SEED`) with the 'captions' projector's
    feature standardisation, so that only what the projector learned differs."""
    import torch

    fresh = tinyvlm.new_projector(UNTRAINED_SEED)
    shipped, _ = tinyvlm.load_projector("captions")
    with torch.no_grad():
        fresh.feat_mean.copy_(shipped.feat_mean)
        fresh.feat_std.copy_(shipped.feat_std)
    return fresh.eval()


def _projector(name: str):
    return untrained_projector() if name == "untrained" else tinyvlm.load_projector(name)[0]


def _identity(name: str) -> bytes:
    if name == "untrained":
        return f"untrained-{UNTRAINED_SEED}".encode() + tinyvlm.WEIGHTS["captions"].read_bytes()
    return tinyvlm.WEIGHTS[name].read_bytes()


def _closed_prompts(candidates) -> list[str]:
    return [evaluation.closed_world_prompt([CLASS_NAMES[k] for k in row]) for row in candidates]


def _parts(scale: str, labels) -> dict:
    """The LM passes of one run: part name -> (projector, prompts (one string or a list), rows, kind)."""
    closed_rows = np.concatenate([np.flatnonzero(labels == c)[:CLOSED_PER_CLASS[scale]] for c in range(10)])
    y = labels[closed_rows]
    cand = evaluation.closed_world_candidates(y, 10, 2, seed=CANDIDATE_SEED)
    ctrl = evaluation.closed_world_candidates(y, 10, 2, seed=CANDIDATE_SEED + 1, include_true=False)
    return {"captions.open": ("captions", evaluation.OPEN_QUESTION, None, "generate"),
            "captions.train_prompt": ("captions", TRAINING_PROMPT, None, "generate"),
            "captions.closed": ("captions", _closed_prompts(cand), closed_rows, "generate"),
            "captions.closed_control": ("captions", _closed_prompts(ctrl), closed_rows, "generate"),
            "balanced.open": ("balanced", evaluation.OPEN_QUESTION, None, "generate"),
            "zipf_question.open": ("zipf_question", evaluation.OPEN_QUESTION, None, "generate"),
            "untrained.open": ("untrained", evaluation.OPEN_QUESTION, None, "hidden")}, closed_rows, cand, ctrl


def _key(part: str, spec, feats) -> str:
    name, prompts, rows, kind = spec
    h = hashlib.sha1(_identity(name))
    h.update(np.ascontiguousarray(feats if rows is None else feats[rows]).tobytes())
    h.update(json.dumps([part, prompts, kind, MAX_NEW_TOKENS]).encode())
    return h.hexdigest()[:20]


def _run_part(vlm, spec, feats) -> dict:
    name, prompts, rows, kind = spec
    f = feats if rows is None else feats[rows]
    ids = [t[0] for t in tinyvlm.class_name_tokens(vlm.tokenizer, CLASS_NAMES)]   # every digit name is one token
    if kind == "hidden":
        return {"hidden": tinyvlm.hidden_states(vlm, f, prompts).astype(np.float16)}
    gen = tinyvlm.generate(vlm, f, prompts, max_new_tokens=MAX_NEW_TOKENS)
    return {"texts": np.array(gen.texts, dtype=str), "scores": gen.first_logprobs[:, ids].astype(np.float64),
            "hidden": gen.hidden.astype(np.float16)}


def _read_npz(path: Path, prefix: str = "") -> dict:
    with np.load(path, allow_pickle=False) as z:
        return {k[len(prefix):]: z[k] for k in z.files if k.startswith(prefix)}


def lm_outputs(scale: str = "fast", vlm=None, cache: bool = True, shipped: bool = True) -> tuple[dict, str]:
    """The language-model outputs of every part of the run (see the module's text), each read from the shipped
    file, the cache, or computed.

    Parameters
    ----------
    scale : 'fast' or 'full'. vlm : a loaded :class:`neurips24.assets.tinyvlm.TinyVLM` whose language model is
        reused (its projector is **not** changed: each part runs on a copy that shares the frozen LM), or None to
        load one when a part must be computed.
    cache : read/write ``$NEURIPS24_CACHE``. shipped : read the shipped file when its hashes match.

    Returns
    -------
    (outputs, source) : part name -> {'texts': (n,) str, 'scores': (n, 10) float64, 'hidden': (n, 576) float16}
    ('texts' and 'scores' absent for hidden-state parts); source is 'shipped', 'cache', 'computed' or a mix.
    """
    check_scale(scale)
    _, images, labels = test_digits(PER_CLASS[scale])
    feats = tinyvlm.image_features(images, vlm=vlm, cache=cache)
    parts = _parts(scale, labels)[0]
    ship = SHIPPED.get(scale)
    out, sources = {}, set()
    for part, spec in parts.items():
        key = _key(part, spec, feats)
        path = cache_root() / "vlm_classification" / f"{part}-{key}.npz"
        if shipped and ship is not None and ship.is_file():
            got = _read_npz(ship, f"{key}__")
            if got:
                out[part] = got
                sources.add("shipped")
                continue
        if cache and path.is_file():
            out[part] = _read_npz(path)
            sources.add("cache")
            continue
        if vlm is None:
            vlm = tinyvlm.load_tinyvlm(None)
        copy = tinyvlm.TinyVLM(lm=vlm.lm, tokenizer=vlm.tokenizer, projector=_projector(spec[0]), vision=vlm.vision)
        out[part] = _run_part(copy, spec, feats)
        sources.add("computed")
        if cache:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(path.stem + f".tmp{os.getpid()}.npz")
            np.savez(tmp, **out[part])
            tmp.replace(path)
    return out, "+".join(sorted(sources))


def save_shipped(scale: str, outputs: dict, path: Path | str, command: str) -> Path:
    """Write :func:`lm_outputs`' parts into one ``.npz`` (keys ``<hash>__<field>``, no pickle) with the command."""
    _, images, labels = test_digits(PER_CLASS[scale])
    feats = tinyvlm.image_features(images)
    parts = _parts(scale, labels)[0]
    arrays = {"meta": np.array(json.dumps({"command": command, "scale": scale,
                                           "keys": {p: _key(p, parts[p], feats) for p in parts}}))}
    for part, spec in parts.items():
        for k, v in outputs[part].items():
            arrays[f"{_key(part, spec, feats)}__{k}"] = v
    path = Path(path)
    tmp = path.with_name(path.stem + ".tmp.npz")
    np.savez_compressed(tmp, **arrays)
    tmp.replace(path)
    return path


def recheck(vlm, scale: str = "fast", n: int = 6) -> dict:
    """Run the first ``n`` pool digits through ``vlm``'s language model again with the 'captions' projector and
    compare with :func:`lm_outputs` (shipped or cached): the largest hidden-state difference and the number of
    identical answers. ``vlm`` itself is not changed.

    Returns
    -------
    dict: 'max_hidden_diff' (float), 'same_answers' (int), 'n' (int).
    """
    outputs, _ = lm_outputs(scale, vlm=vlm)
    _, images, _ = test_digits(PER_CLASS[scale])
    feats = tinyvlm.image_features(images[:n], vlm=vlm, cache=False)
    copy = tinyvlm.TinyVLM(lm=vlm.lm, tokenizer=vlm.tokenizer, projector=_projector("captions"), vision=vlm.vision)
    now = _run_part(copy, ("captions", evaluation.OPEN_QUESTION, None, "generate"), feats)
    ref = outputs["captions.open"]
    diff = np.abs(now["hidden"].astype(np.float32) - ref["hidden"][:n].astype(np.float32)).max()
    return {"max_hidden_diff": float(diff), "n": int(n),
            "same_answers": int(sum(a == b for a, b in zip(now["texts"], ref["texts"][:n], strict=True)))}


def analyse(outputs: dict, scale: str = "fast", seeds=None, frequency=None) -> VLMClassificationResult:
    """Probes, accuracies and frequencies from :func:`lm_outputs` (no language model runs here).

    Parameters
    ----------
    outputs : from :func:`lm_outputs`. scale : 'fast' or 'full'. seeds : the probe splits (default
        ``neurips24.seeds(N_SEEDS[scale])``). frequency : optional (freq_captions, freq_balanced), (10,) each;
        default: counted with SmolLM2's tokenizer (:func:`class_frequency`).

    Returns
    -------
    :class:`VLMClassificationResult`.
    """
    check_scale(scale)
    t0 = time.perf_counter()
    seeds = tuple(seeding.seeds(N_SEEDS[scale]) if seeds is None else seeds)
    _, images, labels = test_digits(PER_CLASS[scale])
    feats = tinyvlm.image_features(images)
    _, closed_rows, cand, ctrl = _parts(scale, labels)
    names = list(CLASS_NAMES)
    variants = {}
    for name in PROJECTORS:
        o = outputs[f"{name}.open"]
        texts = [str(t) for t in o.get("texts", [""] * len(labels))]
        scores = o.get("scores", np.zeros((len(labels), 10)))
        variants[name] = VariantResult(name=name, open_texts=texts,
                                       open_correct=evaluation.substring_correct(texts, labels, names),
                                       scores=scores, prob_pred=scores.argmax(1),
                                       hidden=o["hidden"].astype(np.float32),
                                       meta={} if name == "untrained" else tinyvlm.load_projector(name)[1])
    cap = variants["captions"]
    cap.train_prompt_texts = [str(t) for t in outputs["captions.train_prompt"]["texts"]]
    cap.train_prompt_correct = evaluation.substring_correct(cap.train_prompt_texts, labels, names)
    cap.closed_texts = [str(t) for t in outputs["captions.closed"]["texts"]]
    cap.control_texts = [str(t) for t in outputs["captions.closed_control"]["texts"]]
    cap.closed_correct = evaluation.choice_correct(cap.closed_texts, labels[closed_rows], cand, names)
    cap.control_correct = evaluation.choice_correct(cap.control_texts, labels[closed_rows], ctrl, names)
    splits, vision, shuffled = {}, {}, {}
    vision_feats = feats.mean(1)
    for s in seeds:
        train, test = probe_split(labels, PROBE_TRAIN_PER_CLASS[scale], s)
        splits[s] = (train, test)
        vision[s] = _probe_accuracy(vision_feats, labels, train, test)
        for v in variants.values():
            v.probe_accuracy[s] = _probe_accuracy(v.hidden, labels, train, test)
            v.open_accuracy[s] = float(v.open_correct[test].mean())
        permuted = labels.copy()
        permuted[train] = np.random.default_rng(s).permutation(labels[train])
        shuffled[s] = _probe_accuracy(cap.hidden, permuted, train, test, truth=labels)
    if frequency is None:
        tok = _tokenizer()
        frequency = (class_frequency(tok, "captions", cap.meta), class_frequency(tok, "balanced",
                                                                               variants["balanced"].meta))
    return VLMClassificationResult(
        scale=scale, labels=labels, images=images, seeds=seeds, splits=splits, vision_probe_accuracy=vision,
        shuffled_probe_accuracy=shuffled, frequency=np.asarray(frequency[0]),
        frequency_balanced=np.asarray(frequency[1]), closed_rows=closed_rows, candidates=cand,
        control_candidates=ctrl, variants=variants, seconds=time.perf_counter() - t0)


def _probe_accuracy(features, labels, train, test, truth=None) -> float:
    """Accuracy on ``test`` of a linear probe trained on ``train`` (labels ``labels``; scored against ``truth``)."""
    truth = labels if truth is None else truth
    pred = evaluation.linear_probe(features[train], labels[train], features[test])
    return float((pred == truth[test]).mean())


def _tokenizer():
    """SmolLM2's tokenizer alone when its converted cache exists (a fraction of a second), else via the model."""
    from ..assets import smollm

    folder = smollm.cache_dir()
    if (folder / "tokenizer.json").is_file():
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(folder, local_files_only=True)
    return smollm.load_smollm(verbose=False).tokenizer


def run_vlm_classification(scale: str = "fast", cache: bool = True, seeds=None, vlm=None,
                           shipped: bool = True) -> VLMClassificationResult:
    """Evaluate the shipped projectors and the untrained control on held-out MNIST digits with the paper's
    protocols: :func:`lm_outputs`, then :func:`analyse`.

    Parameters
    ----------
    scale : 'fast' (a pool of 300 held-out digits, 100 of them probe-training per seed, 3 seeds; the shipped
        outputs make it seconds, about 2 minutes on one CPU thread without them) or 'full' (1000 digits, 500
        probe-training per seed, 5 seeds).
    cache : read/write the image features and LM outputs in ``$NEURIPS24_CACHE``.
    seeds : the seeds of the probe splits (default ``neurips24.seeds(N_SEEDS[scale])``).
    vlm : a loaded :class:`neurips24.assets.tinyvlm.TinyVLM` whose language model is reused, or None to load one
        when needed. It is left as it was: every projector runs on a copy that shares its frozen parts.
    shipped : read the shipped outputs (``fast`` only) when they match the projectors.

    Returns
    -------
    :class:`VLMClassificationResult`.

    Raises
    ------
    ValueError for an unknown scale. FileNotFoundError if a projector file is missing.
    """
    check_scale(scale)
    t0 = time.perf_counter()
    outputs, source = lm_outputs(scale, vlm=vlm, cache=cache, shipped=shipped)
    tok = vlm.tokenizer if vlm is not None else None
    freq = None
    if tok is not None:
        freq = (class_frequency(tok, "captions"), class_frequency(tok, "balanced"))
    result = analyse(outputs, scale, seeds, freq)
    result.seconds, result.source = time.perf_counter() - t0, source
    return result


LIVE_STEPS = {"fast": 4, "full": 60}


def live_training(scale: str = "fast", batch: int = 8, seed: int | None = None, vlm=None) -> list:
    """A short live projector run from a fresh initialisation, on the start of the 'captions' training stream,
    to show the loss curve (the shipped projectors were trained by ``scripts/train_projector.py``).

    Parameters
    ----------
    scale : 'fast' (4 steps) or 'full' (60 steps).
    batch : examples per step, 1..64.
    seed : seed of the fresh projector and of the stream (default ``neurips24.seed(0)``).
    vlm : a loaded :class:`neurips24.assets.tinyvlm.TinyVLM` whose language model is reused (its projector is
        left untouched), or None to load one.

    Returns
    -------
    list of float, the caption loss (nats / token) of each step.

    Raises
    ------
    ValueError for an unknown scale or a batch outside 1..64.
    """
    import torch

    check_scale(scale)
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)) or not 1 <= batch <= 64:
        raise ValueError(f"batch must be an integer in 1..64, got {batch!r}")
    seed = seeding.seed(0) if seed is None else seed
    X, y = mnist_5k()
    steps = LIVE_STEPS[scale]
    examples = tinyvlm_data.training_examples(steps * batch, y, "captions", seed)
    pool = tinyvlm_data.shape_pool()
    tinyvlm_data.fill_shape_answers(examples, pool)
    digits = [k for k, e in enumerate(examples) if e.source != "shape"]
    drawn = [k for k, e in enumerate(examples) if e.source == "shape"]
    feats = np.zeros((len(examples), tinyvlm.N_PREFIX, tinyvlm.FEATURE_DIM), dtype=np.float32)
    if digits:
        feats[digits] = tinyvlm.image_features(X[[examples[k].index for k in digits]].reshape(-1, 28, 28), vlm=vlm)
    if drawn:
        feats[drawn] = tinyvlm.image_features(pool.images[[examples[k].index for k in drawn]], vlm=vlm)
    fresh = tinyvlm.new_projector(seed)
    shipped, _ = tinyvlm.load_projector("captions")     # the feature standardisation of the shipped run
    fresh.feat_mean.copy_(shipped.feat_mean)
    fresh.feat_std.copy_(shipped.feat_std)
    if vlm is None:
        vlm = tinyvlm.load_tinyvlm(None, seed=seed)
    live = tinyvlm.TinyVLM(lm=vlm.lm, tokenizer=vlm.tokenizer, projector=fresh)
    opt = torch.optim.Adam(live.projector.parameters(), lr=1e-2)     # as scripts/train_projector.py, no warm-up
    losses = []
    for s in range(steps):
        part = examples[s * batch:(s + 1) * batch]
        loss = tinyvlm.caption_loss(live, feats[s * batch:(s + 1) * batch], [e.instruction for e in part],
                                    [e.answer for e in part])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(live.projector.parameters(), 1.0)
        opt.step()
        losses.append(float(loss.detach()))
    return losses
