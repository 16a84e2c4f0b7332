"""Training deep FNOs without skip connections from different initial σ² (Adam on the relative L2 loss)."""
from __future__ import annotations

import math

import numpy as np
import torch

from .layer import check_int, check_positive
from .model import DeepFNO, init_gaussian_


def relative_l2(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Mean over samples of ‖pred − target‖₂ / ‖target‖₂ (dimensionless), the usual FNO loss."""
    return ((pred - target).norm(dim=-1) / target.norm(dim=-1)).mean()


def train_fno(u0: np.ndarray, uT: np.ndarray, u0_test: np.ndarray, uT_test: np.ndarray, *, sigma2: float,
              depth: int, width: int, n_modes: int, sigma_b2: float = 0.1, variant: str = "with_w",
              steps: int = 100, batch: int = 32, lr: float = 1e-3, seed: int = 0) -> dict:
    """Initialise a ReLU DeepFNO at σ² (eq. (2)), train it with Adam, return its loss curve and test loss.

    Parameters
    ----------
    u0, uT : (n_train, N) float64 training inputs and targets; u0_test, uT_test : (n_test, N).
    sigma2 : initial total weight variance σ² > 0.   depth, width, n_modes : L, D, K.
    sigma_b2 : σ_b² >= 0.   variant : 'with_w' | 'spectral'.   steps, batch : Adam steps and batch size.
    lr : Adam learning rate.   seed : seeds the initialisation and the batches (torch.Generator).

    Returns
    -------
    dict with 'train_loss' ((steps,) float, relative L2 per step; inf once the loss is not finite)
    and 'test_loss' (float, relative L2 on the test set; inf when it is not finite).
    Training runs in float32, as FNOs usually are.

    Raises
    ------
    TypeError if ``steps``, ``batch`` or ``seed`` is not an int; ValueError if the data are not 2-D float
    arrays on one grid with matching sample counts, contain NaN/inf, or if ``steps``/``batch`` < 1,
    ``seed`` < 0 or ``lr`` is not a finite number > 0 (each names the argument).
    """
    check_int("steps", steps, 1)
    check_int("batch", batch, 1)
    check_int("seed", seed, 0)
    check_positive("lr", lr)
    arrays = {"u0": u0, "uT": uT, "u0_test": u0_test, "uT_test": uT_test}
    for name, v in arrays.items():
        v = np.asarray(v)
        if v.dtype.kind not in "iuf" or v.ndim != 2:
            raise ValueError(f"{name} must be a 2-D real array (n_samples, N), got dtype {v.dtype}, shape {v.shape}")
        if not np.all(np.isfinite(v)):
            raise ValueError(f"{name} must be finite (no NaN or inf)")
        if v.shape[1] != np.shape(u0)[-1]:
            raise ValueError(f"{name} must be on the grid of u0 (N = {np.shape(u0)[-1]}), got shape {v.shape}")
    if np.shape(uT)[0] != np.shape(u0)[0] or np.shape(uT_test)[0] != np.shape(u0_test)[0]:
        raise ValueError("uT (uT_test) must have as many samples as u0 (u0_test)")
    gen = torch.Generator().manual_seed(seed)
    model = init_gaussian_(DeepFNO(depth, width, n_modes, u0.shape[-1], "relu"), sigma2, sigma_b2, variant, gen)
    model = model.float()
    X, Y = torch.tensor(u0, dtype=torch.float32), torch.tensor(uT, dtype=torch.float32)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    curve = np.full(steps, np.inf)
    for step in range(steps):
        idx = torch.randint(0, X.shape[0], (batch,), generator=gen)
        loss = relative_l2(model(X[idx]), Y[idx])
        if not torch.isfinite(loss):
            break
        curve[step] = loss.item()
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        test = relative_l2(model(torch.tensor(u0_test, dtype=torch.float32)),
                           torch.tensor(uT_test, dtype=torch.float32)).item()
    return {"train_loss": curve, "test_loss": test if math.isfinite(test) else math.inf}


def _stacked_forward(params: dict, u: torch.Tensor, n_modes: int) -> torch.Tensor:
    """G DeepFNOs at once: params stacked on a leading axis G, u (G, B, N) → (G, B, N) (same maths as DeepFNO)."""
    N = u.shape[-1]
    z = params["lift"][:, None, :, None] * u[:, :, None, :]                      # (G, B, D, N)
    for W, R_re, R_im, b in zip(params["W"], params["R_re"], params["R_im"], params["b"], strict=True):
        a = torch.relu(z)
        a_hat = torch.fft.rfft(a, dim=-1)[..., :n_modes]                          # (G, B, D, K)
        mixed = torch.einsum("gkij,gbjk->gbik", torch.complex(R_re, R_im), a_hat)
        z = torch.einsum("gij,gbjn->gbin", W, a) + torch.fft.irfft(mixed, n=N, dim=-1) + b[:, None, :, None]
    return torch.einsum("gd,gbdn->gbn", params["readout"], z)


def train_fno_ensemble(u0: np.ndarray, uT: np.ndarray, u0_test: np.ndarray, uT_test: np.ndarray, *,
                       sigma2, seeds, depth: int, width: int, n_modes: int, sigma_b2: float = 0.1,
                       variant: str = "with_w", steps: int = 100, batch: int = 32, lr: float = 1e-3) -> dict:
    """:func:`train_fno` for G = len(sigma2) networks at once, one stacked model (same result, fewer ops).

    Network g is initialised exactly as ``train_fno(..., sigma2=sigma2[g], seed=seeds[g])`` (its own
    ``torch.Generator``, which also draws its batches). The G parameter sets are stacked on a leading axis and
    trained on the sum of the G losses: Adam is elementwise, so each network follows its own Adam run (up to
    float32 summation order). A network whose loss turns non-finite stops there, as in :func:`train_fno`.

    Parameters
    ----------
    As :func:`train_fno`, with ``sigma2`` and ``seeds`` sequences of equal length G >= 1.

    Returns
    -------
    dict with 'train_loss' ((G, steps) float, inf once a network's loss is not finite) and 'test_loss'
    ((G,) float, inf when not finite).

    Raises
    ------
    As :func:`train_fno`; ValueError if ``sigma2`` and ``seeds`` differ in length or are empty.
    """
    sigma2, seeds = list(np.atleast_1d(sigma2)), list(np.atleast_1d(seeds))
    if len(sigma2) != len(seeds) or not sigma2:
        raise ValueError(f"sigma2 and seeds must be non-empty and of equal length, got {len(sigma2)}, {len(seeds)}")
    for s in seeds:
        check_int("seeds", int(s) if isinstance(s, np.integer) else s, 0)
    check_int("steps", steps, 1)
    check_int("batch", batch, 1)
    check_positive("lr", lr)
    for name, v in {"u0": u0, "uT": uT, "u0_test": u0_test, "uT_test": uT_test}.items():
        v = np.asarray(v)
        if v.dtype.kind not in "iuf" or v.ndim != 2 or v.shape[1] != np.shape(u0)[-1] or not np.all(np.isfinite(v)):
            raise ValueError(f"{name} must be a finite 2-D real array (n_samples, N) on the grid of u0")
    if np.shape(uT)[0] != np.shape(u0)[0] or np.shape(uT_test)[0] != np.shape(u0_test)[0]:
        raise ValueError("uT (uT_test) must have as many samples as u0 (u0_test)")
    G = len(sigma2)
    gens = [torch.Generator().manual_seed(int(s)) for s in seeds]
    models = [init_gaussian_(DeepFNO(depth, width, n_modes, u0.shape[-1], "relu"), float(s2), sigma_b2, variant, g)
              for s2, g in zip(sigma2, gens, strict=True)]
    names = ("W", "R_re", "R_im", "b")
    params = {name: [torch.stack([getattr(m.layers[i], name).detach().float() for m in models]).requires_grad_()
                     for i in range(depth)] for name in names}
    for name in ("lift", "readout"):
        params[name] = torch.stack([getattr(m, name).detach().float() for m in models]).requires_grad_()
    leaves = [p for v in params.values() for p in (v if isinstance(v, list) else [v])]
    X, Y = torch.tensor(u0, dtype=torch.float32), torch.tensor(uT, dtype=torch.float32)
    opt = torch.optim.Adam(leaves, lr=lr)
    curve = np.full((G, steps), np.inf)
    alive = np.ones(G, dtype=bool)
    frozen = {}                                   # g -> its parameters when its loss first turned non-finite
    for step in range(steps):
        idx = torch.stack([torch.randint(0, X.shape[0], (batch,), generator=g) for g in gens])   # (G, B)
        pred = _stacked_forward(params, X[idx], n_modes)
        losses = ((pred - Y[idx]).norm(dim=-1) / Y[idx].norm(dim=-1)).mean(dim=-1)               # (G,)
        finite = torch.isfinite(losses).numpy()
        for g in np.flatnonzero(alive & ~finite):
            frozen[g] = [p[g].detach().clone() for p in leaves]
        alive &= finite
        if not alive.any():
            break
        curve[alive, step] = losses.detach().numpy()[alive]
        opt.zero_grad()
        losses[torch.as_tensor(alive)].sum().backward()
        opt.step()
    with torch.no_grad():
        for g, saved in frozen.items():
            for p, v in zip(leaves, saved, strict=True):
                p[g] = v
        n_test = len(u0_test)
        Xt = torch.tensor(u0_test, dtype=torch.float32).expand(G, n_test, -1)
        Yt = torch.tensor(uT_test, dtype=torch.float32)
        test = ((_stacked_forward(params, Xt, n_modes) - Yt).norm(dim=-1) / Yt.norm(dim=-1)).mean(dim=-1).numpy()
    return {"train_loss": curve, "test_loss": np.where(np.isfinite(test), test, np.inf)}
