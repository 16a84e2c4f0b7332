"""The interpretable mesomorphic network (IMN): a TabResNet hypernetwork that emits, for every instance x, the
weights W(x) of a linear model, which is then applied to x itself.

Kadra, Pineda Arango & Grabocka, *Interpretable Mesomorphic Networks for Tabular Data*, NeurIPS 2024, Sec. 3;
architecture and schedule read in the official code (github.com/ArlindKadra/IMN, ``models/hypernetwork.py``,
``models/model.py``) and re-written here. torch does the network, the optimiser (Adam) and the learning-rate
schedulers (``LambdaLR`` warm-up, ``CosineAnnealingWarmRestarts``).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from .data import check_x, check_xy


def linear_head(x: torch.Tensor, W: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Apply per-instance linear models: eq. (1) of the chapter, z_k(x) = sum_m x_m W_mk(x) + W_{M+1,k}(x).

    Parameters
    ----------
    x : float tensor (n, M), the instances.
    W : float tensor (n, M + 1, K), one linear model per instance; the last row is the bias.

    Returns
    -------
    logits : (n, K); impacts : (n, M, K), a_mk(x) = x_m W_mk(x) (eq. 3; the bias row has no impact).

    Raises
    ------
    ValueError if the shapes do not match.
    """
    if x.ndim != 2 or W.ndim != 3 or W.shape[0] != x.shape[0] or W.shape[1] != x.shape[1] + 1:
        raise ValueError(f"x must be (n, M) and W (n, M + 1, K); got x {tuple(x.shape)}, W {tuple(W.shape)}")
    impacts = x.unsqueeze(2) * W[:, :-1, :]
    return impacts.sum(dim=1) + W[:, -1, :], impacts


def imn_loss(ce: torch.Tensor, W: torch.Tensor, l1: float) -> torch.Tensor:
    """Eq. (4): the batch's cross-entropy ``ce`` (a scalar) plus λ = ``l1`` times the mean |W(x)| over the batch's
    emitted weights W (n, M + 1, K), bias row included (official ``models/model.py``)."""
    return ce + l1 * W.abs().mean()


class ResidualBlock(nn.Module):
    """Linear -> BN -> GELU -> Dropout -> Linear -> BN, plus the dropped-out input, then GELU (TabResNet)."""

    def __init__(self, width: int, dropout: float):
        super().__init__()
        self.linear1, self.bn1 = nn.Linear(width, width), nn.BatchNorm1d(width)
        self.linear2, self.bn2 = nn.Linear(width, width), nn.BatchNorm1d(width)
        self.drop_hidden, self.drop_residual = nn.Dropout(dropout), nn.Dropout(dropout)
        nn.init.zeros_(self.bn2.weight)      # each block starts as the identity (as in the official code)

    def forward(self, h):
        out = self.drop_hidden(nn.functional.gelu(self.bn1(self.linear1(h))))
        return nn.functional.gelu(self.bn2(self.linear2(out)) + self.drop_residual(h))


class HyperNet(nn.Module):
    """TabResNet hypernetwork: x (n, M) -> W(x) (n, M + 1, K) (eq. 2).

    Linear(M, h) -> BN -> GELU -> Dropout, ``n_blocks`` residual blocks, Linear(h, (M + 1) K).
    """

    def __init__(self, n_features: int, n_outputs: int, width: int = 128, n_blocks: int = 2, dropout: float = 0.25):
        super().__init__()
        if min(n_features, n_outputs, width) < 1 or n_blocks < 0 or not 0 <= dropout < 1:
            raise ValueError("n_features, n_outputs, width must be >= 1, n_blocks >= 0, dropout in [0, 1)")
        self.M, self.K = n_features, n_outputs
        self.stem = nn.Sequential(nn.Linear(n_features, width), nn.BatchNorm1d(width), nn.GELU(), nn.Dropout(dropout))
        self.blocks = nn.Sequential(*[ResidualBlock(width, dropout) for _ in range(n_blocks)])
        self.out = nn.Linear(width, (n_features + 1) * n_outputs)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.blocks(self.stem(x))).view(-1, self.M + 1, self.K)


@dataclass
class IMNConfig:
    """Hyper-parameters; defaults are the official code's (``main_experiment.py``), except ``epochs``."""

    width: int = 128
    n_blocks: int = 2
    dropout: float = 0.25
    epochs: int = 500
    batch_size: int = 64
    lr: float = 0.01
    weight_decay: float = 0.01
    l1: float = 0.1              # lambda, 'weight_norm' in the official code
    t_mult: int = 2
    restarts: int = 3
    warmup_epochs: int = 5


