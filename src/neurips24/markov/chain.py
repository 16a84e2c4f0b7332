"""Binary first-order Markov chains with switching probabilities (p, q) (Makkuva et al. 2024, §2).

P = [[1 − p, p], [q, 1 − q]]: from state 0 the chain switches to 1 with probability p, from state 1 to 0 with
probability q. Its stationary law is π = (q, p) / (p + q). Losses are next-token cross-entropies in nats.
"""
from __future__ import annotations

import numpy as np
import torch

from ..checks import check_count


def check_pq(p, q) -> tuple[float, float]:
    """Validate switching probabilities.

    Returns
    -------
    (p, q) as Python floats.

    Raises
    ------
    TypeError if p or q is not a real number; ValueError if either is outside the open interval (0, 1).
    """
    out = []
    for name, v in (("p", p), ("q", q)):
        if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
            raise TypeError(f"{name} must be a real number in (0, 1), got {type(v).__name__}")
        v = float(v)
        if not 0.0 < v < 1.0:
            raise ValueError(f"{name} must lie in the open interval (0, 1), got {v!r}")
        out.append(v)
    return out[0], out[1]


def transition_matrix(p: float, q: float) -> np.ndarray:
    """P = [[1 − p, p], [q, 1 − q]]: (2, 2) float64, rows sum to 1. Raises like :func:`check_pq`."""
    p, q = check_pq(p, q)
    return np.array([[1.0 - p, p], [q, 1.0 - q]])


def stationary(p: float, q: float) -> np.ndarray:
    """Stationary distribution π = (q, p) / (p + q): (2,) float64 (π₀, π₁). Raises like :func:`check_pq`."""
    p, q = check_pq(p, q)
    return np.array([q, p]) / (p + q)


def binary_entropy(x):
    """h(x) = −x log x − (1 − x) log(1 − x) in nats, with h(0) = h(1) = 0; elementwise on arrays.

    Raises
    ------
    ValueError if any x lies outside [0, 1].
    """
    x = np.asarray(x, dtype=np.float64)
    if np.any((x < 0) | (x > 1)) or np.any(np.isnan(x)):
        raise ValueError("x must lie in [0, 1]")
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.where(x > 0, x * np.log(x), 0.0) - np.where(x < 1, (1 - x) * np.log1p(-x), 0.0)
    return h if h.ndim else float(h)


def bigram_loss(p: float, q: float) -> float:
    """Entropy rate π₀ h(p) + π₁ h(q) (nats): the global minimum of the next-token loss (the bigram predictor)."""
    pi0, pi1 = stationary(p, q)
    return float(pi0 * binary_entropy(p) + pi1 * binary_entropy(q))


def unigram_loss(p: float, q: float) -> float:
    """h(π₁) (nats): the loss of predicting the stationary law whatever the past — the paper's local minimum."""
    _, pi1 = stationary(p, q)
    return float(binary_entropy(pi1))


def sample_chain(p: float, q: float, batch: int, length: int, generator: torch.Generator | None = None,
                 initial: str = "stationary") -> torch.Tensor:
    """Draw ``batch`` independent sequences of the chain, all positions at once per time step.

    Parameters
    ----------
    p, q : switching probabilities in (0, 1).
    batch : number of sequences B >= 1.   length : sequence length T >= 2.
    generator : a ``torch.Generator`` for reproducible draws (default: torch's global one).
    initial : 'stationary' (x₀ ~ Bern(π₁), so every position is stationary) or 'uniform' (x₀ ~ Bern(1/2)).

    Returns
    -------
    (B, T) int64 tensor of 0/1 tokens. (The official code draws x₀ ~ Bern(q/(p+q)) = Bern(π₀); we use π₁.)

    Raises
    ------
    ValueError if p, q are outside (0, 1), batch < 1, length < 2 or ``initial`` is unknown.
    """
    p, q = check_pq(p, q)
    for name, v, low in (("batch", batch, 1), ("length", length, 2)):
        check_count(name, v, low)
    if initial not in ("stationary", "uniform"):
        raise ValueError(f"initial must be 'stationary' or 'uniform', got {initial!r}")
    u = torch.rand(batch, length, generator=generator, dtype=torch.float64)
    x = torch.empty(batch, length, dtype=torch.int64)
    first = p / (p + q) if initial == "stationary" else 0.5
    x[:, 0] = (u[:, 0] < first).long()
    for t in range(1, length):   # P(x_t = 1 | x_{t-1}) = p if x_{t-1} = 0 else 1 − q
        prob_one = torch.where(x[:, t - 1] == 1, 1.0 - q, p)
        x[:, t] = (u[:, t] < prob_one).long()
    return x


def check_binary_sequences(x) -> np.ndarray:
    """Validate a batch of token sequences: returns it as an (B, T) int64 array.

    Raises
    ------
    ValueError if x is not 1-D or 2-D, has length < 2, or holds a value other than 0 and 1.
    """
    x = x.numpy() if isinstance(x, torch.Tensor) else np.asarray(x)
    if x.ndim == 1:
        x = x[None]
    if x.ndim != 2:
        raise ValueError(f"x must have shape (B, T) or (T,), got {x.shape}")
    if x.shape[1] < 2:
        raise ValueError(f"x must have sequence length T >= 2, got {x.shape[1]}")
    if not np.all((x == 0) | (x == 1)):
        raise ValueError("x must be binary: every token 0 or 1")
    return x.astype(np.int64)


def estimate_switching(x) -> tuple[float, float]:
    """Maximum-likelihood (p̂, q̂) from observed transitions of binary sequences (B, T) or (T,).

    Raises
    ------
    ValueError like :func:`check_binary_sequences`, or if a state is never left (no transition from it).
    """
    x = check_binary_sequences(x)
    prev, nxt = x[:, :-1].ravel(), x[:, 1:].ravel()
    n0, n1 = np.sum(prev == 0), np.sum(prev == 1)
    if n0 == 0 or n1 == 0:
        raise ValueError("x must visit both states before its last position")
    return float(np.sum(nxt[prev == 0] == 1) / n0), float(np.sum(nxt[prev == 1] == 0) / n1)


def predictor_loss(x, prob_one) -> float:
    """Empirical next-token cross-entropy (nats) of predictions P(x_{t+1} = 1) on sequences x.

    Parameters
    ----------
    x : (B, T) binary tokens.
    prob_one : (B, T − 1) predicted probabilities that x_{t+1} = 1, for t = 0..T − 2, in (0, 1).

    Raises
    ------
    ValueError like :func:`check_binary_sequences`, or if prob_one has the wrong shape or leaves (0, 1).
    """
    x = check_binary_sequences(x)
    prob = np.asarray(prob_one, dtype=np.float64)
    if prob.shape != (x.shape[0], x.shape[1] - 1):
        raise ValueError(f"prob_one must have shape {(x.shape[0], x.shape[1] - 1)}, got {prob.shape}")
    if np.any((prob <= 0) | (prob >= 1)):
        raise ValueError("prob_one must lie in the open interval (0, 1)")
    y = x[:, 1:]
    return float(-np.mean(np.where(y == 1, np.log(prob), np.log1p(-prob))))
