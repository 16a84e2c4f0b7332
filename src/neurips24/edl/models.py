"""Many small MLPs trained at once: the evidential models, the bootstrap ensemble and its distillation.

The chapter trains about a hundred tiny networks (sample sizes × λ × seeds × bootstrap members). They are
stacked into one :class:`BatchedMLP` whose weights carry a leading member axis B; ``torch.matmul`` runs all
members in one call. The members do not interact: each has its own data, its own minibatches and its own
loss, and the total loss is the *sum* of the members' losses, so each member's gradient is its own; Adam is
elementwise, so each member follows exactly the trajectory it would follow alone.

Three trainers, one per criterion (paper: the unified objective; its remedy: bootstrap + distillation):

- :func:`train_evidential`: α = exp(f), the unified reverse/forward-KL loss, one λ per member;
- :func:`train_softmax`: cross-entropy (the bootstrap ensemble's members, as in the authors' code);
- :func:`train_distill`: the Dirichlet NLL of the bootstrap members' predictions (Bootstrap-Distill).

Minibatches are drawn with replacement from each member's own n_b points (``batch_size`` per step); torch's
Adam optimises (no weight decay, as the paper). Training runs on a CUDA device when torch sees one
(:func:`train_device`), on the CPU otherwise; the minibatch draws are the same on both.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from ..checks import check_count
from . import objectives
from .dirichlet import _kl
from .objectives import _check_divergence, _distill_nll, check_lam

__all__ = ["BatchedMLP", "MemberData", "train_device", "train_evidential", "train_softmax", "train_distill"]


class BatchedMLP(torch.nn.Module):
    """B independent ReLU MLPs with the same layer sizes, evaluated together.

    Member b maps x (n, d) to logits (n, C) = W_L relu(… relu(x W_1 + b_1) …) + b_L. Initialisation follows
    ``torch.nn.Linear`` (weights and biases uniform in ±1/√fan_in). Members with the same ``init_group``
    start from identical weights (the authors train their bootstrap members from one initialisation, so that
    they differ only by their data).

    Parameters
    ----------
    sizes : (d, h_1, …, C) layer widths, at least two entries, each ≥ 1.
    init_group : (B,) integers; members sharing a value share their initial weights.
    seed : int ≥ 0; group g is initialised from ``torch.Generator().manual_seed(seed * 100_003 + g)``.

    Raises
    ------
    ValueError for fewer than two sizes, a size < 1, an empty or non-integer ``init_group``.
    """

    def __init__(self, sizes, init_group, seed: int = 0):
        super().__init__()
        sizes = [check_count("layer size", s) for s in sizes]
        if len(sizes) < 2:
            raise ValueError(f"sizes must list at least the input and output widths, got {sizes}")
        groups = np.asarray(init_group)
        if groups.ndim != 1 or groups.size == 0 or groups.dtype.kind not in "iu":
            raise ValueError("init_group must be a non-empty 1-d array of integers")
        check_count("seed", seed, 0)
        self.sizes = tuple(sizes)
        self.B = int(groups.size)
        weights, biases = [], []
        for fan_in, fan_out in zip(sizes[:-1], sizes[1:], strict=True):
            weights.append(torch.empty(self.B, fan_in, fan_out))
            biases.append(torch.empty(self.B, 1, fan_out))
        for g in np.unique(groups):
            gen = torch.Generator().manual_seed(int(seed) * 100_003 + int(g))
            members = torch.as_tensor(np.flatnonzero(groups == g))
            for W, b in zip(weights, biases, strict=True):
                bound = 1.0 / math.sqrt(W.shape[1])
                W[members] = (torch.rand(W.shape[1:], generator=gen) * 2 - 1) * bound
                b[members] = (torch.rand(b.shape[1:], generator=gen) * 2 - 1) * bound
        self.weights = torch.nn.ParameterList([torch.nn.Parameter(W) for W in weights])
        self.biases = torch.nn.ParameterList([torch.nn.Parameter(b) for b in biases])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Logits (B, n, C) of every member on its own inputs x (B, n, d), or on shared inputs x (n, d)."""
        h = x
        last = len(self.weights) - 1
        for i, (W, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = torch.matmul(h, W) + b
            if i < last:
                h = torch.relu(h)
        return h

    @torch.no_grad()
    def logits(self, x, members=None, chunk: int = 8192) -> np.ndarray:
        """Logits (B', n, C) float64 of the chosen members (default all) on shared inputs x (n, d), in chunks."""
        x = torch.as_tensor(np.asarray(x), dtype=self.weights[0].dtype, device=self.weights[0].device)
        idx = slice(None) if members is None else torch.as_tensor(np.asarray(members), dtype=torch.long)
        out = []
        for start in range(0, x.shape[0], chunk):
            h = x[start:start + chunk]
            last = len(self.weights) - 1
            for i, (W, b) in enumerate(zip(self.weights, self.biases, strict=True)):
                h = torch.matmul(h, W[idx]) + b[idx]
                if i < last:
                    h = torch.relu(h)
            out.append(h.double().cpu())
        return torch.cat(out, dim=1).numpy()


@dataclass
class MemberData:
    """Each member's training set, padded to a common length.

    X : (B, n_max, d) float32 inputs.   n : (B,) int64, member b uses rows [0, n_b).
    y : (B, n_max) int64 labels, or None.   teacher : (B, n_max, M, C) float32 teacher probabilities, or None.
    """

    X: torch.Tensor
    n: torch.Tensor
    y: torch.Tensor | None = None
    teacher: torch.Tensor | None = None

    @staticmethod
    def stack(datasets: list[tuple], dtype=torch.float32) -> MemberData:
        """From a list of (X_b (n_b, d), y_b (n_b,) or None, teacher_b (n_b, M, C) or None), one per member.

        Raises
        ------
        ValueError if the list is empty, a member has no rows, or the members' input widths differ.
        """
        if not datasets:
            raise ValueError("need at least one member's data")
        n = np.array([len(d[0]) for d in datasets])
        if n.min() < 1:
            raise ValueError("every member needs at least one training point")
        widths = {np.asarray(d[0]).shape[1] for d in datasets}
        if len(widths) != 1:
            raise ValueError(f"members' inputs must have one width, got {sorted(widths)}")
        B, n_max, d = len(datasets), int(n.max()), widths.pop()
        X = np.zeros((B, n_max, d), dtype=np.float32)
        y = np.zeros((B, n_max), dtype=np.int64) if datasets[0][1] is not None else None
        t = None
        if datasets[0][2] is not None:
            t = np.zeros((B, n_max) + np.asarray(datasets[0][2]).shape[1:], dtype=np.float32)
        for b, (Xb, yb, tb) in enumerate(datasets):
            X[b, :n[b]] = Xb
            if y is not None:
                y[b, :n[b]] = yb
            if t is not None:
                t[b, :n[b]] = tb
        return MemberData(torch.as_tensor(X, dtype=dtype), torch.as_tensor(n),
                          None if y is None else torch.as_tensor(y),
                          None if t is None else torch.as_tensor(t, dtype=dtype))

    def to(self, device) -> MemberData:
        """The same data on ``device`` (a torch device or its name)."""
        return MemberData(self.X.to(device), self.n.to(device), None if self.y is None else self.y.to(device),
                          None if self.teacher is None else self.teacher.to(device))

    def batch(self, batch_size: int, gen: torch.Generator):
        """One minibatch per member, drawn with replacement: indices (B, batch_size) and the rows they pick."""
        B = self.X.shape[0]
        idx = (torch.rand(B, batch_size, generator=gen).to(self.n.device) * self.n[:, None]).long()
        rows = torch.arange(B, device=self.n.device)[:, None]
        return idx, rows


def train_device() -> torch.device:
    """``cuda`` when torch sees a GPU (the `full` scale on a GPU machine), else ``cpu``."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _fit(model: BatchedMLP, data: MemberData, member_loss, steps: int, batch_size: int, lr: float,
         seed: int) -> list:
    """Adam on the sum of the members' mean minibatch losses, the step size decayed to 0 on a cosine.

    Returns the loss curve: (B,) losses every 50 steps. The cosine decay is the book's choice (the paper
    trains at a constant rate with early stopping): the theory is about the optimum, and a decaying step
    lets the minibatch noise die out, which matters at small λ, where one label moves the target by 1/λ.
    """
    steps = check_count("steps", steps)
    batch_size = check_count("batch_size", batch_size)
    if not (isinstance(lr, (int, float)) and math.isfinite(lr) and lr > 0):
        raise ValueError(f"lr must be a number > 0, got {lr!r}")
    if data.X.shape[0] != model.B:
        raise ValueError(f"the data have {data.X.shape[0]} members but the model has {model.B}")
    opt = torch.optim.Adam(model.parameters(), lr=lr, fused=True)     # the model is already on its device
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps)
    gen = torch.Generator().manual_seed(int(seed) + 7)
    curve = []
    for step in range(steps):
        idx, rows = data.batch(batch_size, gen)
        losses = member_loss(model(data.X[rows, idx]), idx, rows, step)      # (B,)
        opt.zero_grad(set_to_none=True)
        losses.sum().backward()
        opt.step()
        schedule.step()
        if step % 50 == 0 or step == steps - 1:
            curve.append(losses.detach().cpu().numpy().copy())
    return curve


def train_evidential(data: MemberData, lam, *, hidden=(64, 64), n_classes: int, prior: float = 1.0,
                     divergence: str = "reverse", steps: int = 1500, batch_size: int = 128, lr: float = 1e-3,
                     init_group=None, seed: int = 0) -> tuple[BatchedMLP, list]:
    """Train B evidential networks, α = exp(f), on the unified objective with λ_b for member b (paper eq. (6)).

    Parameters
    ----------
    data : :class:`MemberData` with labels ``y``.
    lam : (B,) regulariser weights λ_b > 0 (or one number for all).
    hidden : hidden widths.   n_classes : C ≥ 2.   prior : α_prior > 0.   divergence : 'reverse' or 'forward'.
    steps, batch_size : ≥ 1.   lr : Adam's step size > 0.
    init_group : (B,) ints (default: all members share one initialisation).   seed : int ≥ 0.

    Returns
    -------
    (model, loss curve): the :class:`BatchedMLP` (logits f; α = exp f) and a list of (B,) loss arrays.

    Raises
    ------
    ValueError for a λ ≤ 0, a label outside [0, C), a member count mismatch, or bad sizes.
    """
    divergence = _check_divergence(divergence)
    B = data.X.shape[0]
    lam = np.broadcast_to(np.asarray(lam, dtype=np.float64), (B,))
    for value in lam:
        check_lam(float(value))
    prior = check_lam(prior, "prior")
    C = check_count("n_classes", n_classes, 2)
    if data.y is None or int(data.y.max()) >= C or int(data.y.min()) < 0:
        raise ValueError(f"data.y must hold labels in [0, {C})")
    device = train_device()
    data = data.to(device)
    nu = torch.as_tensor(1.0 / lam, dtype=torch.float32, device=device)[:, None, None]          # (B, 1, 1)
    model = BatchedMLP((data.X.shape[-1], *hidden, C), np.zeros(B, int) if init_group is None else init_group,
                       seed).to(device)

    def member_loss(f, idx, rows, step):
        alpha = objectives.evidence(f)
        onehot = torch.nn.functional.one_hot(data.y[rows, idx], C).float()
        if divergence == "reverse":                     # KL(Dir(α) ‖ Dir(prior + ν e_y)) up to a constant
            return objectives.reverse_kl_terms(alpha, onehot, nu, prior).mean(-1)
        return _kl(prior + nu * onehot, alpha).mean(-1)

    return model, _fit(model, data, member_loss, steps, batch_size, lr, seed)


def train_softmax(data: MemberData, *, hidden=(64, 64), n_classes: int, steps: int = 1500,
                  batch_size: int = 128, lr: float = 1e-3, init_group=None, seed: int = 0):
    """Train B softmax classifiers with cross-entropy (the bootstrap ensemble's members).

    Returns and raises as :func:`train_evidential` (no λ).
    """
    C = check_count("n_classes", n_classes, 2)
    if data.y is None or int(data.y.max()) >= C or int(data.y.min()) < 0:
        raise ValueError(f"data.y must hold labels in [0, {C})")
    B = data.X.shape[0]
    data = data.to(train_device())
    model = BatchedMLP((data.X.shape[-1], *hidden, C), np.zeros(B, int) if init_group is None else init_group,
                       seed).to(data.X.device)

    def member_loss(f, idx, rows, step):
        logp = torch.log_softmax(f, dim=-1)
        return -logp.gather(-1, data.y[rows, idx][..., None]).squeeze(-1).mean(-1)

    return model, _fit(model, data, member_loss, steps, batch_size, lr, seed)


def temperature_schedule(step: int, steps: int, t0: float = 5.0, hold: float = 0.15, decay: float = 0.15) -> float:
    """EnD² temperature: t0 for the first ``hold`` fraction of the steps, then linear to 1 over ``decay``.

    The authors' Bootstrap-Distill script holds T = 5 for 30 epochs and anneals to 1 over the next 30 (of
    up to 200); the fractions 0.15 and 0.15 keep that shape on a step budget.
    """
    start, end = hold * steps, (hold + decay) * steps
    if step <= start:
        return t0
    if step >= end:
        return 1.0
    return t0 - (t0 - 1.0) * (step - start) / (end - start)


def train_distill(data: MemberData, *, hidden=(64, 64), steps: int = 1500, batch_size: int = 128,
                  lr: float = 1e-3, t0: float = 5.0, smoothing: float = 1e-3, init_group=None, seed: int = 0):
    """Bootstrap-Distill: train B evidential networks (α = exp f) on their teachers' predictions.

    Member b minimises :func:`~neurips24.edl.objectives.distill_loss` on its own inputs, with the temperature
    annealed by :func:`temperature_schedule` from ``t0`` to 1.

    Parameters
    ----------
    data : :class:`MemberData` with ``teacher`` (B, n_max, M, C) probabilities.
    t0 : initial temperature ≥ 1.   smoothing : teacher shrinkage in [0, 1).   Others as :func:`train_evidential`.

    Returns
    -------
    (model, loss curve).

    Raises
    ------
    ValueError without teacher probabilities, for t0 < 1, smoothing outside [0, 1) or bad sizes.
    """
    if data.teacher is None:
        raise ValueError("data.teacher must hold the teachers' probabilities (B, n_max, M, C)")
    if not (math.isfinite(t0) and t0 >= 1):
        raise ValueError(f"t0 must be >= 1, got {t0!r}")
    if not 0 <= smoothing < 1:
        raise ValueError(f"smoothing must lie in [0, 1), got {smoothing!r}")
    B, C = data.X.shape[0], data.teacher.shape[-1]
    data = data.to(train_device())
    model = BatchedMLP((data.X.shape[-1], *hidden, C), np.zeros(B, int) if init_group is None else init_group,
                       seed).to(data.X.device)

    def member_loss(f, idx, rows, step):
        T = temperature_schedule(step, steps, t0)
        return _distill_nll(objectives.evidence(f), data.teacher[rows, idx], T, smoothing).mean(-1)

    return model, _fit(model, data, member_loss, steps, batch_size, lr, seed)
