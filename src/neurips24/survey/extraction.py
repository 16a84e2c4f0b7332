"""Response extraction from a causal language model: one forward pass per prompt, letters read at the last token.

For a batch of B prompts the model gives the next-token logits z_b (vocabulary V = 49152 for SmolLM2). The
answer distribution over the k letters with ids l_1..l_k is the softmax restricted to those ids,

    P_b[r] = exp(z_b[l_r]) / sum_s exp(z_b[l_s]),      mass_b = sum_s softmax(z_b)[l_s],

computed as a log-softmax over the vocabulary followed by a gather of the letter ids
(:func:`letter_logprobs_reference`); ``mass`` says how much of the model's next-token probability the letters
carry at all. The body runs on right-padded batches (a causal model ignores the padding that follows a prompt);
the output head runs only at each prompt's last token.
"""
from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np


def letter_logprobs_reference(logits, letter_ids, n_letters=None):
    """Log-softmax over the vocabulary, then gather of the letter ids (the kernel question's torch reference).

    Parameters
    ----------
    logits : (B, V) torch float tensor, next-token logits.
    letter_ids : (B, K) torch int64 tensor, letter ids per row (rows with fewer letters padded with any valid id).
    n_letters : (B,) int tensor of how many letters each row has (default: all K).

    Returns
    -------
    (B, K) float tensor of log-probabilities log softmax(z)[l]; entries past a row's letters are -inf.
    """
    import torch

    if logits.ndim != 2 or letter_ids.ndim != 2 or letter_ids.shape[0] != logits.shape[0]:
        raise ValueError(f"logits must be (B, V) and letter_ids (B, K), got {tuple(logits.shape)}, "
                         f"{tuple(letter_ids.shape)}")
    logp = torch.log_softmax(logits.float(), dim=-1).gather(1, letter_ids)
    if n_letters is not None:
        keep = torch.arange(letter_ids.shape[1], device=logits.device)[None, :] < n_letters[:, None]
        logp = logp.masked_fill(~keep, float("-inf"))
    return logp


def _batches(lengths: np.ndarray, max_tokens: int, max_batch: int) -> list[np.ndarray]:
    """Prompt indices grouped by length so that each padded batch holds at most max_tokens tokens."""
    order = np.argsort(lengths, kind="stable")
    out, cur = [], []
    for i in order:
        longest = max([lengths[j] for j in cur] + [lengths[i]])
        if cur and (len(cur) + 1 > max_batch or (len(cur) + 1) * longest > max_tokens):
            out.append(np.array(cur))
            cur = []
        cur.append(i)
    if cur:
        out.append(np.array(cur))
    return out


def next_token_logits(model, tokenizer, prompts: Sequence[str], *, max_tokens: int = 2048, max_batch: int = 32,
                      seconds: dict | None = None):
    """Next-token logits at the last token of each prompt, in length-sorted right-padded batches.

    Parameters
    ----------
    model : a transformers causal LM with ``.model`` (the body) and ``.lm_head`` (LLaMA-style), in eval mode.
    tokenizer : its tokenizer.
    prompts : n non-empty strings.
    max_tokens : padded tokens per batch (memory and speed; the results do not depend on it).
    max_batch : prompts per batch.
    seconds : optional dict; the forward passes' wall-clock seconds are added to its 'forward' entry.

    Returns
    -------
    (n, V) float32 CPU torch tensor, row i = logits after prompt i (V = 49152 for SmolLM2).

    Raises
    ------
    ValueError if a prompt is empty or not a str, or max_tokens / max_batch < 1.
    """
    import torch

    if isinstance(prompts, str) or not all(isinstance(p, str) and p for p in prompts):
        raise ValueError("prompts must be a sequence of non-empty str")
    if max_tokens < 1 or max_batch < 1:
        raise ValueError(f"max_tokens and max_batch must be >= 1, got {max_tokens}, {max_batch}")
    seconds = {} if seconds is None else seconds
    enc = [tokenizer.encode(p) for p in prompts]
    lengths = np.array([len(e) for e in enc])
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    device = model.lm_head.weight.device   # the model's device (CPU here, a GPU at full scale); results on the CPU
    out = torch.empty((len(prompts), model.lm_head.weight.shape[0]), dtype=torch.float32)
    t0 = time.perf_counter()
    for batch in _batches(lengths, max_tokens, max_batch):
        T = int(lengths[batch].max())
        ids = torch.full((len(batch), T), pad, dtype=torch.long)
        att = torch.zeros((len(batch), T), dtype=torch.long)
        for r, i in enumerate(batch):
            ids[r, :lengths[i]] = torch.tensor(enc[i])
            att[r, :lengths[i]] = 1
        last = torch.from_numpy(lengths[batch] - 1).to(device)
        with torch.inference_mode():
            hidden = model.model(input_ids=ids.to(device), attention_mask=att.to(device)).last_hidden_state
            rows = hidden[torch.arange(len(batch), device=device), last]
            out[torch.from_numpy(batch)] = model.lm_head(rows).float().cpu()
    seconds["forward"] = seconds.get("forward", 0.0) + time.perf_counter() - t0
    return out


