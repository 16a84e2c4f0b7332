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
