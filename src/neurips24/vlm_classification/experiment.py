"""The miniature of the paper's analysis on the shared small VLM: generative vs probe accuracy, frequency, data.

One call, :func:`run_vlm_classification`, evaluates both shipped projectors of
:mod:`neurips24.assets.tinyvlm` ('captions': Zipf-frequency captions only; 'balanced': the same plus
class-balanced classification-format data) on held-out MNIST test digits:

* open-world generation (greedy, substring match) and probabilistic scoring of the ten digit names, from one
  forward pass that also yields the LM's last hidden state (Sec. 2, Sec. 3.2);
* closed-world generation with 2 candidates, with the true class among them and, as a control, without it;
* linear probes on the vision features and on the LM's hidden state, trained on a class-balanced set of
  digits from the projector's training pool (Sec. 3.2);
* the training frequency of each class name, counted in the projector's own training captions (Sec. 4).

The LM outputs are cached in ``$NEURIPS24_CACHE/vlm_classification/`` under a hash of the projector file and the
evaluation set, so a second run reads them.
"""
from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field

import numpy as np

from ..assets import mnist_5k, tinyvlm, tinyvlm_data
from ..assets.packages import cache_root
from ..scale import check_scale
from . import evaluation

CLASS_NAMES = tinyvlm_data.DIGIT_NAMES
PER_CLASS = {"fast": 6, "full": 100}      # test digits per class (held out from the projector's training)
PROBE_PER_CLASS = {"fast": 15, "full": 100}   # probe-training digits per class (from the training pool)
MAX_NEW_TOKENS = 6
CLOSED_WORLD_VARIANT = "captions"   # closed-world prompts are run for this projector only (time)


@dataclass
class VariantResult:
    """What one projector does on the test digits.

    Attributes
    ----------
    name : 'captions' or 'balanced'.
    open_texts : N greedy answers to the open question; open_correct : (N,) bool, substring match.
    scores : (N, 10) float64, log-likelihood (nats) of each digit name as the answer; prob_pred : (N,) argmax.
    hidden : (N, 576) float32, the LM's final hidden state at the last prompt token.
    probe_pred : (N,) int64, predictions of a linear probe on ``hidden``, trained on the hidden states of the
        probe-training digits (:func:`probe_digits`).
    closed_texts, closed_correct : the 2-candidate answers and their correctness (true class listed).
    control_texts, control_correct : the same with two wrong candidates listed.
    probe_hidden : (M, 576) float32, the same hidden state for the probe-training digits.
    meta : the projector's training record (steps, seconds, losses, command).
    """

    name: str
    open_texts: list
    open_correct: np.ndarray
    scores: np.ndarray
    prob_pred: np.ndarray
    hidden: np.ndarray
    probe_pred: np.ndarray
    closed_texts: list
    closed_correct: np.ndarray
    control_texts: list
    control_correct: np.ndarray
    probe_hidden: np.ndarray = None
    meta: dict = field(default_factory=dict)

    def accuracy(self, labels) -> dict:
        """Accuracies in [0, 1]: 'open', 'probabilistic', 'closed2', 'closed2_control' (NaN where the closed-world
        prompts were not run), 'probe'."""
        y = np.asarray(labels)
        ran = any(self.closed_texts)           # closed-world prompts run for CLOSED_WORLD_VARIANT only
        return {"open": float(self.open_correct.mean()), "probabilistic": float((self.prob_pred == y).mean()),
                "closed2": float(self.closed_correct.mean()) if ran else float("nan"),
                "closed2_control": float(self.control_correct.mean()) if ran else float("nan"),
                "probe": float((self.probe_pred == y).mean())}


@dataclass
class VLMClassificationResult:
    """Everything the chapter plots and checks.

    Attributes
    ----------
    scale : 'fast' or 'full'. labels : (N,) int64 test digits. images : (N, 28, 28) uint8.
    vision_probe_pred : (N,) int64, the probe on the vision features (mean of the 2 x 2 cells, 1280-d), trained
        on the probe-training digits (:func:`probe_digits`).
    frequency : (10,) int64, training captions that mention each digit name ('captions' projector).
    frequency_balanced : (10,) int64, the same for the 'balanced' projector's data.
    candidates : (N, 2) int64 closed-world candidates; control_candidates : (N, 2) without the true class.
    probe_labels : (M,) int64, the classes of the probe-training digits.
    variants : name -> :class:`VariantResult`. seconds : wall-clock seconds of the run.
    """

    scale: str
    labels: np.ndarray
    images: np.ndarray
    vision_probe_pred: np.ndarray
    frequency: np.ndarray
    frequency_balanced: np.ndarray
    candidates: np.ndarray
    control_candidates: np.ndarray
    variants: dict
    seconds: float
    probe_labels: np.ndarray = None