def letter_distributions(logits, letter_ids: Sequence, *, seconds: dict | None = None
                         ) -> tuple[list[np.ndarray], np.ndarray]:
    """The answer distribution over each prompt's letters and the mass the letters carry (see the module text).

    Parameters
    ----------
    logits : (n, V) torch float tensor from :func:`next_token_logits`.
    letter_ids : n arrays of k_i >= 2 letter token ids, e.g. from
        :func:`~neurips24.survey.prompts.letter_token_ids`.
    seconds : optional dict; the log-softmax + gather seconds are added to its 'softmax_gather' entry.

    Returns
    -------
    P : list of n (k_i,) float64 arrays, each renormalised over its k_i letters (sums to 1).
    mass : (n,) float64, total next-token probability of each prompt's letters, in (0, 1].

    Raises
    ------
    ValueError if the numbers of rows and letter sets differ, or a letter set has < 2 ids or ids outside the
    vocabulary.
    """
    import torch

    n, vocab = logits.shape
    if len(letter_ids) != n:
        raise ValueError(f"logits has {n} rows but {len(letter_ids)} letter sets were given")
    ids_list = [np.asarray(ids, dtype=np.int64) for ids in letter_ids]
    for ids in ids_list:
        if ids.ndim != 1 or ids.size < 2 or ids.min() < 0 or ids.max() >= vocab:
            raise ValueError(f"each letter set needs >= 2 ids in [0, {vocab}), got {ids.tolist()}")
    seconds = {} if seconds is None else seconds
    t0 = time.perf_counter()
    K = max(ids.size for ids in ids_list)
    lid = torch.tensor(np.stack([np.pad(ids, (0, K - ids.size), constant_values=ids[0]) for ids in ids_list]))
    nl = torch.tensor([ids.size for ids in ids_list])
    with torch.inference_mode():
        logp = letter_logprobs_reference(logits, lid, nl)
        logmass = torch.logsumexp(logp, dim=1)
        probs = torch.exp(logp - logmass[:, None]).double().numpy()
    seconds["softmax_gather"] = seconds.get("softmax_gather", 0.0) + time.perf_counter() - t0
    P = [probs[i, :ids.size] / probs[i, :ids.size].sum() for i, ids in enumerate(ids_list)]
    return P, torch.exp(logmass).double().numpy()


def letter_logprobs(logits, letter_ids: Sequence, *, seconds: dict | None = None) -> list[np.ndarray]:
    """Next-token log-probabilities log softmax(z)[l] of each prompt's letters (not renormalised), for caching.

    Parameters
    ----------
    logits : (n, V) torch float tensor from :func:`next_token_logits`.
    letter_ids : n arrays of k_i >= 2 letter token ids.
    seconds : optional dict; the log-softmax + gather seconds are added to its 'softmax_gather' entry.

    Returns
    -------
    list of n (k_i,) float64 arrays of log-probabilities (nats), each <= 0.

    Raises
    ------
    ValueError as :func:`letter_distributions`.
    """
    import torch

    n, vocab = logits.shape
    if len(letter_ids) != n:
        raise ValueError(f"logits has {n} rows but {len(letter_ids)} letter sets were given")
    ids_list = [np.asarray(ids, dtype=np.int64) for ids in letter_ids]
    for ids in ids_list:
        if ids.ndim != 1 or ids.size < 2 or ids.min() < 0 or ids.max() >= vocab:
            raise ValueError(f"each letter set needs >= 2 ids in [0, {vocab}), got {ids.tolist()}")
    seconds = {} if seconds is None else seconds
    t0 = time.perf_counter()
    K = max(ids.size for ids in ids_list)
    lid = torch.tensor(np.stack([np.pad(ids, (0, K - ids.size), constant_values=ids[0]) for ids in ids_list]))
    with torch.inference_mode():
        logp = letter_logprobs_reference(logits, lid).double().numpy()
    seconds["softmax_gather"] = seconds.get("softmax_gather", 0.0) + time.perf_counter() - t0
    return [logp[i, :ids.size].copy() for i, ids in enumerate(ids_list)]


def distributions_from_logprobs(logprobs: Sequence) -> tuple[list[np.ndarray], np.ndarray]:
    """Renormalised letter distributions and letter masses from :func:`letter_logprobs` (eq. survey-extract).

    Parameters
    ----------
    logprobs : n arrays of k_i >= 2 finite log-probabilities (nats, <= 0).

    Returns
    -------
    P : list of n (k_i,) float64 distributions (sum to 1).   mass : (n,) float64, sum_r exp(logprobs[r]) in (0, 1].

    Raises
    ------
    ValueError if an array has fewer than 2 entries, a non-finite entry or an entry above 0.
    """
    P, mass = [], np.empty(len(logprobs))
    for i, lp in enumerate(logprobs):
        lp = np.asarray(lp, dtype=float)
        if lp.ndim != 1 or lp.size < 2 or not np.all(np.isfinite(lp)) or np.any(lp > 1e-9):
            raise ValueError(f"logprobs[{i}] must hold >= 2 finite log-probabilities <= 0, got {lp.tolist()}")
        top = lp.max()
        w = np.exp(lp - top)
        P.append(w / w.sum())
        mass[i] = float(np.exp(top) * w.sum())
    return P, mass
