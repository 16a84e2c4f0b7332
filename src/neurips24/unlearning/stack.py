"""Many small MLPs trained at once: one stacked tensor program, full-batch Adam, one objective per model.

The memorization estimator needs dozens of models on random subsets, the tug-of-war needs a retrained oracle
per forget set, and every unlearning algorithm runs on every forget set. All are the same network, a ReLU MLP
d -> h -> c, so M of them are stored as stacked tensors (``W1`` of shape (M, d, h), ...) and trained in one
graph: the losses are summed, so each model's parameters receive the gradient of its own loss only, and Adam
(written out here so that its state can be reset per model when a sequential method moves to its next step)
works per coordinate. M independent trainings, one ``torch.einsum``/``torch.bmm`` per layer.

Every method of the chapter is one :class:`Objective` per step, per model m:

    L_m = Σ_i w_ce[m, i] · CE(f_m(x_i), y[m, i]) + Σ_i w_kl[m, i] · T² KL(p_T(teacher_i) || p_T(f_m(x_i)))
          + l1[m] · ||θ_m||_1,

with per-point weights (1/|R| on a retain set, −(1 − α)/|S| on a forget set for NegGrad+, ...), per-point
targets (random labels for random-label unlearning) and a temperature T for the distillation term (SCRUB).
Initialisation: torch.nn.Linear's (uniform ±1/√fan_in), drawn from a seeded generator.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

KEYS = ("W1", "b1", "W2", "b2")


def device() -> torch.device:
    """Where stacks live: the GPU when torch sees one (full scale), else the CPU. Results do not depend on it
    beyond floating-point rounding; the initial weights are always drawn on the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def _inputs(x, like: torch.Tensor) -> torch.Tensor:
    """x as a float32 tensor on ``like``'s device: a torch tensor (on any device, e.g. the inputs that
    :func:`train_stack` already moved to the GPU) is moved with ``Tensor.to``, never through NumPy (which cannot
    read device memory); anything else goes through ``np.asarray``."""
    if isinstance(x, torch.Tensor):
        return x.to(like.device, torch.float32)
    return torch.as_tensor(np.asarray(x, dtype=np.float32), device=like.device)


def _check_positive(name: str, value, integer: bool = False) -> None:
    ok = isinstance(value, (int, np.integer)) if integer else isinstance(value, (int, float, np.floating))
    if isinstance(value, bool) or not ok or not np.isfinite(value) or value <= 0:
        kind = "an integer" if integer else "a finite number"
        raise ValueError(f"{name} must be {kind} > 0, got {value!r}")


