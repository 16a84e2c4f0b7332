"""Monte Carlo over random finite-width FNOs: the empirical order parameter per layer.

Every (σ², seed) pair is one network; all of them advance through the layers at once as a batch of G
networks × 2 inputs, with each layer's weights drawn as it is reached (``layer.draw_layer``), so memory
stays at one layer. On a GPU the arrays are CuPy's and the channel mix runs the CUDA kernel.
"""
from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

from ..backend import array_module, to_numpy
from .layer import (
    check_activation,
    check_int,
    check_modes,
    check_nonnegative,
    draw_layer,
    fno_layer,
    split_sigma2,
)


def empirical_correlation(z):
    """Order parameter of eq. (6) measured on a finite network.

    Parameters
    ----------
    z : (G, 2, D, N) pre-activations of G networks on the inputs α and β.

    Returns
    -------
    c : (G,) κ̂^{αβ}(0) / √(κ̂^{αα}(0) κ̂^{ββ}(0)), with κ̂ averaged over channels and positions.
    q : (G,) κ̂^{αα}(0).
    """
    xp = np if isinstance(z, np.ndarray) else array_module("gpu")
    k_aa = xp.mean(z[:, 0] ** 2, axis=(1, 2))
    k_bb = xp.mean(z[:, 1] ** 2, axis=(1, 2))
    k_ab = xp.mean(z[:, 0] * z[:, 1], axis=(1, 2))
    return k_ab / xp.sqrt(k_aa * k_bb), k_aa


def simulate_correlation(u, sigma2, *, n_modes: int, depth: int, width: int, activation: str = "tanh",
                         sigma_b2: float = 0.05, variant: str = "with_w", n_seeds: int = 2,
                         seed: int = 0, device: str | None = None):
    """Propagate two inputs through random FNOs and record the order parameter at every layer.

    Parameters
    ----------
    u : (2, N) float64, inputs u^α and u^β; the lifting is Z^0_c = u for every channel c.
    sigma2 : (n_sigma,) total weight variances σ² (split by ``variant``, see ``split_sigma2``).
    n_modes : K, 1 <= K <= N/2.   depth : L >= 1.   width : D >= 1.
    activation : 'tanh' or 'relu'.  sigma_b2 : σ_b² >= 0.
    variant : 'with_w' or 'spectral'.  n_seeds : independent networks per σ², >= 1.
    seed : seed of the weight draws.  device : 'auto' | 'cpu' | 'gpu' (``neurips24.backend``).

    Returns
    -------
    c : (n_sigma, n_seeds, L + 1) float64 NumPy array, c_l measured at l = 0..L.
    q : (n_sigma, n_seeds, L + 1) float64 NumPy array, κ̂^{αα}_l(0).

    Raises
    ------
    ValueError on a bad shape or out-of-range argument (names the argument).
    """
    u = np.asarray(u, dtype=np.float64)
    if u.ndim != 2 or u.shape[0] != 2:
        raise ValueError(f"u must have shape (2, N), got {u.shape}")
    sigma2 = np.atleast_1d(np.asarray(sigma2, dtype=np.float64))
    splits = np.array([split_sigma2(s, variant) for s in sigma2])
    check_modes(n_modes, u.shape[1])
    check_activation(activation)
    sigma_b2 = check_nonnegative("sigma_b2", sigma_b2)
    for name, v in (("depth", depth), ("width", width), ("n_seeds", n_seeds)):
        check_int(name, v, 1)

    xp = array_module(device)
    rng = xp.random.default_rng(seed)
    G = len(sigma2) * n_seeds
    sw2 = xp.asarray(np.repeat(splits[:, 0], n_seeds))
    sr2 = xp.asarray(np.repeat(splits[:, 1], n_seeds))
    z = xp.broadcast_to(xp.asarray(u)[None, :, None, :], (G, 2, width, u.shape[1])).copy()
    cs, qs = [], []
    # one BLAS thread: the batched matmuls are small, and a second OpenBLAS thread mostly spins on a shared CPU
    with threadpool_limits(limits=1, user_api="blas"):
        for layer in range(depth + 1):
            c, q = empirical_correlation(z)
            cs.append(to_numpy(c))
            qs.append(to_numpy(q))
            if layer < depth:
                W, R, b = draw_layer(rng, G, width, n_modes, sw2, sr2, sigma_b2, xp=xp)
                z = fno_layer(z, W, R, b, activation)
    shape = (len(sigma2), n_seeds, depth + 1)
    return np.stack(cs, axis=-1).reshape(shape), np.stack(qs, axis=-1).reshape(shape)