_INTS = {"width": 1, "n_blocks": 0, "epochs": 1, "batch_size": 2, "t_mult": 2, "restarts": 1, "warmup_epochs": 0}


def check_config(c: IMNConfig) -> IMNConfig:
    """Validate an :class:`IMNConfig` (called by :meth:`IMN.fit` and :meth:`IMN.init`).

    Integers: width >= 1, n_blocks >= 0, epochs >= 1, batch_size >= 2 (BatchNorm needs two instances), t_mult >= 2
    (the cycles must grow), restarts >= 1, warmup_epochs >= 0. Floats, finite: dropout in [0, 1), lr > 0,
    weight_decay >= 0, l1 (λ of eq. 4) >= 0.

    Raises
    ------
    TypeError if config is not an IMNConfig or an integer field is not an integer; ValueError naming the field
    and its range otherwise.
    """
    if not isinstance(c, IMNConfig):
        raise TypeError(f"config must be an IMNConfig, got {type(c).__name__}")
    for name, low in _INTS.items():
        v = getattr(c, name)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"IMNConfig.{name} must be an integer, got {v!r}")
        if v < low:
            raise ValueError(f"IMNConfig.{name} must be >= {low}, got {v}")
    for name, low, high, low_open in (("dropout", 0.0, 1.0, False), ("lr", 0.0, np.inf, True),
                                      ("weight_decay", 0.0, np.inf, False), ("l1", 0.0, np.inf, False)):
        v = getattr(c, name)
        ok = not isinstance(v, bool) and isinstance(v, (int, float, np.integer, np.floating)) and np.isfinite(v)
        if not ok or v < low or (low_open and v == low) or (name == "dropout" and v >= high):
            rng = f"{'(' if low_open else '['}{low:g}, {high:g}{')' if name == 'dropout' or high == np.inf else ']'}"
            raise ValueError(f"IMNConfig.{name} must be a finite number in {rng}, got {v!r}")
    return c


