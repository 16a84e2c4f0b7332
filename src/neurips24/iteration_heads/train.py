"""Training an ensemble of the paper's transformers, as ``src/cot/train.py`` and ``src/cot/transfer.py`` of the
official code do it (Cabannes et al. 2024, §3): Adam, mini-batches taken **in order** (the code's ``DataLoader``
does not shuffle, and the data are ordered by length), cross-entropy on the targets strictly after EoI, and an
evaluation (test accuracy, attention scores) after every epoch.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F

from ..checks import check_count
from .metrics import attention_scores, peakiness, per_length_mean, sequence_correct
from .model import EnsembleTransformer
from .tasks import VOCAB, cot_mask


def cot_loss(model: EnsembleTransformer, seqs: torch.Tensor) -> torch.Tensor:
    """Per-model cross-entropy (nats) on the targets strictly after EoI (code: ``train.py``'s ``cot_mask``).

    seqs : (M, B, T) int64 sequences; inputs ``seqs[..., :-1]``, targets ``seqs[..., 1:]``. Returns (M,)."""
    logits = model(seqs[..., :-1])
    targets = seqs[..., 1:]
    mask = cot_mask(targets).to(logits.dtype)
    ce = F.cross_entropy(logits.reshape(-1, VOCAB), targets.reshape(-1), reduction="none").reshape(targets.shape)
    return (ce * mask).sum(dim=(1, 2)) / mask.sum(dim=(1, 2))


@dataclass
class History:
    """What a training run records, one row per model (M) and one column per epoch (0 = before training).

    Attributes
    ----------
    loss : (M, E) mean training loss of each epoch (nats; column 0 is NaN, nothing trained yet).
    test_acc : (M, E + 1) teacher-forced sequence accuracy on the evaluation set, per length then averaged.
    peaky0, peaky1 : (M, E + 1) peakiness of attn0 (layer 1 → EoI) and attn1 (layer 2 → x_t); NaN for 1 layer.
    seconds : wall-clock seconds of the whole run.
    """

    loss: np.ndarray
    test_acc: np.ndarray
    peaky0: np.ndarray
    peaky1: np.ndarray
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)


@torch.no_grad()
def evaluate(model: EnsembleTransformer, seqs: torch.Tensor, lengths: torch.Tensor, chunk: int = 1024):
    """Teacher-forced accuracy and attention peakiness of every model on its own sequences.

    Parameters
    ----------
    model : the ensemble (evaluated in eval mode, no dropout).
    seqs : (M, N, T) int64 sequences; lengths : (N,) int64 lengths L.

    Returns
    -------
    dict of (M,) float64 arrays: 'acc', 'peaky0', 'peaky1' (NaN when the model has one layer); and 'acc_by_len'
    : (M, n_lengths) float64, the accuracy of each length present, in increasing order of L.
    """
    was_training = model.training
    model.eval()
    correct, a0, a1 = [], [], []
    for i in range(0, seqs.shape[1], chunk):
        s = seqs[:, i:i + chunk]
        logits, maps = model(s, return_attention=True)
        correct.append(sequence_correct(logits[:, :, :-1], s))
        if model.n_layer >= 2:
            sc = attention_scores(maps, lengths[i:i + chunk])
            a0.append(sc["attn0"])
            a1.append(sc["attn1"])
    model.train(was_training)
    correct = torch.cat(correct, 1).double()
    out = {"acc": per_length_mean(correct, lengths).cpu().numpy(),
           "acc_by_len": torch.stack([correct[:, lengths == L].mean(dim=1) for L in torch.unique(lengths)], 1)
           .cpu().numpy()}
    if model.n_layer >= 2:
        L_max = int(lengths.max())
        pad = [torch.nn.functional.pad(a, (0, L_max - a.shape[-1]), value=float("nan")) for a in a0]
        out["peaky0"] = peakiness(torch.cat(pad, 1), lengths).cpu().numpy()
        pad = [torch.nn.functional.pad(a, (0, L_max - a.shape[-1]), value=float("nan")) for a in a1]
        out["peaky1"] = peakiness(torch.cat(pad, 1), lengths).cpu().numpy()
    else:
        out["peaky0"] = out["peaky1"] = np.full(model.n_models, np.nan)
    return out


def _check_training(lr, epochs, batch_size):
    if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not math.isfinite(lr) or lr <= 0:
        raise ValueError(f"lr must be a finite number > 0, got {lr!r}")
    return check_count("epochs", epochs, 0), check_count("batch_size", batch_size, 1)


def fit(model: EnsembleTransformer, train: torch.Tensor, train_len: torch.Tensor, test: torch.Tensor,
        test_len: torch.Tensor, epochs: int, lr: float = 3e-4, batch_size: int = 256, params=None,
        probe: torch.Tensor | None = None, eval_every: int = 1) -> History:
    """Train every model of the ensemble on its own data with Adam, evaluating after each epoch.

    Parameters
    ----------
    model : the ensemble (M models).
    train, test : (M, N, T) int64 sequences, one data set per model (same N for all), ordered by length.
    train_len, test_len : (N,) int64 lengths L of those sequences.
    epochs : passes over the training set, >= 0.   lr : Adam's step, > 0 (paper: 3e-4).
    batch_size : sequences per step, >= 1 (paper: 256).
    params : the parameters to train (default: all; the code's ``finetune_mlp2`` option trains fewer).
    probe : optional (M, 1, T) sequences whose attention maps are recorded after each evaluation, in
        ``History.extra['probe_maps']`` : (n_evals, n_layer, M, T, T).
    eval_every : evaluate after every ``eval_every`` epochs (and after the last), >= 1 (the code: 10).

    Returns
    -------
    :class:`History`.

    Raises
    ------
    ValueError for a non-positive lr, negative epochs, batch_size < 1, or data whose shapes do not match the model.
    """
    import time

    epochs, batch_size = _check_training(lr, epochs, batch_size)
    eval_every = check_count("eval_every", eval_every, 1)
    for name, s, n in (("train", train, train_len), ("test", test, test_len)):
        if s.ndim != 3 or s.shape[0] != model.n_models or n.shape != s.shape[1:2]:
            raise ValueError(f"{name} must be (M={model.n_models}, N, T) with {name}_len of shape (N,), "
                             f"got {tuple(s.shape)} and {tuple(n.shape)}")
    t0 = time.perf_counter()
    params = list(model.parameters()) if params is None else list(params)
    opt = torch.optim.Adam(params, lr=lr)
    M, E = model.n_models, epochs
    loss = np.full((M, E + 1), np.nan)
    rec = {k: np.full((M, E + 1), np.nan) for k in ("test_acc", "peaky0", "peaky1")}

    maps = []

    def record(e):
        ev = evaluate(model, test, test_len)
        rec["test_acc"][:, e], rec["peaky0"][:, e], rec["peaky1"][:, e] = ev["acc"], ev["peaky0"], ev["peaky1"]
        if probe is not None:
            with torch.no_grad():
                model.eval()
                maps.append(model(probe, return_attention=True)[1][:, :, 0, 0].cpu().numpy())   # (n_layer, M, T, T)
                model.train()

    record(0)
    model.train()
    N = train.shape[1]
    for e in range(1, E + 1):
        running = torch.zeros(M, device=train.device)
        for i in range(0, N, batch_size):
            batch_loss = cot_loss(model, train[:, i:i + batch_size])
            opt.zero_grad()
            batch_loss.sum().backward()
            opt.step()
            running += batch_loss.detach() * min(batch_size, N - i) / N
        loss[:, e] = running.cpu().numpy()
        if e % eval_every == 0 or e == E:
            record(e)
    model.eval()
    extra = {"probe_maps": np.stack(maps)} if probe is not None else {}
    return History(loss=loss, seconds=time.perf_counter() - t0, extra=extra, **rec)