def check_data(x, y, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Validate training data: x (n, d) finite numbers, y (n,) integer labels in [0, n_classes).

    Returns
    -------
    (x float32 (n, d), y int64 (n,)).

    Raises
    ------
    TypeError if y is not integer-valued; ValueError if x is not 2-d or not finite, the lengths differ, n = 0,
    n_classes < 1 or a label lies outside [0, n_classes).
    """
    _check_positive("n_classes", n_classes, integer=True)
    x = np.asarray(x, dtype=np.float32)
    y = np.asarray(y)
    if x.ndim != 2 or len(x) == 0:
        raise ValueError(f"x must be a non-empty (n, d) array, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("x must be finite (no NaN or inf)")
    if y.shape != (len(x),):
        raise ValueError(f"y must have shape ({len(x)},) to match x, got {y.shape}")
    if not np.issubdtype(y.dtype, np.integer):
        raise TypeError(f"y must hold integer class labels, got dtype {y.dtype}")
    if y.min() < 0 or y.max() >= n_classes:
        raise ValueError(f"labels y must lie in [0, n_classes) = [0, {n_classes}), got min {y.min()} and "
                         f"max {y.max()}")
    return x, y.astype(np.int64)


def init_stack(n_models: int, d: int, hidden: int, n_classes: int, seed: int = 0) -> dict:
    """Initial parameters of ``n_models`` MLPs d -> hidden -> n_classes (torch.nn.Linear's uniform init).

    Returns
    -------
    dict with W1 (M, d, h), b1 (M, h), W2 (M, h, c), b2 (M, c), float32 tensors.

    Raises
    ------
    ValueError if a size is not a positive integer.
    """
    for name, v in (("n_models", n_models), ("d", d), ("hidden", hidden), ("n_classes", n_classes)):
        _check_positive(name, v, integer=True)
    g = torch.Generator().manual_seed(int(seed))

    def uniform(shape, fan_in):
        return (torch.rand(shape, generator=g) * 2 - 1) / np.sqrt(fan_in)

    params = {"W1": uniform((n_models, d, hidden), d), "b1": uniform((n_models, hidden), d),
              "W2": uniform((n_models, hidden, n_classes), hidden), "b2": uniform((n_models, n_classes), hidden)}
    return {k: v.to(device()) for k, v in params.items()}


def take(params: dict, models) -> dict:
    """The parameters of some models of a stack (a copy), e.g. ``take(p, [0, 0, 0])`` repeats model 0."""
    models = models.cpu() if isinstance(models, torch.Tensor) else np.asarray(models)
    idx = torch.as_tensor(models, dtype=torch.long, device=params["W1"].device)
    return {k: params[k][idx].clone() for k in KEYS}


def hidden_features(params: dict, x) -> torch.Tensor:
    """Penultimate embedding φ(x) = ReLU(x W1 + b1) of every model: (M, n, h) float32."""
    x = _inputs(x, params["W1"])
    return torch.relu(torch.matmul(x[None], params["W1"]) + params["b1"][:, None, :])


def logits(params: dict, x) -> torch.Tensor:
    """f_m(x) for every model m: (M, n, c) float32 logits, x (n, d) shared by all models."""
    return torch.bmm(hidden_features(params, x), params["W2"]) + params["b2"][:, None, :]


@torch.no_grad()
def predict_proba(params: dict, x) -> np.ndarray:
    """Softmax probabilities (M, n, c) float64 of every model."""
    return torch.softmax(logits(params, x), dim=-1).double().cpu().numpy()


@dataclass
class Objective:
    """The loss of every model at one step (see the module docstring).

    w_ce : (M, n) float32, per-point weights of the cross-entropy (negative weights ascend the loss).
    y : (M, n) int64 targets (or (n,), shared).
    w_kl : (M, n) float32 weights of the distillation term, or None.
    teacher : (n, c) float32 teacher logits (needed when w_kl is given).
    l1 : (M,) float32 weights of the L1 penalty on all parameters, or None.
    temperature : T of the distillation term.
    lr : (M,) float32 learning rates for this step, or None (use :func:`train_stack`'s ``lr``).
    """

    w_ce: torch.Tensor
    y: torch.Tensor
    w_kl: torch.Tensor | None = None
    teacher: torch.Tensor | None = None
    l1: torch.Tensor | None = None
    temperature: float = 4.0
    lr: torch.Tensor | None = None

    def to(self, dev) -> Objective:
        """The same objective with its tensors on ``dev``."""
        move = (lambda v: None if v is None else v.to(dev))              # noqa: E731
        return Objective(move(self.w_ce), move(self.y), move(self.w_kl), move(self.teacher), move(self.l1),
                         self.temperature, move(self.lr))

    def loss(self, params: dict, x: torch.Tensor) -> torch.Tensor:
        """Σ_m L_m (a scalar); its gradient w.r.t. model m's parameters is that of L_m alone."""
        z = logits(params, x)                                        # (M, n, c)
        logp = torch.log_softmax(z, dim=-1)
        y = self.y if self.y.dim() == 2 else self.y.expand(z.shape[0], -1)
        total = -(self.w_ce * logp.gather(-1, y[..., None])[..., 0]).sum()
        if self.w_kl is not None:
            t = self.temperature
            log_q = torch.log_softmax(z / t, dim=-1)
            log_p = torch.log_softmax(self.teacher / t, dim=-1)[None]
            kl = (log_p.exp() * (log_p - log_q)).sum(-1)            # KL(teacher || model), (M, n)
            total = total + t * t * (self.w_kl * kl).sum()
        if self.l1 is not None:
            norm = sum(params[k].abs().flatten(1).sum(1) for k in KEYS)
            total = total + (self.l1 * norm).sum()
        return total


def train_stack(params: dict, x, objective, steps: int, lr, *, betas=(0.9, 0.999), eps: float = 1e-8,
                on_step=None) -> dict:
    """Full-batch Adam on every model of the stack at once.

    Parameters
    ----------
    params : stacked parameters (see :func:`init_stack`); not modified (a trained copy is returned).
    x : (n, d) inputs shared by all models.
    objective : an :class:`Objective`, or a callable ``t -> (Objective, reset)`` giving step t's objective and a
        (M,) bool tensor of models whose Adam state is reset before the step (a sequential method starting its
        next subset), or None.
    steps : number of Adam steps, > 0.
    lr : learning rate, a float or an (M,) array (one rate per model), > 0.
    on_step : optional callable ``(t, params)`` run after each step (no gradient), e.g. to record a trace.

    Returns
    -------
    dict of trained parameters (same shapes).

    Raises
    ------
    ValueError if steps or a learning rate is not a finite positive number.
    """
    _check_positive("steps", steps, integer=True)
    m = params["W1"].shape[0]
    lr = np.broadcast_to(np.asarray(lr, dtype=float), (m,))
    if not np.all(np.isfinite(lr)) or np.any(lr <= 0):
        raise ValueError(f"lr must be finite and > 0 for every model, got {lr}")
    dev = params["W1"].device
    x = _inputs(x, params["W1"])
    p = {k: params[k].detach().clone().requires_grad_(True) for k in KEYS}
    state = {k: (torch.zeros_like(p[k]), torch.zeros_like(p[k])) for k in KEYS}
    count = torch.zeros(m, device=dev)
    lr_t = torch.tensor(lr, dtype=torch.float32, device=dev)
    b1, b2 = betas
    for t in range(steps):
        obj, reset = objective(t) if callable(objective) else (objective, None)
        obj = obj.to(dev)
        if reset is not None and bool(reset.any()):
            reset = reset.to(dev)
            count[reset] = 0
            for k in KEYS:
                state[k][0][reset] = 0
                state[k][1][reset] = 0
        grads = torch.autograd.grad(obj.loss(p, x), [p[k] for k in KEYS])
        count += 1
        rate = lr_t if obj.lr is None else obj.lr
        with torch.no_grad():
            for k, g in zip(KEYS, grads, strict=True):
                m1, m2 = state[k]
                m1.mul_(b1).add_(g, alpha=1 - b1)
                m2.mul_(b2).addcmul_(g, g, value=1 - b2)
                shape = (m,) + (1,) * (g.dim() - 1)
                c1 = (1 - b1 ** count).view(shape)
                c2 = (1 - b2 ** count).view(shape)
                p[k] -= rate.view(shape) * (m1 / c1) / ((m2 / c2).sqrt() + eps)
            if on_step is not None:
                on_step(t, p)
    return {k: p[k].detach() for k in KEYS}


def subset_weights(masks) -> torch.Tensor:
    """Per-point weights 1/|subset| on each model's subset: (M, n) float32 from (M, n) bool masks.

    Raises
    ------
    ValueError if a mask is empty.
    """
    if isinstance(masks, torch.Tensor):
        masks = masks.float()
    else:
        masks = torch.as_tensor(np.asarray(masks), dtype=torch.float32)
    sizes = masks.sum(1, keepdim=True)
    if bool((sizes == 0).any()):
        raise ValueError("every model needs a non-empty training subset")
    return masks / sizes


def fit_from_scratch(x, y, masks, *, hidden: int, steps: int, lr: float, seed: int, n_classes: int = 10) -> dict:
    """Train one fresh MLP per row of ``masks`` (M, n) bool on its subset (mean cross-entropy, full-batch Adam).

    The recipe of the original model, of the retrain-from-scratch oracle and of the memorization ensemble.

    Raises
    ------
    ValueError/TypeError on bad data (see :func:`check_data`), masks that are not (M, n), or a bad recipe.
    """
    x, y = check_data(x, y, n_classes)
    masks = np.asarray(masks, dtype=bool)
    if masks.ndim != 2 or masks.shape[1] != len(y):
        raise ValueError(f"masks must be (M, n) with n = {len(y)}, got shape {masks.shape}")
    params = init_stack(masks.shape[0], np.asarray(x).shape[1], hidden, n_classes, seed)
    obj = Objective(subset_weights(masks), torch.as_tensor(np.asarray(y), dtype=torch.long)).to(params["W1"].device)
    return train_stack(params, x, obj, steps, lr)