class IMN:
    """Interpretable mesomorphic network classifier (fit / predict_proba / impacts), eq. (1)-(4).

    Training (official ``models/model.py``): Adam(lr, weight_decay); the loss is cross-entropy (binary: BCE with
    logits and K = 1) plus lambda * mean |W(x)| over the batch, bias row included (eq. 4); the learning rate
    rises linearly for ``warmup_epochs`` epochs, then follows cosine annealing with warm restarts (T_0 chosen so
    that ``restarts`` cycles of growing length fill the budget); snapshots are taken at iterations T_0,
    (1 + t_mult) T_0 and (1 + t_mult + t_mult^2) T_0, and predictions average the snapshots' probabilities.
    Impacts come from the last snapshot, as in the official code. A final batch of size 1 is skipped
    (BatchNorm cannot train on it).

    Parameters
    ----------
    config : IMNConfig. seed : int, seeds torch's generator for the initialisation and the batches.
    """

    def __init__(self, config: IMNConfig | None = None, seed: int = 0):
        self.config = config or IMNConfig()
        self.seed = int(seed)
        self.snapshots: list[dict] = []
        self.net: HyperNet | None = None

    # -- training ---------------------------------------------------------------------------------------
    def init(self, n_features: int, n_classes: int) -> IMN:
        """Build a freshly initialised hypernetwork (also the 'untrained' control: no fit, one snapshot)."""
        c = check_config(self.config)
        torch.manual_seed(self.seed)
        self.n_classes = int(n_classes)
        self.net = HyperNet(n_features, 1 if n_classes == 2 else n_classes, c.width, c.n_blocks, c.dropout)
        self.snapshots = [copy.deepcopy(self.net.state_dict())]
        return self

    def fit(self, X, y) -> IMN:
        """Train on X (n, M) numeric finite, y (n,) with >= 2 classes (see :func:`~neurips24.imn.data.check_xy`).

        Raises
        ------
        TypeError/ValueError on a bad config (see :func:`check_config`: e.g. a NaN λ, epochs = 0, batch_size = 0)
        or bad data.
        """
        c = check_config(self.config)
        X, y, classes = check_xy(X, y)
        self.classes_ = classes
        self.init(X.shape[1], classes.size)
        gen = torch.Generator().manual_seed(self.seed)
        Xt = torch.as_tensor(X, dtype=torch.float32)
        binary = self.n_classes == 2
        yt = torch.as_tensor(y, dtype=torch.float32 if binary else torch.long)
        loss_fn = nn.BCEWithLogitsLoss() if binary else nn.CrossEntropyLoss()
        n_batches = -(-len(Xt) // c.batch_size)
        T0 = max((c.epochs * n_batches * (c.t_mult - 1)) // (c.t_mult ** c.restarts - 1), 1)
        snap_at = {T0 * sum(c.t_mult ** i for i in range(r + 1)) for r in range(c.restarts)}
        opt = torch.optim.Adam(self.net.parameters(), lr=c.lr, weight_decay=c.weight_decay)
        warm = c.warmup_epochs * n_batches
        sched = torch.optim.lr_scheduler.SequentialLR(opt, [
            torch.optim.lr_scheduler.LambdaLR(opt, lambda step: step / warm if warm else 1.0),
            torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T0, c.t_mult)], milestones=[warm])
        self.snapshots, it = [], 0
        self.net.train()
        for _ in range(c.epochs):
            for idx in torch.randperm(len(Xt), generator=gen).split(c.batch_size):
                it += 1
                if len(idx) > 1:
                    W = self.net(Xt[idx])
                    logits, _ = linear_head(Xt[idx], W)
                    out = logits.squeeze(1) if binary else logits
                    loss = imn_loss(loss_fn(out, yt[idx]), W, c.l1)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()
                sched.step()
                if it in snap_at:
                    self.snapshots.append(copy.deepcopy(self.net.state_dict()))
        if not self.snapshots:
            self.snapshots = [copy.deepcopy(self.net.state_dict())]
        return self

    # -- inference --------------------------------------------------------------------------------------
    def _check(self, X) -> torch.Tensor:
        if self.net is None:
            raise RuntimeError("call fit() (or init()) first")
        X = check_x(X)
        if X.shape[1] != self.net.M:
            raise ValueError(f"X has {X.shape[1]} features, the model was built for {self.net.M}")
        return torch.as_tensor(X, dtype=torch.float32)

    @torch.no_grad()
    def _forward(self, Xt, snapshot: int):
        self.net.load_state_dict(self.snapshots[snapshot])
        self.net.eval()
        W = self.net(Xt)
        logits, impacts = linear_head(Xt, W)
        return logits, impacts, W

    def predict_proba(self, X) -> np.ndarray:
        """Class probabilities (n, n_classes), float64, averaged over the snapshots."""
        Xt = self._check(X)
        probs = []
        for s in range(len(self.snapshots)):
            z = self._forward(Xt, s)[0]
            probs.append(torch.cat([1 - torch.sigmoid(z), torch.sigmoid(z)], 1) if self.n_classes == 2
                         else torch.softmax(z, 1))
        return torch.stack(probs).mean(0).double().numpy()

    def weights(self, X) -> np.ndarray:
        """The emitted linear models W(x), (n, M + 1, K) float64 (last snapshot; K = 1 for binary tasks)."""
        return self._forward(self._check(X), -1)[2].double().numpy()

    def impacts(self, X) -> np.ndarray:
        """Per-instance feature impacts a_m(x) = x_m W_m(x) (eq. 3), float64, last snapshot.

        Binary: (n, M), the impact on the logit of class 1. Multiclass: (n, M, K)."""
        a = self._forward(self._check(X), -1)[1].double().numpy()
        return a[:, :, 0] if self.n_classes == 2 else a


def forward_seconds(model: IMN, X, repeats: int = 20) -> dict:
    """Wall-clock seconds of one inference forward pass, split into the hypernetwork (x -> W(x), eq. 2) and the
    per-instance linear head (eq. 1 and 3), median over ``repeats`` runs (``time.perf_counter``, torch on the
    current thread settings, last snapshot, eval mode).

    Parameters
    ----------
    model : a fitted (or initialised) IMN. X : (n, M) numeric, finite. repeats : int >= 1.

    Returns
    -------
    dict with 'hypernetwork' and 'linear head' (float seconds per pass).

    Raises
    ------
    ValueError if ``repeats`` < 1 or X does not fit the model (see :meth:`IMN.predict_proba`).
    """
    import time

    if int(repeats) < 1:
        raise ValueError(f"repeats must be >= 1, got {repeats}")
    Xt = model._check(X)
    model.net.load_state_dict(model.snapshots[-1])
    model.net.eval()
    net_s, head_s = [], []
    with torch.no_grad():
        for _ in range(int(repeats)):
            t0 = time.perf_counter()
            W = model.net(Xt)
            t1 = time.perf_counter()
            linear_head(Xt, W)
            net_s.append(t1 - t0)
            head_s.append(time.perf_counter() - t1)
    return {"hypernetwork": float(np.median(net_s)), "linear head": float(np.median(head_s))}
