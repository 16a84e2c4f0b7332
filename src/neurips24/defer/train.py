"""Training every surrogate the same way: K models in one batched torch graph, full-batch Adam.

All K models of a call share the training points and the initial weights (common random numbers, so that
their differences come from the surrogate alone); each has its own surrogate, Ψ and cost. Their losses are
summed: the parameters of one model get the gradient of its own loss only, and Adam works per coordinate,
so this is K independent trainings in one graph. The loss and its gradient come from the closed-form fused
kernel (:class:`.kernels.FusedSurrogate`).

Hypothesis sets: linear (``hidden=None``: h(x) = W x + b, n + 1 outputs) or a one-hidden-layer ReLU MLP.
Initialisation: torch.nn.Linear's (uniform in ±1/√fan_in), as human_ai_deferral's ``LinearNetDefer``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import torch

from .data import DeferData
from .kernels import FusedSurrogate, family, fused_loss_grad, prepare
from .losses import SURROGATES, check_q, decide, expert_error_cost, inference_cost
from .metrics import deferral_metrics

COSTS = ("expert", "never", "shuffled")
SHUFFLE_SEED = 12345   # the fixed permutation of the expert's predictions behind cost="shuffled"


@dataclass(frozen=True)
class Spec:
    """One model to train: a label, a surrogate name ('ce', 'ova', 'rs', 'general', 'rl2d'), its q (None: Ψ =
    −log), the fee β of the cost 1{g ≠ y} + β 1{g = y} (0: the expert's error), and ``cost``: 'expert' (that
    cost), 'never' (c ≡ 1 in training: the expert never helps, the model learns never to defer) or 'shuffled'
    (the cost computed from the expert's predictions permuted across the training points: the chapter's
    control, a surrogate trained on the wrong expert)."""

    label: str
    name: str
    q: float | None = None
    beta: float = 0.0
    cost: str = "expert"

    def __post_init__(self):
        if self.name not in SURROGATES:
            raise ValueError(f"name must be one of {SURROGATES}, got {self.name!r}")
        check_q(self.q)
        if self.cost not in COSTS:
            raise ValueError(f"cost must be one of {COSTS}, got {self.cost!r}")
        if isinstance(self.beta, bool) or not isinstance(self.beta, (int, float)) or not 0 <= self.beta <= 1:
            raise ValueError(f"beta must be a number in [0, 1], got {self.beta!r}")

    def train_cost(self, y, g) -> torch.Tensor:
        """c(x, y) used in training, (N,) float64."""
        if self.cost == "never":
            return torch.ones(len(y), dtype=torch.float64)
        if self.cost == "shuffled":
            perm = torch.randperm(len(g), generator=torch.Generator().manual_seed(SHUFFLE_SEED))
            g = torch.as_tensor(g)[perm]
        return inference_cost(torch.as_tensor(y), torch.as_tensor(g), float(self.beta))


def init_params(K: int, d: int, n_out: int, hidden: int | None, seed: int) -> list[torch.Tensor]:
    """Weights of K identical models (float32, requires_grad), torch.nn.Linear's initialisation, one seed.

    Stored output-major, as nn.Linear stores them. Linear: [W (K, n_out, d), b (K, n_out)];
    MLP: [W1 (K, H, d), b1 (K, H), W2 (K, n_out, H), b2 (K, n_out)].

    Raises
    ------
    ValueError for K, d, n_out < 1 or hidden < 1.
    """
    for name, v in (("K", K), ("d", d), ("n_out", n_out)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 1:
            raise ValueError(f"{name} must be an int >= 1, got {v!r}")
    if hidden is not None and (isinstance(hidden, bool) or not isinstance(hidden, int) or hidden < 1):
        raise ValueError(f"hidden must be None (linear) or an int >= 1, got {hidden!r}")
    gen = torch.Generator().manual_seed(int(seed))
    sizes = [(d, n_out)] if hidden is None else [(d, hidden), (hidden, n_out)]
    params = []
    for fan_in, fan_out in sizes:
        bound = 1.0 / math.sqrt(fan_in)
        W = (torch.rand(fan_out, fan_in, generator=gen) * 2 - 1) * bound
        b = (torch.rand(fan_out, generator=gen) * 2 - 1) * bound
        params += [W.expand(K, fan_out, fan_in).clone(), b.expand(K, fan_out).clone()]
    return [p.requires_grad_(True) for p in params]


def forward(params: list[torch.Tensor], xt: torch.Tensor) -> torch.Tensor:
    """Logits of the K models, in the kernel's layout (K, n_out, N), from the transposed inputs xt (d, N).

    The first layer of all K models is one matrix product (K·width, d) @ (d, N).
    """
    W, b = params[0], params[1]
    K, width, d = W.shape
    h = torch.addmm(b.reshape(K * width, 1), W.reshape(K * width, d), xt).view(K, width, -1)
    if len(params) == 4:
        h = torch.baddbmm(params[3].unsqueeze(-1), params[2], torch.relu(h))
    return h


@dataclass
class TrainResult:
    """Test metrics of each trained model (dicts of :func:`.metrics.deferral_metrics`), the specs, the final
    training loss per model, the test logits (K, N_test, n + 1) float32, and the trained weights (detached,
    in the layout of :func:`init_params`, models in the order of ``specs``)."""

    specs: list
    metrics: list
    train_loss: np.ndarray
    test_logits: np.ndarray
    params: list = field(default_factory=list)

    def get(self, label: str) -> dict:
        """The metrics of the model labelled ``label``."""
        return self.metrics[[s.label for s in self.specs].index(label)]


def train_specs(data: DeferData, specs: list[Spec], *, hidden: int | None = None, steps: int = 1500,
                lr: float = 0.05, seed: int = 0, test_beta: float | None = None,
                init: list | None = None) -> TrainResult:
    """Train one model per spec on ``data`` (full batch, Adam) and score it on the test split.

    Parameters
    ----------
    data : the training and test points.   specs : non-empty list of :class:`Spec` with distinct labels.
    hidden : None (linear) or the MLP's width.   steps : Adam steps ≥ 1.   lr : learning rate > 0.
    seed : seeds the initial weights (shared by all specs).
    test_beta : the β of the test cost for the deferral loss; default each spec's own β.
    init : optional initial weights, e.g. ``TrainResult.params`` of an earlier run with one model (a warm
        start; its single model is copied to every spec) or with as many models as ``specs``.

    Returns
    -------
    :class:`TrainResult`.

    Raises
    ------
    ValueError for an empty list, repeated labels, steps < 1, lr ≤ 0, or ``init`` of the wrong shapes.
    """
    if not specs or not all(isinstance(s, Spec) for s in specs):
        raise ValueError("specs must be a non-empty list of Spec")
    if len({s.label for s in specs}) != len(specs):
        raise ValueError("spec labels must be distinct")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be an int >= 1, got {steps!r}")
    if not (isinstance(lr, (int, float)) and lr > 0 and math.isfinite(lr)):
        raise ValueError(f"lr must be a number > 0, got {lr!r}")
    x = torch.as_tensor(data.x_train, dtype=torch.float32)
    xt = x.T.contiguous()
    y = torch.as_tensor(data.y_train)
    g = torch.as_tensor(data.g_train)
    K, n = len(specs), data.n_classes
    order = sorted(range(K), key=lambda k: specs[k].name == "ova")   # OvA models last: two contiguous slices
    specs = [specs[k] for k in order]
    back = np.argsort(order)                                          # to return results in the caller's order
    params = init_params(K, x.shape[1], n + 1, hidden, seed)
    if init is not None:
        if len(init) != len(params) or any(w.shape[1:] != p.shape[1:] or w.shape[0] not in (1, K)
                                           for w, p in zip(init, params, strict=True)):
            raise ValueError("init must hold weights of the same model (linear or MLP of this width), for 1 or "
                             f"{K} models: shapes {[tuple(p.shape) for p in params]}")
        params = [torch.as_tensor(w, dtype=torch.float32)[[0] * K if w.shape[0] == 1 else order].clone()
                  .requires_grad_(True) for w in init]
    cost = torch.stack([s.train_cost(y, g) for s in specs]).to(torch.float32)   # (K, N)
    fused_loss_grad(torch.zeros(K, len(y), n + 1), y, cost, specs[0].name, specs[0].q)   # validates once
    e_y, w, log_w = prepare(y, cost, n + 1)
    n_psi = sum(s.name != "ova" for s in specs)
    fam = [family(s.name, s.q) for s in specs[:n_psi]]
    joint = torch.tensor([f[0] for f in fam], dtype=torch.bool)
    q = torch.tensor([f[1] for f in fam], dtype=torch.float32)
    scale = torch.tensor([f[2] for f in fam], dtype=torch.float32)
    opt = torch.optim.Adam(params, lr=lr)
    for _ in range(steps):
        opt.zero_grad(set_to_none=True)
        logits = forward(params, xt)
        parts = []
        if n_psi:
            parts.append(FusedSurrogate.apply(logits[:n_psi], e_y, w[:n_psi], log_w[:n_psi], joint, q, scale))
        if n_psi < K:
            parts.append(FusedSurrogate.apply(logits[n_psi:], e_y, w[n_psi:], None, None, None, None))
        per_model = torch.cat(parts).mean(-1)                          # (K,)
        per_model.sum().backward()
        opt.step()
    last = per_model.detach()
    with torch.no_grad():
        test_logits = forward(params, torch.as_tensor(data.x_test, dtype=torch.float32).T.contiguous())
        test_logits = test_logits.transpose(1, 2)
    decisions = decide(test_logits)
    y_te, g_te = torch.as_tensor(data.y_test), torch.as_tensor(data.g_test)
    metrics = []
    for k, s in enumerate(specs):
        beta = s.beta if test_beta is None else test_beta
        c = expert_error_cost(y_te, g_te) if beta == 0 else inference_cost(y_te, g_te, beta)
        metrics.append(deferral_metrics(decisions[k], y_te, g_te, n, cost=c))
    return TrainResult([specs[k] for k in back], [metrics[k] for k in back],
                       last.numpy().astype(np.float64)[back], test_logits.numpy()[back],
                       [p.detach()[torch.as_tensor(back)] for p in params])
