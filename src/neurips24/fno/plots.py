"""Figures of the chapter (matplotlib, the book's style)."""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .experiment import CorrelationResult, GradientResult, TrainingResult


def plot_correlation(res: CorrelationResult):
    """c_l against layer l: Monte Carlo (points, mean over seeds) and mean field (lines), one panel per K."""
    fig, axes = plt.subplots(1, len(res.n_modes), figsize=(4.0 * len(res.n_modes), 3.4), sharey=True)
    axes = np.atleast_1d(axes)
    layers = np.arange(res.c_mc.shape[-1])
    for ax, K, mc, mf in zip(axes, res.n_modes, res.c_mc, res.c_mf, strict=True):
        for j, s in enumerate(res.sigma2):
            line, = ax.plot(layers, mf[j], label=f"σ² = {s:g}")
            ax.plot(layers, mc[j].mean(0), "o", ms=3, color=line.get_color())
        ax.set_title(f"K = {K} kept modes")
        ax.set_xlabel("layer l")
    axes[0].set_ylabel(r"correlation $c_l$ (dimensionless)")
    axes[0].legend(title="lines: mean field\ndots: Monte Carlo")
    fig.tight_layout()
    return fig


def plot_truncation_depth(res: CorrelationResult):
    """Mean-field c_l at σ² = 2 to a large depth for each K: truncation slows the approach to c*."""
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    for K, c in zip(res.n_modes, res.c_deep, strict=True):
        ax.plot(np.arange(c.size), c, label=f"K = {K}")
    ax.set_xlabel("layer l")
    ax.set_ylabel(r"mean-field $c_l$ at $\sigma^2 = 2$")
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
    ax.set_ylabel(r"$\log_{10} \|\partial \ell / \partial Z^l\|$")
    ax.set_title(rf"ReLU, K = {res.n_modes[k_index]}; dashed: gain $\sqrt{{\chi}}$ per layer, $\chi = \sigma^2/2$")
    ax.legend()
    fig.tight_layout()
    return fig


def plot_slopes(results: dict):
    """Fitted gradient slope per layer vs σ²: Monte Carlo (points, ±1 s.e. over seeds), lag-resolved
    prediction (solid) and fully-connected ½ log χ (dashed, black), one panel per variant."""
    fig, axes = plt.subplots(1, len(results), figsize=(5.0 * len(results), 3.6), sharey=True)
    axes = np.atleast_1d(axes)
    for ax, (name, res) in zip(axes, results.items(), strict=True):
        sl = res.slopes()
        se = sl.std(axis=-1, ddof=1) / np.sqrt(sl.shape[-1])
        fine = np.linspace(res.sigma2.min(), res.sigma2.max(), 50)
        ax.plot(fine, 0.5 * np.log(fine / 2), "k--", lw=1, label="FC ½ log χ")
        for i, K in enumerate(res.n_modes):
            line, = ax.plot(res.sigma2, res.predicted[i], "-", label=f"lag-resolved, K = {K}")
            ax.errorbar(res.sigma2, sl[i].mean(-1), yerr=se[i], fmt="o", ms=4, color=line.get_color())
        ax.axhline(0, color="grey", lw=0.5)
        ax.set_xlabel("σ² (total weight variance)")
        ax.set_title(f"ReLU, {name}")
    axes[0].set_ylabel("gradient slope per layer (dots: Monte Carlo)")
    axes[0].legend(fontsize=8)
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


def plot_explore(phase: dict, sigma2: float, n_modes: int, sigma_b2: float = 0.05):
    """The Explore figure: phase picture with a marker at (σ², K), and the mean-field c_l of that point."""
    from .experiment import two_inputs
    from .meanfield import correlation_recursion

    c, _, _ = correlation_recursion(two_inputs(64), sigma_w2=sigma2 / 2, sigma_r2=sigma2 / 2, sigma_b2=sigma_b2,
                                    n_modes=n_modes, depth=phase["depth"], activation="tanh")
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(10, 3.6))
    mesh = ax0.pcolormesh(phase["sigma2"], np.arange(len(phase["n_modes"])), phase["c"], vmin=0, vmax=1,
                          shading="nearest")
    ax0.set_yticks(np.arange(len(phase["n_modes"])), [str(k) for k in phase["n_modes"]])
    ax0.plot(sigma2, phase["n_modes"].index(n_modes), "r*", ms=14)
    ax0.grid(False)
    ax0.set_xlabel("σ² (total weight variance)")
    ax0.set_ylabel("K (kept modes)")
    fig.colorbar(mesh, ax=ax0, label=f"mean-field $c_L$, L = {phase['depth']}")
    ax1.plot(np.arange(c.size), c)
    ax1.set_ylim(0, 1.05)
    ax1.set_xlabel("layer l")
    ax1.set_ylabel(r"mean-field $c_l$")
    ax1.set_title(f"tanh, σ² = {sigma2:g}, K = {n_modes}, σ_b² = {sigma_b2:g}")
    fig.tight_layout()
    return fig


