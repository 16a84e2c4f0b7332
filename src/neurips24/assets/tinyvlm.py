"""A small LLaVA-style vision-language model from real, frozen parts (book's own; shared by two chapters).

    image --EfficientNet-Lite0 (frozen)--> 2 x 2 grid of 1280-d features --MLP projector (trained)--> 4 prefix
    embeddings --> SmolLM2-135M-Instruct (frozen), followed by the embedded prompt text --> next-token logits

This is LLaVA's design (Liu et al., NeurIPS 2023; LLaVA-1.5: a two-layer GELU MLP maps each vision patch feature
to one language-model token, trained on captions with both towers frozen - "stage 1") at toy size: the vision
tower is EfficientNet-Lite0 (ImageNet-trained, :mod:`neurips24.assets.efficientnet`; its last feature map at
96 x 96 input, average-pooled to 2 x 2 cells), the language model SmolLM2-135M-Instruct
(:mod:`neurips24.assets.smollm`). Only the projector (0.95 M parameters) is trained, by
``scripts/train_projector.py``; three trained projectors ship beside this file (:data:`WEIGHTS`):

* ``captions`` - trained on MNIST captions with a Zipf class frequency plus rendered-shape captions
  (:mod:`neurips24.assets.tinyvlm_data`);
* ``balanced`` - the same stream with a third of the examples replaced by class-balanced classification-format
  digits ("What type of object is in this photo?" -> "seven.");
* ``zipf_question`` - the same replacement in classification format, with the classes drawn from the captions'
  Zipf law instead of balanced (the control that separates the class balance from the question format).

Text format, one sequence per image: ``[4 image tokens] {prompt}\\nAnswer: {answer}<|im_end|>``; the loss is on
the answer tokens and the end token. The chat template is not used (it would double the sequence length).

Libraries: torch (the projector, autograd), transformers (``LlamaForCausalLM`` forward with ``inputs_embeds``
and a key/value cache), the efficientnet-lite-pytorch port (the vision tower).
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .packages import cache_root

IMAGE_SIZE = 96            # input side of the vision tower (the digits are 28 px, the shapes 64 px)
GRID = 2                   # the feature map is pooled to GRID x GRID cells -> N_PREFIX image tokens
N_PREFIX = GRID * GRID
FEATURE_DIM = 1280         # EfficientNet-Lite0 channels
HIDDEN_DIM = 512           # projector hidden width
D_MODEL = 576              # SmolLM2-135M width
N_LAYERS = 30
ANSWER_CUE = "\nAnswer:"
HERE = Path(__file__).resolve().parent
WEIGHTS = {"captions": HERE / "tinyvlm_captions.npz", "balanced": HERE / "tinyvlm_balanced.npz",
           "zipf_question": HERE / "tinyvlm_zipf_question.npz"}


def _torch():
    import torch

    return torch


def _projector_class():
    torch = _torch()

    class Projector(torch.nn.Module):
        """h = W2 GELU(W1 (f - mu) / sigma + b1) + b2, applied to each of the N_PREFIX cell features."""

        def __init__(self):
            super().__init__()
            self.register_buffer("feat_mean", torch.zeros(FEATURE_DIM))
            self.register_buffer("feat_std", torch.ones(FEATURE_DIM))
            self.fc1 = torch.nn.Linear(FEATURE_DIM, HIDDEN_DIM)
            self.fc2 = torch.nn.Linear(HIDDEN_DIM, D_MODEL)

        def forward(self, features):
            z = (features - self.feat_mean) / self.feat_std
            return self.fc2(torch.nn.functional.gelu(self.fc1(z)))

    return Projector


@dataclass
class TinyVLM:
    """The assembled model.

    Attributes
    ----------
    lm : ``transformers.LlamaForCausalLM`` (SmolLM2-135M-Instruct), frozen, eval mode.
    tokenizer : its tokenizer.
    projector : ``torch.nn.Module`` mapping (N, 4, 1280) features to (N, 4, 576) prefix embeddings.
    meta : what the projector file records (variant, seed, steps, command, losses, seconds), {} if fresh.
    vision : the EfficientNet-Lite0 module, loaded on first use by :func:`image_features`.
    """

    lm: object
    tokenizer: object
    projector: object
    meta: dict = field(default_factory=dict)
    vision: object = None


def new_projector(seed: int = 0):
    """A freshly initialised projector (torch default init, output layer scaled by 0.3), seeded."""
    torch = _torch()
    torch.manual_seed(seed)
    proj = _projector_class()()
    with torch.no_grad():
        proj.fc2.weight.mul_(0.3)
        proj.fc2.bias.zero_()
    return proj


def load_projector(variant: str | Path = "captions"):
    """Read a trained projector from its ``.npz`` file (plain arrays, ``allow_pickle=False``).

    Parameters
    ----------
    variant : 'captions', 'balanced' or 'zipf_question' (the shipped files, :data:`WEIGHTS`), or a path to an
        ``.npz`` written by :func:`save_projector`.

    Returns
    -------
    (projector, meta) : a float32 ``torch.nn.Module`` in eval mode and the metadata dict.

    Raises
    ------
    ValueError for an unknown variant. FileNotFoundError if the file does not exist (yet).
    """
    torch = _torch()
    if isinstance(variant, str) and variant in WEIGHTS:
        path = WEIGHTS[variant]
    elif isinstance(variant, (str, Path)) and str(variant).endswith(".npz"):
        path = Path(variant)
    else:
        raise ValueError(f"variant must be one of {sorted(WEIGHTS)} or a path to an .npz file, got {variant!r}")
    if not path.is_file():
        raise FileNotFoundError(f"no projector weights at {path}; train them with scripts/train_projector.py")
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays.pop("meta")))
    proj = _projector_class()()
    state = {k.replace("__", "."): torch.from_numpy(v.astype(np.float32)) for k, v in arrays.items()}
    proj.load_state_dict(state, strict=True)
    return proj.eval(), meta


def save_projector(projector, path: str | Path, meta: dict) -> Path:
    """Write ``projector``'s weights as float16 arrays (buffers float32) and ``meta`` as JSON in one ``.npz``.

    The file is written to a temporary name and renamed, so a reader never sees half a file.
    """
    path = Path(path)
    arrays = {}
    for k, v in projector.state_dict().items():
        a = v.detach().cpu().numpy()
        arrays[k.replace(".", "__")] = a.astype(np.float32 if k.startswith("feat_") else np.float16)
    arrays["meta"] = np.array(json.dumps(meta))
    tmp = path.with_name(path.stem + ".tmp.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path)
    return path


def load_tinyvlm(variant: str | Path | None = "captions", seed: int = 0) -> TinyVLM:
    """Assemble the model: SmolLM2 (frozen, from :func:`neurips24.assets.load_smollm`) + a projector.

    Parameters
    ----------
    variant : a shipped projector ('captions', 'balanced'), a path to an ``.npz``, or None for a fresh one.
    seed : seed of a fresh projector (variant None).

    Returns
    -------
    :class:`TinyVLM`; the LM's parameters have ``requires_grad=False``, the projector's ``True``.

    Raises
    ------
    As :func:`load_projector` and :func:`neurips24.assets.load_smollm`.
    """
    from .smollm import load_smollm

    if variant is None:
        proj, meta = new_projector(seed), {}
    else:
        proj, meta = load_projector(variant)
    loaded = load_smollm(verbose=False)
    lm = loaded.model
    for p in lm.parameters():
        p.requires_grad_(False)
    return TinyVLM(lm=lm, tokenizer=loaded.tokenizer, projector=proj, meta=meta)


# ---------------------------------------------------------------------------------------------------------- vision

def _check_images(images) -> np.ndarray:
    x = np.asarray(images)
    if x.dtype != np.uint8:
        raise TypeError(f"images must be uint8 (0..255), got {x.dtype}")
    if x.ndim == 3:                                   # (N, H, W) grey
        x = np.repeat(x[..., None], 3, axis=-1)
    if x.ndim != 4 or x.shape[-1] != 3 or min(x.shape[:3]) < 1 or min(x.shape[1:3]) < 8:
        raise ValueError(f"images must be (N, H, W) grey or (N, H, W, 3) RGB uint8 with H, W >= 8, "
                         f"got shape {x.shape}")
    return x


def image_features(images, vlm: TinyVLM | None = None, batch_size: int = 64, cache: bool = True) -> np.ndarray:
    """Grid features of the frozen vision tower: EfficientNet-Lite0's last feature map at 96 x 96 input, average-
    pooled to 2 x 2 cells.

    Preprocessing is :func:`neurips24.assets.preprocess` with ``crop_fraction=1`` (no crop: a shape "on the left"
    stays in the picture). Results are cached in ``$NEURIPS24_CACHE/tinyvlm/`` under a hash of the image bytes.

    Parameters
    ----------
    images : (N, H, W) grey or (N, H, W, 3) RGB uint8.
    vlm : a :class:`TinyVLM` whose ``vision`` attribute is reused (and set on first use); None loads the tower.
    batch_size : images per forward pass, >= 1.
    cache : read/write the cache.

    Returns
    -------
    (N, 4, 1280) float32: cells in row-major order (top-left, top-right, bottom-left, bottom-right).

    Raises
    ------
    TypeError if ``images`` is not uint8; ValueError for another shape.
    """
    x = _check_images(images)
    key = hashlib.sha1(x.tobytes() + str(x.shape).encode()).hexdigest()[:20]
    path = cache_root() / "tinyvlm" / f"features-{IMAGE_SIZE}-{key}.npy"
    if cache and path.is_file():
        return np.load(path, allow_pickle=False)
    torch = _torch()
    from .efficientnet import load_efficientnet_lite, preprocess

    net = vlm.vision if vlm is not None and vlm.vision is not None else load_efficientnet_lite()
    if vlm is not None:
        vlm.vision = net
    out = []
    with torch.no_grad():
        for i in range(0, len(x), int(batch_size)):
            fmap = net.extract_features(preprocess(x[i:i + batch_size], size=IMAGE_SIZE, crop_fraction=1.0))
            cells = torch.nn.functional.adaptive_avg_pool2d(fmap, GRID)          # (B, 1280, 2, 2)
            out.append(cells.flatten(2).transpose(1, 2).numpy())                  # (B, 4, 1280)
    feats = np.concatenate(out).astype(np.float32)
    if cache:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.stem + f".tmp{os.getpid()}.npy")
        np.save(tmp, feats)
        tmp.replace(path)
    return feats


def _check_features(features):
    torch = _torch()
    f = torch.as_tensor(np.asarray(features) if not isinstance(features, torch.Tensor) else features)
    if f.dtype not in (torch.float32, torch.float64, torch.float16):
        raise TypeError(f"features must be floating point, got {f.dtype}")
    if f.ndim != 3 or f.shape[1:] != (N_PREFIX, FEATURE_DIM) or f.shape[0] < 1:
        raise ValueError(f"features must be (N, {N_PREFIX}, {FEATURE_DIM}) from image_features, got {tuple(f.shape)}")
    if not torch.isfinite(f).all():
        raise ValueError("features contain NaN or inf")
    return f.float()


def encode_images(vlm: TinyVLM, features):
    """Prefix embeddings: the projector applied to each cell feature.

    Parameters
    ----------
    features : (N, 4, 1280) from :func:`image_features` (NumPy or torch).

    Returns
    -------
    torch.Tensor (N, 4, 576) float32 (with gradient to the projector if grad mode is on).

    Raises
    ------
    TypeError / ValueError for non-float, wrongly shaped or non-finite features.
    """
    return vlm.projector(_check_features(features))


# ---------------------------------------------------------------------------------------------------------- text

def _prompts(prompts, n: int) -> list[str]:
    if isinstance(prompts, str):
        prompts = [prompts] * n
    prompts = list(prompts)
    if len(prompts) != n or not all(isinstance(p, str) for p in prompts):
        raise ValueError(f"prompts must be a string or {n} strings (one per image), got {len(prompts)} items")
    return prompts


def _assemble(vlm: TinyVLM, prefix, prompts: list[str], answers: list[str] | None = None):
    """Left-padded batch: [pad][4 image tokens][prompt + ANSWER_CUE][answer + eos]. Returns embeds, mask,
    position ids, labels (-100 outside the answers) and the number of answer tokens per row."""
    torch = _torch()
    tok = vlm.tokenizer
    emb = vlm.lm.get_input_embeddings()
    rows, targets = [], []
    for i, p in enumerate(prompts):
        ids = tok(p + ANSWER_CUE, add_special_tokens=False).input_ids
        ans = [] if answers is None else tok(" " + answers[i], add_special_tokens=False).input_ids + [tok.eos_token_id]
        rows.append(ids + ans)
        targets.append(len(ans))
    n, length = len(rows), max(len(r) for r in rows) + N_PREFIX
    ids = torch.full((n, length - N_PREFIX), tok.eos_token_id, dtype=torch.long)
    mask = torch.zeros((n, length), dtype=torch.long)
    labels = torch.full((n, length), -100, dtype=torch.long)
    for i, r in enumerate(rows):
        pad = length - N_PREFIX - len(r)
        ids[i, pad:] = torch.tensor(r)
        mask[i, pad:] = 1
        if targets[i]:
            labels[i, length - targets[i]:] = torch.tensor(r[-targets[i]:])
    text = emb(ids)
    embeds = torch.zeros((n, length, D_MODEL), dtype=text.dtype)
    for i, r in enumerate(rows):                     # the image tokens sit right after each row's padding
        pad = length - N_PREFIX - len(r)
        embeds[i, pad:pad + N_PREFIX] = prefix[i]
        embeds[i, pad + N_PREFIX:] = text[i, pad:]
    position = (mask.cumsum(1) - 1).clamp(min=0)
    return embeds, mask, position, labels, rows


def caption_loss(vlm: TinyVLM, features, prompts, answers):
    """Mean next-token cross-entropy (nats per token) of the answers given image and prompt: the LLaVA stage-1
    objective, with gradient to the projector only.

    Parameters
    ----------
    features : (N, 4, 1280) float.
    prompts : one string or N strings (the instructions).
    answers : N non-empty strings (the captions).

    Returns
    -------
    scalar torch.Tensor.

    Raises
    ------
    ValueError for an empty batch, empty answers or mismatched lengths.
    """
    torch = _torch()
    f = _check_features(features)
    answers = list(answers) if not isinstance(answers, str) else [answers]
    if len(answers) != len(f) or not all(isinstance(a, str) and a.strip() for a in answers):
        raise ValueError(f"answers must be {len(f)} non-empty strings, got {len(answers)}")
    embeds, mask, position, labels, _ = _assemble(vlm, vlm.projector(f), _prompts(prompts, len(f)), answers)
    logits = vlm.lm(inputs_embeds=embeds, attention_mask=mask, position_ids=position, use_cache=False).logits
    return torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]),
                                             labels[:, 1:].reshape(-1), ignore_index=-100)


@dataclass
class Generation:
    """Greedy generations and the state at the answer position.

    Attributes
    ----------
    texts : N decoded strings (up to the end token).
    first_logprobs : (N, V) float32 log-softmax of the first answer token (V = 49152).
    hidden : (N, 576) float32 hidden state of the last prompt token at the requested layer.
    """

    texts: list
    first_logprobs: np.ndarray
    hidden: np.ndarray


def generate(vlm: TinyVLM, features, prompts, max_new_tokens: int = 8, layer: int = N_LAYERS,
             batch_size: int = 64) -> Generation:
    """Greedy decoding after ``[image] {prompt}\\nAnswer:`` with a key/value cache (LLaVA's evaluation setting:
    temperature 0).

    Parameters
    ----------
    features : (N, 4, 1280) float.
    prompts : one string or N strings.
    max_new_tokens : 1..64.
    layer : 0..30, the layer of the returned hidden state (0: the input embeddings; 30: after the final norm).
    batch_size : images per forward pass.

    Returns
    -------
    :class:`Generation`.

    Raises
    ------
    ValueError for a bad ``max_new_tokens``, ``layer``, prompts or features.
    """
    torch = _torch()
    f = _check_features(features)
    prompts = _prompts(prompts, len(f))
    if not 1 <= int(max_new_tokens) <= 64:
        raise ValueError(f"max_new_tokens must be in 1..64, got {max_new_tokens}")
    _check_layer(layer)
    eos = vlm.tokenizer.eos_token_id
    emb = vlm.lm.get_input_embeddings()
    texts, firsts, hiddens = [], [], []
    with torch.no_grad():
        for s in range(0, len(f), batch_size):
            embeds, mask, position, _, _ = _assemble(vlm, vlm.projector(f[s:s + batch_size]), prompts[s:s + batch_size])
            out = vlm.lm(inputs_embeds=embeds, attention_mask=mask, position_ids=position, use_cache=True,
                         output_hidden_states=True)
            hiddens.append(out.hidden_states[layer][:, -1].float().numpy())
            logp = torch.log_softmax(out.logits[:, -1].float(), -1)
            firsts.append(logp.numpy())
            cache, nxt = out.cache, logp.argmax(-1)
            done = torch.zeros(len(nxt), dtype=torch.bool)
            tokens = []
            for _ in range(int(max_new_tokens)):
                tokens.append(torch.where(done, torch.full_like(nxt, eos), nxt))
                done |= nxt == eos
                if bool(done.all()):
                    break
                mask = torch.cat([mask, torch.ones((len(nxt), 1), dtype=mask.dtype)], 1)
                position = position[:, -1:] + 1
                out = vlm.lm(inputs_embeds=emb(nxt[:, None]), attention_mask=mask, position_ids=position,
                             cache=cache, use_cache=True)
                cache, nxt = out.cache, out.logits[:, -1].argmax(-1)
            seq = torch.stack(tokens, 1).tolist()
            for row in seq:
                row = row[:row.index(eos)] if eos in row else row
                texts.append(vlm.tokenizer.decode(row, skip_special_tokens=True).strip())
    return Generation(texts=texts, first_logprobs=np.concatenate(firsts), hidden=np.concatenate(hiddens))


def _check_layer(layer) -> None:
    if isinstance(layer, bool) or not isinstance(layer, (int, np.integer)) or not 0 <= layer <= N_LAYERS:
        raise ValueError(f"layer must be an integer in 0..{N_LAYERS}, got {layer!r}")


def class_name_tokens(tokenizer, class_names) -> list[list[int]]:
    """Token ids of each class name as it follows ``"Answer:"`` (with a leading space).

    Raises
    ------
    TypeError if a name is not a string. ValueError for an empty list, an empty or duplicated name, a name with a
    line break, or a name the tokenizer cannot encode and decode back unchanged.
    """
    names = [class_names] if isinstance(class_names, str) else list(class_names)
    if not names:
        raise ValueError("class_names must not be empty")
    if not all(isinstance(c, str) for c in names):
        raise TypeError(f"class_names must be strings, got {[type(c).__name__ for c in names]}")
    if len(set(names)) != len(names):
        raise ValueError(f"class_names must be distinct, got {names}")
    out = []
    for c in names:
        if not c.strip() or "\n" in c or c != c.strip():
            raise ValueError(f"class name {c!r} must be non-empty, without line breaks or outer spaces")
        ids = tokenizer(" " + c, add_special_tokens=False).input_ids
        if not ids or tokenizer.decode(ids) != " " + c or tokenizer.unk_token_id in ids:
            raise ValueError(f"class name {c!r} cannot be encoded by the tokenizer (round trip gives "
                             f"{tokenizer.decode(ids)!r})")
        out.append(ids)
    return out


def name_log_likelihood(token_logprobs, name_tokens, mask):
    """score(c) = sum_t mask[c, t] * log p(name_tokens[c, t] | image, prompt, c_<t) (Zhang et al. 2024, Sec. 3.2,
    probabilistic inference), the gather + masked sum in NumPy.

    Parameters
    ----------
    token_logprobs : (N, C, L, V) float log-probabilities at each of the L answer positions for candidate c.
    name_tokens : (C, L) int token ids (anything where masked).
    mask : (C, L) bool, True on the name's tokens.

    Returns
    -------
    (N, C) float64, log-likelihood of each name in nats.

    Raises
    ------
    ValueError for mismatched shapes, token ids outside 0..V-1, or log-probabilities under the mask that are not
    finite or are positive (a probability above 1: logits or probabilities passed by mistake).
    """
    lp = np.asarray(token_logprobs, dtype=np.float64)
    tok = np.asarray(name_tokens)
    m = np.asarray(mask, dtype=bool)
    if lp.ndim != 4 or tok.shape != lp.shape[1:3] or m.shape != tok.shape:
        raise ValueError(f"token_logprobs must be (N, C, L, V) with name_tokens and mask (C, L), got "
                         f"{lp.shape}, {tok.shape}, {m.shape}")
    if not np.issubdtype(tok.dtype, np.integer) or ((tok < 0) | (tok >= lp.shape[-1]))[m].any():
        raise ValueError(f"name_tokens must be integer ids in 0..{lp.shape[-1] - 1}")
    picked = np.take_along_axis(lp, np.where(m, tok, 0)[None, :, :, None], axis=-1)[..., 0]   # (N, C, L)
    if not np.isfinite(picked[:, m]).all():
        raise ValueError("token_logprobs are not finite under the mask")
    if (picked[:, m] > 1e-9).any():
        raise ValueError(f"token_logprobs must be log-probabilities (<= 0), got a maximum of {picked[:, m].max():.3g} "
                         f"under the mask: logits or probabilities instead?")
    return np.where(m[None], picked, 0.0).sum(-1)


def score_class_names(vlm: TinyVLM, features, prompts, class_names, batch_size: int = 64) -> np.ndarray:
    """Probabilistic inference: the log-likelihood (nats) of each class name as the answer (Zhang et al. 2024,
    Sec. 3.2); the prediction is the argmax over names.

    One forward of the prompt gives every name's first token; names of L > 1 tokens get one more forward per name
    with its first L - 1 tokens appended (teacher forcing), then :func:`name_log_likelihood`.

    Parameters
    ----------
    features : (N, 4, 1280) float.
    prompts : one string or N strings.
    class_names : C distinct strings (see :func:`class_name_tokens`).

    Returns
    -------
    (N, C) float64 log-likelihoods.

    Raises
    ------
    ValueError / TypeError for bad features, prompts or class names.
    """
    torch = _torch()
    f = _check_features(features)
    prompts = _prompts(prompts, len(f))
    names = class_name_tokens(vlm.tokenizer, class_names)
    C, L = len(names), max(len(t) for t in names)
    tokens = np.zeros((C, L), dtype=np.int64)
    mask = np.zeros((C, L), dtype=bool)
    for c, t in enumerate(names):
        tokens[c, :len(t)], mask[c, :len(t)] = t, True
    scores = []
    with torch.no_grad():
        for s in range(0, len(f), batch_size):
            fb, pb = f[s:s + batch_size], prompts[s:s + batch_size]
            prefix = vlm.projector(fb)
            embeds, am, position, _, _ = _assemble(vlm, prefix, pb)
            first = torch.log_softmax(vlm.lm(inputs_embeds=embeds, attention_mask=am, position_ids=position,
                                             use_cache=False).logits[:, -1].float(), -1)
            # only the needed rows of the vocabulary: (B, C, L, K) with K = the distinct ids used
            used = np.unique(tokens[mask])
            col = {int(v): k for k, v in enumerate(used)}
            lp = np.zeros((len(fb), C, L, len(used)))
            lp[:, :, 0, :] = first[:, torch.as_tensor(used)].numpy()[:, None, :]
            for c, t in enumerate(names):
                if len(t) == 1:
                    continue
                emb = vlm.lm.get_input_embeddings()(torch.tensor(t[:-1]))[None].expand(len(fb), -1, -1)
                e2 = torch.cat([embeds, emb], 1)
                am2 = torch.cat([am, torch.ones((len(fb), len(t) - 1), dtype=am.dtype)], 1)
                pos2 = torch.cat([position, position[:, -1:] + torch.arange(1, len(t))], 1)
                logits = vlm.lm(inputs_embeds=e2, attention_mask=am2, position_ids=pos2, use_cache=False).logits
                later = torch.log_softmax(logits[:, -len(t):].float(), -1)[:, 1:]       # positions of tokens 2..L
                lp[:, c, 1:len(t), :] = later[:, :, torch.as_tensor(used)].numpy()
            local = np.array([[col.get(int(v), 0) for v in row] for row in tokens], dtype=np.int64)
            scores.append(name_log_likelihood(lp, local, mask))
    return np.concatenate(scores)


def hidden_states(vlm: TinyVLM, features, prompts, layer: int = N_LAYERS, position="last",
                  batch_size: int = 64) -> np.ndarray:
    """The language model's hidden state for each image at one layer and one token position.

    Positions count in the unpadded sequence ``[4 image tokens][prompt tokens]["\\n", "Answer", ":"]``: an
    integer (0..3 are the image tokens; negative counts from the end, -1 is the ':' right before the answer),
    'last' (= -1) or 'mean' (the mean over all positions, as the paper's second probe feature).

    Parameters
    ----------
    features : (N, 4, 1280) float.
    prompts : one string or N strings.
    layer : 0..30 (0: input embeddings, i.e. the projector's output at positions 0..3; 30: after the final norm).
    position : int, 'last' or 'mean'.

    Returns
    -------
    (N, 576) float32.

    Raises
    ------
    ValueError for a bad layer, a position outside the sequence, or bad features/prompts.
    """
    torch = _torch()
    f = _check_features(features)
    prompts = _prompts(prompts, len(f))
    _check_layer(layer)
    integer = isinstance(position, (int, np.integer)) and not isinstance(position, bool)
    if not (integer or position in ("last", "mean")):
        raise ValueError(f"position must be an integer, 'last' or 'mean', got {position!r}")
    out = []
    with torch.no_grad():
        for s in range(0, len(f), batch_size):
            embeds, am, pos, _, rows = _assemble(vlm, vlm.projector(f[s:s + batch_size]), prompts[s:s + batch_size])
            h = vlm.lm(inputs_embeds=embeds, attention_mask=am, position_ids=pos, use_cache=False,
                       output_hidden_states=True).hidden_states[layer].float()
            length = embeds.shape[1]
            for i, r in enumerate(rows):
                n_real = N_PREFIX + len(r)
                start = length - n_real
                if position == "mean":
                    out.append(h[i, start:].mean(0).numpy())
                    continue
                k = -1 if position == "last" else int(position)
                if not -n_real <= k < n_real:
                    raise ValueError(f"position must be in {-n_real}..{n_real - 1} for prompt {prompts[s + i]!r}, "
                                     f"got {position}")
                out.append(h[i, start + (k % n_real)].numpy())
    return np.stack(out).astype(np.float32)
