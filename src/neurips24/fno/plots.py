"""Figures of the chapter (matplotlib, the book's style)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .experiment import CorrelationResult, GradientResult, TrainingResult


def plot_correlation(res: CorrelationResult):
    """c_l against layer l: Monte Carlo (points, mean over seeds) and mean field (lines), one panel per K."""
    fig, axes = plt.subplots(1, len(res.n_modes), figsize=(4.0 * len(res.n_modes), 3.4), sharey=True)
    layers = np.arange(res.c_mc.shape[-1])
    for ax, K, mc, mf in zip(np.atleast_1d(axes), res.n_modes, res.c_mc, res.c_mf, strict=True):
        for j, s in enumerate(res.sigma2):
            line, = ax.plot(layers, mf[j], label=f"σ² = {s:g}")
            ax.plot(layers, mc[j].mean(0), "o", ms=3, color=line.get_color())
        ax.set_title(f"K = {K} kept modes")
        ax.set_xlabel("layer l")
    axes[0].set_ylabel("correlation c_l (dimensionless)")
    axes[0].legend(title="lines: mean field\ndots: Monte Carlo")
    fig.tight_layout()
    return fig


def plot_truncation_depth(res: CorrelationResult):
    """Mean-field c_l at σ² = 2 to a large depth for each K: truncation slows the approach to c*."""
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    for K, c in zip(res.n_modes, res.c_deep, strict=True):
        ax.plot(np.arange(c.size), c, label=f"K = {K}")
    ax.set_xlabel("layer l")
    ax.set_ylabel("mean-field c_l at σ² = 2")
    ax.legend()
    fig.tight_layout()
    return fig


def plot_gradients(res: GradientResult, k_index: int = 1):
    """log‖∂ℓ/∂Z^l‖ against layer for every σ² at one K, with the slope ½ log(σ²/2) predicted by χ."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    norms = res.norms[k_index]
    L = norms.shape[-1] - 1
    layers = np.arange(L + 1)
    for j, s in enumerate(res.sigma2):
        logs = np.log10(norms[j])
        line, = ax.plot(layers, logs.mean(0), label=f"σ² = {s:g}")
        pred = logs.mean(0)[0] - layers * 0.5 * np.log10(s / 2)
        ax.plot(layers, pred, "--", color=line.get_color(), lw=1)
    ax.set_xlabel("layer l (the loss sits at l = L)")
    ax.set_ylabel("log₁₀ ‖∂ℓ/∂Z^l‖")
    ax.set_title(f"ReLU, K = {res.n_modes[k_index]}; dashed: √χ per layer, χ = σ²/2")
    ax.legend()
    fig.tight_layout()
    return fig


def plot_training(res: TrainingResult):
    """Training loss curves (median over seeds) for each initial σ²."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    steps = np.arange(1, res.train_loss.shape[-1] + 1)
    for j, s in enumerate(res.sigma2):
        curve = np.median(res.train_loss[j], axis=0)
        ax.semilogy(steps, np.where(np.isfinite(curve), curve, np.nan), label=f"σ² = {s:g}")
    ax.set_xlabel("Adam step")
    ax.set_ylabel("relative L² training loss")
    ax.legend()
    fig.tight_layout()
    return fig


def plot_phase(sigma2_grid, n_modes_grid, c_end, marker=None):
    """Heat map of the mean-field correlation after L layers over (σ², K); optional marker (σ², K)."""
    fig, ax = plt.subplots(figsize=(5.5, 3.6))
    mesh = ax.pcolormesh(sigma2_grid, np.arange(len(n_modes_grid)), c_end, vmin=0, vmax=1, shading="nearest")
    ax.set_yticks(np.arange(len(n_modes_grid)), [str(k) for k in n_modes_grid])
    ax.set_xlabel("σ² (total weight variance)")
    ax.set_ylabel("K (kept modes)")
    fig.colorbar(mesh, ax=ax, label="mean-field c_L")
    if marker is not None:
        ax.plot(marker[0], n_modes_grid.index(marker[1]), "r*", ms=14)
    fig.tight_layout()
    return fig