def plot_spatial_maps(maps: dict, layers):
    """Spatial correlation maps Σ^l(x, y)/√(Σ^l(x, x) Σ^l(y, y)), one row per σ² (``maps``: σ² → (L, N, N)), one
    column per layer in ``layers`` (1-based)."""
    fig, axes = plt.subplots(len(maps), len(layers), figsize=(2.3 * len(layers), 2.3 * len(maps)),
                             sharex=True, sharey=True, squeeze=False)
    for row, (label, rho) in zip(axes, maps.items(), strict=True):
        for ax, layer in zip(row, layers, strict=True):
            im = ax.imshow(rho[layer - 1], vmin=-1, vmax=1, cmap="RdBu_r", origin="lower")
            ax.set_title(f"{label}, l = {layer}", fontsize=9)
            ax.set_xticks([])
            ax.set_yticks([])
        row[0].set_ylabel("position y")
    for ax in axes[-1]:
        ax.set_xlabel("position x")
    fig.colorbar(im, ax=axes, shrink=0.8, label="spatial correlation")
    return fig


def plot_trainability(res, edges: dict, tol: float):
    """The trainability grid: (left) median test loss against σ², one line per depth, with the threshold ``tol``;
    (right) the fraction of seeds that train at each (σ², L), with the finite-depth edge σ²_edge(L)
    (``edges``: depth → σ²) drawn over it.

    ``res`` is a ``trainability.TrainabilityResult``; diverged runs (inf) are drawn at the top of the left axis.
    """
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    finite = res.test_loss[np.isfinite(res.test_loss)]
    ceiling = 2 * max(float(finite.max()) if finite.size else 1.0, 1.0)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for j, L in enumerate(res.depths):
        med = np.median(np.where(np.isfinite(res.test_loss[:, j]), res.test_loss[:, j], ceiling), axis=-1)
        ax.semilogy(res.sigma2, med, "o-", color=colours[j % len(colours)], label=f"L = {L}")
        if int(L) in edges:
            ax.axvline(edges[int(L)], color=colours[j % len(colours)], ls=":", lw=1)
    ax.axhline(tol, color="k", ls="--", lw=1, label=f"trains: loss ≤ {tol:g}")
    ax.set_xlabel("initial σ²")
    ax.set_ylabel("test relative L² (median over seeds)")
    ax.legend(fontsize=8)
    frac = (res.test_loss <= tol).mean(axis=-1).T                     # (Ld, S)
    im = ax2.imshow(frac, origin="lower", aspect="auto", cmap="Greens", vmin=0, vmax=1,
                    extent=(-0.5, len(res.sigma2) - 0.5, -0.5, len(res.depths) - 0.5))
    ax2.set_xticks(range(len(res.sigma2)), [f"{s:g}" for s in res.sigma2])
    ax2.set_yticks(range(len(res.depths)), [str(L) for L in res.depths])
    depth_idx = [j for j, L in enumerate(res.depths) if int(L) in edges]
    ax2.plot([np.interp(edges[int(res.depths[j])], res.sigma2, np.arange(len(res.sigma2))) for j in depth_idx],
             depth_idx, "k*-", label="finite-depth edge (lag-resolved)")
    ax2.set_xlabel("initial σ²")
    ax2.set_ylabel("depth L")
    ax2.legend(fontsize=8, loc="upper right")
    fig.colorbar(im, ax=ax2, label="fraction of seeds that train")
    fig.tight_layout()
    return fig