def test_digits(per_class: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The first ``per_class`` test digits of each class of ``tinyvlm_data.mnist_split`` (never trained on).

    Returns
    -------
    rows (N,) int64 into ``mnist_5k()``, images (N, 28, 28) uint8, labels (N,) int64, sorted by class.
    """
    if isinstance(per_class, bool) or not isinstance(per_class, (int, np.integer)) or not 5 <= per_class <= 100:
        raise ValueError(f"per_class must be an integer in 5..100, got {per_class!r}")
    X, y = mnist_5k()
    _, test = tinyvlm_data.mnist_split(y)
    rows = np.concatenate([test[y[test] == c][:per_class] for c in range(10)])
    return rows, X[rows].reshape(-1, 28, 28), y[rows]


def probe_digits(per_class: int) -> tuple[np.ndarray, np.ndarray]:
    """A class-balanced probe-training set: the first ``per_class`` digits of each class of the projector's
    training pool (``tinyvlm_data.mnist_split``), the role of the paper's probe-training split.

    Returns
    -------
    images (N, 28, 28) uint8, labels (N,) int64.
    """
    if isinstance(per_class, bool) or not isinstance(per_class, (int, np.integer)) or not 5 <= per_class <= 400:
        raise ValueError(f"per_class must be an integer in 5..400, got {per_class!r}")
    X, y = mnist_5k()
    train, _ = tinyvlm_data.mnist_split(y)
    rows = np.concatenate([train[y[train] == c][:per_class] for c in range(10)])
    return X[rows].reshape(-1, 28, 28), y[rows]


def class_frequency(tokenizer, variant: str, n_examples: int) -> np.ndarray:
    """freq(c) of each digit name in the first ``n_examples`` training examples of ``variant`` (Sec. 4's count).

    Returns
    -------
    (10,) int64.
    """
    _, y = mnist_5k()
    examples = tinyvlm_data.training_examples(n_examples, y, variant)
    texts = [e.answer for e in examples if e.source != "shape"]   # shape captions never name a digit
    caps = [tokenizer(" " + t, add_special_tokens=False).input_ids for t in texts]
    names = tinyvlm.class_name_tokens(tokenizer, CLASS_NAMES)
    return np.array([evaluation.count_mentions(caps, t) for t in names], dtype=np.int64)


def _evaluate_variant(vlm, feats, labels, candidates, control, closed_world: bool, probe_feats) -> dict:
    names = list(CLASS_NAMES)
    ids = [t[0] for t in tinyvlm.class_name_tokens(vlm.tokenizer, names)]   # every digit name is one token
    gen = tinyvlm.generate(vlm, feats, evaluation.OPEN_QUESTION, max_new_tokens=MAX_NEW_TOKENS)
    out = {"open_texts": gen.texts, "scores": gen.first_logprobs[:, ids].astype(np.float64), "hidden": gen.hidden,
           "closed_texts": [""] * len(labels), "control_texts": [""] * len(labels),
           "probe_hidden": tinyvlm.hidden_states(vlm, probe_feats, evaluation.OPEN_QUESTION)}
    if not closed_world:
        return out
    closed = tinyvlm.generate(vlm, feats, [evaluation.closed_world_prompt([names[k] for k in row])
                                           for row in candidates], max_new_tokens=MAX_NEW_TOKENS)
    ctrl = tinyvlm.generate(vlm, feats, [evaluation.closed_world_prompt([names[k] for k in row])
                                         for row in control], max_new_tokens=MAX_NEW_TOKENS)
    out.update(closed_texts=closed.texts, control_texts=ctrl.texts)
    return out


def _cached_variant(vlm, name, feats, labels, candidates, control, closed_world: bool, probe_feats,
                    cache: bool) -> dict:
    h = hashlib.sha1(tinyvlm.WEIGHTS[name].read_bytes())
    for a in (feats, labels, candidates, control, probe_feats):
        h.update(np.ascontiguousarray(a).tobytes())
    h.update(json.dumps([evaluation.OPEN_QUESTION, MAX_NEW_TOKENS, closed_world]).encode())
    path = cache_root() / "vlm_classification" / f"{name}-{h.hexdigest()[:20]}.npz"
    if cache and path.is_file():
        with np.load(path, allow_pickle=False) as z:
            out = {k: z[k] for k in z.files}
        return {k: (list(v) if k.endswith("texts") else v) for k, v in out.items()}
    out = _evaluate_variant(vlm, feats, labels, candidates, control, closed_world, probe_feats)
    if cache:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.stem + f".tmp{os.getpid()}.npz")
        np.savez(tmp, **{k: (np.array(v, dtype=str) if k.endswith("texts") else v) for k, v in out.items()})
        tmp.replace(path)
    return out


def run_vlm_classification(scale: str = "fast", cache: bool = True, seed: int = 0,
                           variants=("captions", "balanced"), vlm=None) -> VLMClassificationResult:
    """Evaluate the shipped projectors on held-out MNIST digits with the paper's protocols.

    Parameters
    ----------
    scale : 'fast' (6 test digits per class, 15 probe-training digits per class; about a minute on one CPU
        thread when not cached) or 'full' (100 and 100).
    cache : read/write the image features and LM outputs in ``$NEURIPS24_CACHE``.
    seed : seed of the closed-world candidates.
    variants : which shipped projectors to evaluate.
    vlm : a loaded :class:`neurips24.assets.tinyvlm.TinyVLM` whose language model is reused (its projector is
        replaced by each variant's in turn), or None to load one.

    Returns
    -------
    :class:`VLMClassificationResult`.

    Raises
    ------
    ValueError for an unknown scale or variant. FileNotFoundError if a projector file is missing.
    """
    check_scale(scale)
    unknown = [v for v in variants if v not in tinyvlm.WEIGHTS]
    if unknown or not variants:
        raise ValueError(f"variants must be among {sorted(tinyvlm.WEIGHTS)}, got {variants!r}")
    t0 = time.perf_counter()
    rows, images, labels = test_digits(PER_CLASS[scale])
    feats = tinyvlm.image_features(images, cache=cache)
    candidates = evaluation.closed_world_candidates(labels, 10, 2, seed=seed)
    control = evaluation.closed_world_candidates(labels, 10, 2, seed=seed + 1, include_true=False)
    probe_images, probe_labels = probe_digits(PROBE_PER_CLASS[scale])
    probe_feats = tinyvlm.image_features(probe_images, cache=cache)
    vision_probe = evaluation.linear_probe(probe_feats.mean(1), probe_labels, feats.mean(1))
    results = {}
    for name in variants:
        proj, meta = tinyvlm.load_projector(name)
        if vlm is None:
            vlm = tinyvlm.load_tinyvlm(name)
        vlm.projector, vlm.meta = proj, meta
        out = _cached_variant(vlm, name, feats, labels, candidates, control, name == CLOSED_WORLD_VARIANT,
                              probe_feats, cache)
        names = list(CLASS_NAMES)
        results[name] = VariantResult(
            name=name, open_texts=out["open_texts"],
            open_correct=evaluation.substring_correct(out["open_texts"], labels, names),
            scores=out["scores"], prob_pred=out["scores"].argmax(1), hidden=out["hidden"],
            probe_pred=evaluation.linear_probe(out["probe_hidden"], probe_labels, out["hidden"]),
            closed_texts=out["closed_texts"],
            closed_correct=evaluation.choice_correct(out["closed_texts"], labels, candidates, names),
            control_texts=out["control_texts"],
            control_correct=evaluation.choice_correct(out["control_texts"], labels, control, names),
            probe_hidden=out["probe_hidden"], meta=meta)
    tok = vlm.tokenizer
    n_cap = results.get("captions", results[variants[0]]).meta.get("examples", 16)
    freq = class_frequency(tok, "captions", tinyvlm.load_projector("captions")[1].get("examples", n_cap))
    freq_bal = class_frequency(tok, "balanced", tinyvlm.load_projector("balanced")[1].get("examples", n_cap)) \
        if tinyvlm.WEIGHTS["balanced"].is_file() else np.zeros(10, dtype=np.int64)
    return VLMClassificationResult(scale=scale, labels=labels, images=images, vision_probe_pred=vision_probe,
                                   frequency=freq, frequency_balanced=freq_bal, candidates=candidates,
                                   control_candidates=control, variants=results,
                                   seconds=time.perf_counter() - t0, probe_labels=probe_labels)


LIVE_STEPS = {"fast": 4, "full": 60}


def live_training(scale: str = "fast", batch: int = 8, seed: int = 0, vlm=None) -> list:
    """A short live projector run from a fresh initialisation, on the start of the 'captions' training stream,
    to show the loss curve (the shipped projectors were trained by ``scripts/train_projector.py``).

    Parameters
    ----------
    scale : 'fast' (4 steps) or 'full' (60 steps).
    batch : examples per step, 1..64.
    seed : seed of the fresh projector and of the stream.
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
