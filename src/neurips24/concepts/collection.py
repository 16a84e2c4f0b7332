"""Collect, cache and reload the representations the chapter explains (book's own pipeline around §3.1).

For each target word t, an attribute value of the shapes data set (e.g. 'circle' or 'big'): render images with
that attribute fixed to t and the other three drawn uniformly (:func:`neurips24.assets.shapes.render_shapes`, a
seed per target), feed each image with its true caption and take the state that predicts t
(:func:`.representations.token_representations`). The paper explains the model's own generated captions and keeps
the images whose caption contains t; the book records how often the trained model's greedy caption is right,
and feeds the truth so that the control below reads exactly the same text. The **control** feeds the same images and the
same captions to the same VLM with an *untrained* projector (fresh weights, the trained one's feature
normalisation): only what the projector learned differs.

The result is cached as one ``.npz`` of float16 arrays beside this file (``representations.npz``), written by
``scripts/concepts_representations.py`` with its command recorded inside; the chapter reads it in well under a
second. The images are not stored: :func:`images` renders them again from the recorded seeds.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..assets.tinyvlm_data import CAPTION_INSTRUCTIONS

HERE = Path(__file__).resolve().parent
CACHE = HERE / "representations.npz"
OWN_CACHE = HERE / "representations_own.npz"   # the paper's protocol: the model's own captions
PROMPT = CAPTION_INSTRUCTIONS[0]            # the instruction the projector was trained with
SEED0 = 500                                 # targets t = 0, 1, ... render with seed SEED0 + t (training pool: 1)


@dataclass
class TokenSet:
    """Representations of one target token.

    Attributes
    ----------
    target : str, e.g. 'circle'. seed : int, ``render_shapes(n, seed, **{attribute_of(target): target})`` gives
        the images.
    index : (M,) int64, which rendered images were kept (their caption contains the target).
    captions : M str, the captions fed (the ground truth).
    Z : (M, D) float32, trained projector. Z_control : (M, D) float32, untrained projector.
    attributes : M sets of the ground-truth attribute words that vary within the set, e.g. {'big', 'red', 'left'}
        for 'circle' (the target's own attribute is the same for every image, so it is left out).
    """

    target: str
    seed: int
    index: np.ndarray
    captions: list
    Z: np.ndarray
    Z_control: np.ndarray
    attributes: list = field(default_factory=list)


def attribute_of(target: str) -> str:
    """Which attribute of the shapes data set a target word is a value of ('shape', 'colour', 'size', 'position').

    Raises
    ------
    ValueError if the word is no attribute value.
    """
    from ..assets.shapes import ATTRIBUTES

    for name, values in ATTRIBUTES.items():
        if target in values:
            return name
    raise ValueError(f"target must be an attribute value of the shapes data set {dict(ATTRIBUTES)}, got {target!r}")


def render(target: str, seed: int, n: int):
    """The ShapeSet of a target: n images with the target's attribute fixed to it."""
    from ..assets.shapes import render_shapes

    return render_shapes(n, seed=seed, **{attribute_of(target): target})


def attribute_words(shape_set, rows, target: str) -> list[set]:
    """The ground-truth words of the images ``rows`` of a ShapeSet, the target's own (fixed) attribute left out."""
    from ..assets.shapes import ATTRIBUTES

    names = {a: shape_set.names(a) for a in ATTRIBUTES if a != attribute_of(target)}
    return [{names[a][int(i)] for a in names} for i in rows]


def images(target: str, seed: int, n: int, index=None) -> np.ndarray:
    """The rendered images of a :class:`TokenSet` again, (len(index), 64, 64, 3) uint8 (all n if index is None)."""
    imgs = render(target, seed, n).images
    return imgs if index is None else imgs[np.asarray(index)]


def collect(targets=("circle", "square", "triangle"), n_images: int = 240, layer: int = 30, variant="captions",
            control_seed: int = 0, n_generate: int = 60, max_new_tokens: int = 12, own_captions: bool = False) -> dict:
    """Run the VLM and collect Z for each target (see the module's text). Minutes on a CPU; used by the script.

    The representations are taken with the ground-truth caption fed in (teacher forcing), for every image of the
    target, so that the trained model and the control read the same text. The trained model's own greedy
    captions of the first ``n_generate`` images are recorded to say how well it captions. With
    ``own_captions`` (the paper's protocol), every image is captioned greedily by the trained model, the images
    whose caption contains the target are kept, and the caption fed is the model's own (to the control too).

    Returns
    -------
    dict with 'meta' (layer, variant, n_images, projector steps, seconds, per target: the share of generated
    captions equal to the truth and the share that contain the target) and one :class:`TokenSet` per target.
    """
    import torch

    from ..assets import tinyvlm
    from .representations import token_representations

    t0 = time.time()
    vlm = tinyvlm.load_tinyvlm(variant)
    control = tinyvlm.new_projector(control_seed)
    with torch.no_grad():
        control.feat_mean.copy_(vlm.projector.feat_mean)
        control.feat_std.copy_(vlm.projector.feat_std)
    control.eval()
    out = {"meta": {"layer": int(layer), "variant": str(variant), "n_images": int(n_images), "prompt": PROMPT,
                    "projector_steps": int(vlm.meta.get("steps", -1)), "control_seed": int(control_seed),
                    "n_generate": int(n_generate), "exact_caption": {}, "target_generated": {},
                    "generated_examples": {}, "own_captions": bool(own_captions)}}
    for k, target in enumerate(targets):
        seed = SEED0 + k
        shape_set = render(target, seed, n_images)
        feats = tinyvlm.image_features(shape_set.images, vlm=vlm)
        gen = tinyvlm.generate(vlm, feats if own_captions else feats[:n_generate], PROMPT,
                               max_new_tokens=max_new_tokens)
        truth = list(gen.texts) if own_captions else shape_set.captions
        out["meta"]["exact_caption"][target] = float(np.mean([g == c for g, c in zip(gen.texts, shape_set.captions,
                                                                                      strict=False)]))
        out["meta"]["target_generated"][target] = float(np.mean([f" {target}" in f" {g}" for g in gen.texts]))
        out["meta"]["generated_examples"][target] = gen.texts[:5]
        Z, found = token_representations(vlm, feats, PROMPT, truth, target, layer)
        trained = vlm.projector
        vlm.projector = control
        try:
            Zc, _ = token_representations(vlm, feats, PROMPT, truth, target, layer)
        finally:
            vlm.projector = trained
        rows = np.flatnonzero(found)
        out[target] = TokenSet(target=target, seed=seed, index=rows, captions=[truth[i] for i in rows], Z=Z,
                               Z_control=Zc, attributes=attribute_words(shape_set, rows, target))
    out["meta"]["seconds"] = round(time.time() - t0, 1)
    return out


def save(result: dict, path: Path | str = CACHE, command: str = "") -> Path:
    """Write :func:`collect`'s result as float16 arrays + JSON metadata in one ``.npz`` (no pickle)."""
    path = Path(path)
    meta = dict(result["meta"], command=command, targets=[k for k in result if k != "meta"])
    arrays = {"meta": np.array(json.dumps(meta))}
    for t in meta["targets"]:
        ts = result[t]
        arrays[f"{t}__Z"] = ts.Z.astype(np.float16)
        arrays[f"{t}__Z_control"] = ts.Z_control.astype(np.float16)
        arrays[f"{t}__index"] = ts.index.astype(np.int64)
        arrays[f"{t}__captions"] = np.array(ts.captions)
        arrays[f"{t}__seed"] = np.array(ts.seed)
    tmp = path.with_name(path.stem + ".tmp.npz")
    np.savez_compressed(tmp, **arrays)
    tmp.replace(path)
    return path


def load(path: Path | str = CACHE) -> dict:
    """Read the cache written by :func:`save`: {'meta': dict, target: :class:`TokenSet`, ...} (float32 Z).

    Raises
    ------
    FileNotFoundError naming the script that writes the cache.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no cached representations at {path}; run scripts/concepts_representations.py")
    with np.load(path, allow_pickle=False) as z:
        meta = json.loads(str(z["meta"]))
        out = {"meta": meta}
        for t in meta["targets"]:
            seed, index = int(z[f"{t}__seed"]), z[f"{t}__index"]
            shape_set = render(t, seed, meta["n_images"])
            out[t] = TokenSet(target=t, seed=seed, index=index, captions=[str(c) for c in z[f"{t}__captions"]],
                              Z=z[f"{t}__Z"].astype(np.float32), Z_control=z[f"{t}__Z_control"].astype(np.float32),
                              attributes=attribute_words(shape_set, index, t))
    return out


def load_vlm(meta: dict | None = None):
    """The shared VLM with the projector the cache was made with (``meta['variant']``, default 'captions')."""
    from ..assets import tinyvlm

    return tinyvlm.load_tinyvlm((meta or {}).get("variant", "captions"))


def unembedding(vlm) -> tuple[np.ndarray, np.ndarray]:
    """W_U (V, D) float64, the LM's output matrix (lm_head), and the valid word of every vocabulary token (V,)."""
    from .grounding import vocabulary_words

    W_U = vlm.lm.lm_head.weight.detach().float().numpy().astype(np.float64)
    tokens = vlm.tokenizer.convert_ids_to_tokens(list(range(W_U.shape[0])))
    return W_U, vocabulary_words(tokens)


def recheck(vlm, data: dict, target: str, n: int = 6) -> float:
    """Largest |z_cached − z_now| over the first ``n`` cached representations of ``target`` (trained projector).

    Renders the images again, runs them through ``vlm`` and :func:`.representations.token_representations` at
    the cached layer: a stale cache (another projector, another model) shows up as a large difference.

    Raises
    ------
    ValueError if the projector's training steps differ from the cache's (a cache made with another checkpoint).
    """
    from ..assets import tinyvlm
    from .representations import token_representations

    meta, ts = data["meta"], data[target]
    steps = int(vlm.meta.get("steps", -1))
    if steps != meta["projector_steps"]:
        raise ValueError(f"the cache was made with a projector trained {meta['projector_steps']} steps, this one "
                         f"{steps}: rerun scripts/concepts_representations.py")
    rows = ts.index[:n]
    feats = tinyvlm.image_features(images(target, ts.seed, meta["n_images"], rows), vlm=vlm, cache=False)
    Z, _ = token_representations(vlm, feats, meta["prompt"], ts.captions[:n], target, meta["layer"])
    return float(np.max(np.abs(Z - ts.Z[:n])))
