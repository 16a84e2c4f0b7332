"""A mean-field two-layer ReLU network trained by online SGD, and how much of it has found the support S*.

    f(x; θ) = (1/m) Σ_{j=1}^m a_j ReLU(⟨w_j, x⟩ + b_j),   θ_j = (a_j, w_j, b_j).                     (dlq-net)

Mean-field scaling: each neuron's gradient is O(1/m), so the SGD step on θ_j is multiplied by m,

    θ_j ← θ_j − η m ∇_{θ_j} (1/B) Σ_{s=1}^B ℓ(f(x_s; θ), y_s),                                          (dlq-sgd)

with a fresh batch of B examples every step (online SGD) and η = η₀/d, so that T = O(d) steps cover a time
η T = O(1) of the mean-field dynamics ("linear scaling", as the paper's abstract names it). With
ℓ'_s = ℓ'(f(x_s), y_s) and 1_sj = 1[⟨w_j, x_s⟩ + b_j > 0], the step's three gradients are

    m ∂/∂a_j = (1/B) Σ_s ℓ'_s ReLU(⟨w_j, x_s⟩ + b_j),   m ∂/∂w_j = (1/B) Σ_s ℓ'_s a_j 1_sj x_s,
    m ∂/∂b_j = (1/B) Σ_s ℓ'_s a_j 1_sj,

written out in torch (a test checks them against torch's autograd); several seeds run side by side as a
batch of independent networks. Initialisation (the book's choice): w_j ~ N(0, I_d/d), b_j = 0 and a_j = ±1
in equal shares, so the network starts at f ≈ 0.

Support recovery is read off the first layer: neuron j is **aligned** with S* when more than half of its
squared weight norm lies on the support, ‖w_{j,S*}‖² > ½ ‖w_j‖² (at initialisation the share is about P/d).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..checks import check_count
from .junta import Junta
from .queries import _check_loss

BLOCK = 64   # SGD steps whose examples are drawn at once (one NumPy call per seed and block)


@dataclass
class Network:
    """The parameters of (dlq-net) for S independent networks: a (S, m), W (S, m, d), b (S, m) float32."""

    a: torch.Tensor
    W: torch.Tensor
    b: torch.Tensor

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        """f(x) for x of shape (S, n, d) (one batch per network): (S, n)."""
        pre = torch.baddbmm(self.b[:, None, :], x, self.W.transpose(1, 2))
        return (torch.relu(pre) @ self.a[:, :, None]).squeeze(-1) / self.a.shape[1]


def init_network(d: int, m: int, seeds: Sequence[int], bias_sd: float = 0.0) -> Network:
    """w_j ~ N(0, I_d/d), b_j = 0, a_j = ±1 in equal shares (random order), one network per seed (torch RNG).

    ``bias_sd`` > 0 draws b_j ~ N(0, bias_sd²) instead (an exercise of the chapter).

    Raises
    ------
    ValueError if d < 1, m < 2, m odd (equal shares need an even m), no seeds, a seed < 0 or bias_sd < 0.
    """
    d, m = check_count("d", d), check_count("m", m, minimum=2)
    if m % 2:
        raise ValueError(f"m must be even (half the second-layer weights start at +1, half at -1), got {m}")
    seeds = [check_count("seed", s, minimum=0) for s in seeds]
    if not seeds:
        raise ValueError("give at least one seed")
    if isinstance(bias_sd, bool) or not (isinstance(bias_sd, (int, float)) and math.isfinite(bias_sd)
                                         and bias_sd >= 0):
        raise ValueError(f"bias_sd must be a finite number >= 0, got {bias_sd!r}")
    W, a, b = [], [], []
    for s in seeds:
        g = torch.Generator().manual_seed(s)
        W.append(torch.randn(m, d, generator=g) / math.sqrt(d))
        sign = torch.ones(m)
        sign[torch.randperm(m, generator=g)[: m // 2]] = -1.0
        a.append(sign)
        b.append(bias_sd * torch.randn(m, generator=g) if bias_sd > 0 else torch.zeros(m))
    return Network(a=torch.stack(a), W=torch.stack(W), b=torch.stack(b))


def aligned_fraction(W, support, threshold: float = 0.5) -> np.ndarray:
    """Share of neurons with ‖w_{j,S*}‖² > threshold · ‖w_j‖² (module docstring), per network.

    Parameters
    ----------
    W : (m, d) or (S, m, d) first-layer weights (torch tensor or NumPy array).
    support : S*, coordinates in [0, d).
    threshold : in (0, 1); 0.5 by default.

    Returns
    -------
    float64 array of shape () for one network or (S,).

    Raises
    ------
    ValueError for a W that is not 2-d/3-d or not finite, a support outside [0, d), or a threshold outside (0, 1).
    """
    W = torch.as_tensor(W)
    if W.ndim not in (2, 3) or not bool(torch.isfinite(W).all()):
        raise ValueError(f"W must be a finite (m, d) or (S, m, d) array, got shape {tuple(W.shape)}")
    idx = [int(i) for i in support]
    if not idx or any(not 0 <= i < W.shape[-1] for i in idx):
        raise ValueError(f"support must be non-empty coordinates in [0, {W.shape[-1]}), got {support}")
    if not 0 < threshold < 1:
        raise ValueError(f"threshold must be in (0, 1), got {threshold!r}")
    return _aligned(W, torch.tensor(idx), threshold).numpy()


def _aligned(W: torch.Tensor, idx: torch.Tensor, threshold: float = 0.5) -> torch.Tensor:
    w2 = W * W
    return (w2.index_select(-1, idx).sum(-1) > threshold * w2.sum(-1)).double().mean(-1)


def loss_grad(loss: str, f: torch.Tensor, y: torch.Tensor, delta: float = 1.0) -> torch.Tensor:
    """ℓ'(f, y): f − y (squared), sign(f − y) (l1), clip(f − y, −δ, δ) (huber); as
    :func:`~neurips24.dlq.queries.loss_derivative`, on torch tensors."""
    r = f - y
    if loss == "squared":
        return r
    if loss == "l1":
        return torch.sign(r)
    return torch.clamp(r, -delta, delta)


def sgd_step(net: Network, loss: str, x: torch.Tensor, y: torch.Tensor, eta: float, delta: float = 1.0) -> None:
    """One step of (dlq-sgd) for every network on its own batch (x (S, B, d), y (S, B)), in place."""
    pre = torch.baddbmm(net.b[:, None, :], x, net.W.transpose(1, 2))            # (S, B, m)
    h = torch.relu(pre)
    f = (h @ net.a[:, :, None]).squeeze(-1) / net.a.shape[1]                     # (S, B)
    lp = loss_grad(loss, f, y, delta) / y.shape[1]                               # ℓ'_s / B
    g_a = (lp[:, :, None] * h).sum(1)                                            # m ∂L/∂a
    g_pre = lp[:, :, None] * (pre > 0) * net.a[:, None, :]                       # ℓ'_s a_j 1_sj / B
    net.W.sub_(eta * (g_pre.transpose(1, 2) @ x))                                # m ∂L/∂W
    net.b.sub_(eta * g_pre.sum(1))                                               # m ∂L/∂b
    net.a.sub_(eta * g_a)


@dataclass
class TrainRun:
    """Online-SGD runs of several seeds, side by side.

    steps : (R,) int64, the SGD steps at which the networks were measured (0 = initialisation).
    aligned : (S, R) float64, the aligned fraction of each seed's network at those steps.
    net : the final :class:`Network`.   d, loss, seeds, eta : the set-up.
    """

    steps: np.ndarray
    aligned: np.ndarray
    net: Network
    d: int
    loss: str
    seeds: tuple
    eta: float

    def final(self) -> np.ndarray:
        """(S,) the aligned fraction at the last step."""
        return self.aligned[:, -1].copy()

    def first_passage(self, level: float) -> np.ndarray:
        """(S,) the first measured step with aligned fraction >= level, ``inf`` for a seed that never got there."""
        out = np.full(len(self.seeds), math.inf)
        for s, row in enumerate(self.aligned):
            hit = np.nonzero(row >= level)[0]
            if hit.size:
                out[s] = float(self.steps[hit[0]])
        return out


def train_online(junta: Junta, loss: str, steps: int, *, seeds: Sequence[int] = (0,), m: int = 256,
                 batch: int = 16, eta0: float = 2.0, record_every: int | None = None,
                 stop_at: float | None = None, delta: float = 1.0, bias_sd: float = 0.0) -> TrainRun:
    """Online SGD (dlq-sgd) on fresh samples of ``junta`` with step η = eta0 / d; the aligned fraction recorded.

    Parameters
    ----------
    junta : the target.   loss : 'squared', 'l1' or 'huber'.
    steps : number of SGD steps T >= 1 (the chapter uses T = 40 d).
    seeds : one independent network and data stream per seed (init: torch RNG; data: NumPy ``default_rng``).
    m : neurons (even, >= 2).   batch : examples per step B >= 1.   eta0 : η₀ > 0 (η = η₀/d).
    record_every : measure every this many steps (default max(1, d // 16)).
    stop_at : if given, stop once every seed's aligned fraction has reached ``stop_at``.
    delta : the Huber threshold.
    bias_sd : initial biases b_j ~ N(0, bias_sd²) (default 0: all biases start at 0).

    Returns
    -------
    :class:`TrainRun`.

    Raises
    ------
    ValueError for an unknown loss, steps/batch/record_every < 1, an odd m, eta0 <= 0 or non-finite,
    bias_sd < 0, or weights that stop being finite (divergence).
    """
    _check_loss(loss, delta)
    steps, batch = check_count("steps", steps), check_count("batch", batch)
    if isinstance(eta0, bool) or not (isinstance(eta0, (int, float)) and math.isfinite(eta0) and eta0 > 0):
        raise ValueError(f"eta0 must be a finite number > 0, got {eta0!r}")
    d = junta.d
    every = check_count("record_every", record_every if record_every is not None else max(1, d // 16))
    seeds = tuple(int(s) for s in seeds)
    net = init_network(d, m, seeds, bias_sd)
    rngs = [np.random.default_rng([s, 1]) for s in seeds]       # the data stream of each seed
    idx = torch.tensor(junta.support)
    eta = eta0 / d
    rec_steps, rec = [0], [_aligned(net.W, idx)]
    for start in range(0, steps, BLOCK):
        n_block = min(BLOCK, steps - start)
        draws = [junta.sample(n_block * batch, rng) for rng in rngs]
        xs = torch.from_numpy(np.stack([x for x, _ in draws])).float().reshape(len(seeds), n_block, batch, d)
        ys = torch.from_numpy(np.stack([y for _, y in draws])).float().reshape(len(seeds), n_block, batch)
        for t in range(n_block):
            sgd_step(net, loss, xs[:, t], ys[:, t], eta, delta)
            k = start + t + 1
            if k % every == 0 or k == steps:
                rec_steps.append(k)
                rec.append(_aligned(net.W, idx))
        if not bool(torch.isfinite(net.W).all()):
            raise ValueError(f"training diverged by step {start + n_block} (eta0 = {eta0} too large?)")
        if stop_at is not None and bool((torch.stack(rec).max(0).values >= stop_at).all()):
            break
    return TrainRun(steps=np.array(rec_steps, dtype=np.int64), aligned=torch.stack(rec, dim=1).numpy(), net=net,
                    d=d, loss=loss, seeds=seeds, eta=eta)
