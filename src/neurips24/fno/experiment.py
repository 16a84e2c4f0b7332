"""The chapter's three experiments, sized by the run scale (``neurips24.scale``).

- ``run_correlation``: tanh FNOs, Monte Carlo order parameter vs the mean-field recursion (σ², K grid).
- ``run_gradients``: ReLU FNOs, ‖∂ℓ/∂Z^l‖ per layer by backprop (σ², K grid).
- ``run_training``: deep ReLU FNOs trained on the heat equation from several initial σ² at one depth (the first
  version's experiment C; the chapter now runs the σ² × depth grid of ``trainability.run_trainability``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from threadpoolctl import threadpool_limits
from tqdm.auto import tqdm

from .. import seeding
from ..scale import check_scale
from .backward import fit_slope, predicted_slope
from .data import heat_dataset
from .layer import split_sigma2
from .meanfield import correlation_recursion
from .model import DeepFNO, init_gaussian_, input_gradient_norms
from .montecarlo import simulate_correlation
from .train import train_fno_ensemble

CONFIG = {
    "fast": {
        "correlation": dict(n_grid=64, width=128, depth=30, n_seeds=3, sigma2=[0.8, 1.2, 2.0, 3.0],
                            n_modes=[2, 8, 32], sigma_b2=0.05, deep=150),
        "gradients": dict(n_grid=64, width=64, depth=20, n_seeds=12, sigma2=[1.0, 2.0, 4.0],
                          n_modes=[2, 4, 8], batch=16),
        "training": dict(n_grid=64, width=16, depth=32, n_modes=8, n_seeds=2, sigma2=[0.5, 1.0, 2.0, 3.0, 8.0],
                         steps=80, n_train=256, n_test=128, sigma_b2=0.1),
    },
    "full": {
        "correlation": dict(n_grid=64, width=256, depth=40, n_seeds=4,
                            sigma2=[0.5, 0.8, 1.0, 1.2, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0],
                            n_modes=[2, 4, 8, 16, 32], sigma_b2=0.05, deep=400),
        "gradients": dict(n_grid=64, width=128, depth=32, n_seeds=4, sigma2=[0.5, 1.0, 1.5, 2.0, 3.0, 4.0],
                          n_modes=[2, 8, 32], batch=8),
        "training": dict(n_grid=64, width=32, depth=32, n_modes=8, n_seeds=4,
                         sigma2=[0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 8.0],
                         steps=1000, n_train=1024, n_test=256, sigma_b2=0.1),
    },
}


def two_inputs(n_grid: int = 64) -> np.ndarray:
    """Two fixed, partly correlated input functions u^α, u^β on the grid x = 0, 1/N, ...: (2, N) float64."""
    x = np.arange(n_grid) / n_grid
    return np.stack([np.sin(2 * np.pi * x) + 0.5 * np.cos(6 * np.pi * x),
                     np.sin(2 * np.pi * x + 0.6) + 0.3 * np.sin(10 * np.pi * x)])


@dataclass
class CorrelationResult:
    sigma2: np.ndarray          # (S,) total weight variance σ²
    n_modes: list               # K values
    c_mc: np.ndarray            # (len(K), S, seeds, L + 1) Monte Carlo c_l
    c_mf: np.ndarray            # (len(K), S, L + 1) mean-field c_l, eq. (4)-(6)
    c_deep: np.ndarray          # (len(K), deep + 1) mean-field c_l at σ² = 2 to a large depth
    config: dict

    def c_end(self, last: int = 5) -> np.ndarray:
        """Monte Carlo c averaged over the last ``last`` layers and the seeds: (len(K), S).

        One finite network's c_l fluctuates by ±0.05 from layer to layer in the chaotic phase; averaging
        the last layers (where c_l has settled) and the seeds estimates the depth-L value more stably.
        """
        return self.c_mc[..., -last:].mean(axis=(-1, -2))

    def c_mf_end(self, last: int = 5) -> np.ndarray:
        """Mean-field c averaged over the same last layers: (len(K), S)."""
        return self.c_mf[..., -last:].mean(axis=-1)


def run_correlation(scale: str = "fast", variant: str = "with_w", seed: int | None = None) -> CorrelationResult:
    """Monte Carlo vs mean-field order parameter for tanh FNOs over the (σ², K) grid of the scale.

    ``seed`` (default ``neurips24.seed(0)``, the book's seed offset applied) seeds the weight draws.
    """
    cfg = CONFIG[check_scale(scale)]["correlation"]
    seed = seeding.seed(0) if seed is None else seed
    u = two_inputs(cfg["n_grid"])
    c_mc, c_mf, c_deep = [], [], []
    with threadpool_limits(limits=1, user_api="blas"):   # small matrices: one BLAS thread (see montecarlo)
        _correlation_grid(u, cfg, variant, seed, c_mc, c_mf, c_deep)
    return CorrelationResult(np.array(cfg["sigma2"]), list(cfg["n_modes"]), np.array(c_mc), np.array(c_mf),
                             np.array(c_deep), dict(cfg, variant=variant))


def _correlation_grid(u, cfg, variant, seed, c_mc, c_mf, c_deep):
    for K in tqdm(cfg["n_modes"], desc="K", disable=None):
        c, _ = simulate_correlation(u, cfg["sigma2"], n_modes=K, depth=cfg["depth"], width=cfg["width"],
                                    activation="tanh", sigma_b2=cfg["sigma_b2"], variant=variant,
                                    n_seeds=cfg["n_seeds"], seed=seed + K)
        c_mc.append(c)
        c_mf.append([correlation_recursion(u, **_split(s, variant), sigma_b2=cfg["sigma_b2"], n_modes=K,
                                           depth=cfg["depth"], activation="tanh")[0] for s in cfg["sigma2"]])
        c_deep.append(correlation_recursion(u, **_split(2.0, variant), sigma_b2=cfg["sigma_b2"], n_modes=K,
                                            depth=cfg["deep"], activation="tanh")[0])


def _split(sigma2, variant):
    sigma_w2, sigma_r2 = split_sigma2(sigma2, variant)
    return {"sigma_w2": sigma_w2, "sigma_r2": sigma_r2}


@dataclass
class GradientResult:
    sigma2: np.ndarray          # (S,)
    n_modes: list               # K values
    norms: np.ndarray           # (len(K), S, seeds, L + 1) ‖∂ℓ/∂Z^l‖
    config: dict
    predicted: np.ndarray | None = None   # (len(K), S) lag-resolved slope (backward.predicted_slope)

    def slopes(self, skip_top: int = 1) -> np.ndarray:
        """Fitted gain per layer, d log‖∂ℓ/∂Z^l‖ / d(L − l), over layers 0..L − skip_top: (len(K), S, seeds).

        The top ``skip_top`` layers are left out: the loss gradient at Z^L is white noise, and the first
        spectral layer below it keeps only the (2K − 1)/N of its energy, a one-off drop that is not part
        of the per-layer gain. The lag-resolved prediction uses the same fit (``backward.fit_slope``).
        """
        return fit_slope(np.log(self.norms), skip_top)

    def chi_slope(self) -> np.ndarray:
        """The fully-connected prediction ½ log χ = ½ log(σ²/2) for ReLU, eq. (fno-chi): (S,)."""
        return 0.5 * np.log(self.sigma2 / 2)

    def ratio(self) -> np.ndarray:
        """‖∂ℓ/∂Z⁰‖ / ‖∂ℓ/∂Z^L‖: (len(K), S, seeds)."""
        return self.norms[..., 0] / self.norms[..., -1]


def run_gradients(scale: str = "fast", variant: str = "spectral", seed: int | None = None,
                  **overrides) -> GradientResult:
    """Backpropagated gradient norms per layer for ReLU FNOs over the (σ², K) grid of the scale.

    Network r of every (K, σ²) point is drawn from seed ``seed + r`` (``seed`` defaults to ``neurips24.seed(0)``,
    the book's seed offset applied), so the seeds of the result are ``seed, ..., seed + n_seeds − 1``; keyword
    ``overrides`` replace entries of ``CONFIG[scale]["gradients"]`` (e.g. ``n_seeds``, ``width``, ``n_modes``).

    Returns
    -------
    GradientResult with norms (len(K), S, n_seeds, L + 1) and ``config['seeds']``.
    """
    cfg = CONFIG[check_scale(scale)]["gradients"]
    unknown = set(overrides) - set(cfg)
    if unknown:
        raise ValueError(f"unknown gradients config keys {sorted(unknown)}; accepted: {sorted(cfg)}")
    cfg = dict(cfg, **overrides)
    seed = seeding.seed(0) if seed is None else seed
    norms = np.zeros((len(cfg["n_modes"]), len(cfg["sigma2"]), cfg["n_seeds"], cfg["depth"] + 1))
    for i, K in enumerate(tqdm(cfg["n_modes"], desc="K", disable=None)):
        for j, s in enumerate(cfg["sigma2"]):
            for r in range(cfg["n_seeds"]):   # an independent stream per (seed, K, σ²): no overlap across seed sets
                gen = torch.Generator().manual_seed(int(np.random.SeedSequence([seed + r, i, j]).generate_state(1)[0]))
                model = init_gaussian_(DeepFNO(cfg["depth"], cfg["width"], K, cfg["n_grid"], "relu"),
                                       s, 0.0, variant, gen)
                u = torch.randn(cfg["batch"], cfg["n_grid"], dtype=torch.float64, generator=gen)
                norms[i, j, r] = input_gradient_norms(model, u, gen).numpy()
    predicted = np.array([[predicted_slope(s, variant, n_modes=K, n_grid=cfg["n_grid"], depth=cfg["depth"])
                           for s in cfg["sigma2"]] for K in cfg["n_modes"]])
    return GradientResult(np.array(cfg["sigma2"]), list(cfg["n_modes"]), norms,
                          dict(cfg, variant=variant, seeds=[seed + r for r in range(cfg["n_seeds"])]), predicted)


@dataclass
class TrainingResult:
    sigma2: np.ndarray          # (S,)
    train_loss: np.ndarray      # (S, seeds, steps) relative L2 (inf after divergence)
    test_loss: np.ndarray       # (S, seeds) relative L2 on held-out pairs
    config: dict


def run_training(scale: str = "fast", seed: int | None = None) -> TrainingResult:
    """Train deep ReLU FNOs without skip connections on the heat equation from each initial σ² (``seed``
    defaults to ``neurips24.seed(0)``)."""
    cfg = CONFIG[check_scale(scale)]["training"]
    seed = seeding.seed(0) if seed is None else seed
    n = cfg["n_train"]
    u0, uT = heat_dataset(n + cfg["n_test"], cfg["n_grid"], seed=seed)
    S, R = len(cfg["sigma2"]), cfg["n_seeds"]
    # every (σ², seed) run at once, one stacked model (``train_fno_ensemble``: the same runs as ``train_fno``)
    out = train_fno_ensemble(u0[:n], uT[:n], u0[n:], uT[n:], sigma2=np.repeat(cfg["sigma2"], R),
                             seeds=np.tile(seed + np.arange(R), S), depth=cfg["depth"], width=cfg["width"],
                             n_modes=cfg["n_modes"], sigma_b2=cfg["sigma_b2"], steps=cfg["steps"])
    return TrainingResult(np.array(cfg["sigma2"]), out["train_loss"].reshape(S, R, -1),
                          out["test_loss"].reshape(S, R), cfg)


PHASE = {
    "fast": dict(sigma2=np.linspace(0.5, 4.0, 12).tolist(), n_modes=[2, 4, 8, 16, 32], depth=30, n_quad=24),
    "full": dict(sigma2=np.linspace(0.5, 4.0, 36).tolist(), n_modes=[2, 4, 8, 16, 32], depth=40, n_quad=48),
}


def mean_field_phase(scale: str = "fast", variant: str = "with_w", sigma_b2: float = 0.05) -> dict:
    """Mean-field c_L of tanh FNOs over a (σ², K) grid: the phase picture of the chapter.

    Returns
    -------
    dict with 'sigma2' (S,), 'n_modes' (list of K), 'c' ((len(K), S) float64, c_L of eq. (6)), 'depth' (L).
    """
    cfg = PHASE[check_scale(scale)]
    u = two_inputs(64)
    with threadpool_limits(limits=1, user_api="blas"):   # tiny matrix-vector products: one BLAS thread
        c = _phase_grid(u, cfg, variant, sigma_b2)
    return {"sigma2": np.array(cfg["sigma2"]), "n_modes": list(cfg["n_modes"]), "c": c, "depth": cfg["depth"]}


def _phase_grid(u, cfg, variant, sigma_b2):
    return np.array([[correlation_recursion(u, **_split(s, variant), sigma_b2=sigma_b2, n_modes=K,
                                         depth=cfg["depth"], activation="tanh", n_quad=cfg["n_quad"])[0][-1]
                   for s in cfg["sigma2"]] for K in cfg["n_modes"]])


def kernel_check(G: int = 8, D: int = 64, K: int = 16, seed: int = 0) -> dict | None:
    """The CUDA mode-mix kernel against its NumPy reference on random data; ``None`` without a GPU.

    Returns
    -------
    dict with 'max_abs_diff' (float), 'numpy_ms' and 'gpu_ms' (float, milliseconds per call).
    """
    import time

    from ..backend import cupy_or_none
    from .layer import mode_mix, mode_mix_reference

    cp = cupy_or_none()
    if cp is None:
        return None
    rng = np.random.default_rng(seed)
    a_hat = rng.standard_normal((G, 2, D, K)) + 1j * rng.standard_normal((G, 2, D, K))
    R = rng.standard_normal((G, K, D, D)) + 1j * rng.standard_normal((G, K, D, D))
    t = time.perf_counter()
    ref = mode_mix_reference(a_hat, R)
    numpy_ms = 1e3 * (time.perf_counter() - t)
    a_d, R_d = cp.asarray(a_hat), cp.asarray(R)
    mode_mix(a_d, R_d)
    cp.cuda.Device().synchronize()
    t = time.perf_counter()
    out = mode_mix(a_d, R_d)
    cp.cuda.Device().synchronize()
    gpu_ms = 1e3 * (time.perf_counter() - t)
    return {"max_abs_diff": float(np.max(np.abs(out.get() - ref))), "numpy_ms": numpy_ms, "gpu_ms": gpu_ms}
