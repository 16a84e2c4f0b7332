"""A deep FNO without skip connections in torch (autograd for gradients and training).

Same layer as ``layer.fno_layer`` (eq. (1)), written with ``torch.fft``; the tests check the two agree on
shared weights. The initialisation is the zero-mean Gaussian of eq. (2) (``init_gaussian_``), not the
reference FNO code's small uniform one (``scale * rand``), which is not zero-mean and sits deep in the
ordered phase.
"""
from __future__ import annotations

import math

import torch
from torch import nn

from .layer import check_activation, check_int, check_modes, check_nonnegative, split_sigma2


class SpectralLayer(nn.Module):
    """Z ↦ W φ(Z) + S[φ(Z)] + b, eq. (1). Input and output: (B, D, N) float tensors."""

    def __init__(self, width: int, n_modes: int, activation: str = "relu"):
        super().__init__()
        self.activation = check_activation(activation)
        self.n_modes = int(n_modes)
        self.W = nn.Parameter(torch.zeros(width, width, dtype=torch.float64))
        self.R_re = nn.Parameter(torch.zeros(n_modes, width, width, dtype=torch.float64))
        self.R_im = nn.Parameter(torch.zeros(n_modes, width, width, dtype=torch.float64))
        self.b = nn.Parameter(torch.zeros(width, dtype=torch.float64))

    def forward(self, z: torch.Tensor) -> torch.Tensor:
        a = torch.tanh(z) if self.activation == "tanh" else torch.relu(z)
        N, K = z.shape[-1], self.n_modes
        a_hat = torch.fft.rfft(a, dim=-1)[..., :K]                       # (B, D, K)
        R = torch.complex(self.R_re, self.R_im)                          # (K, D, D)
        mixed = torch.einsum("kij,bjk->bik", R, a_hat)
        spectral = torch.fft.irfft(mixed, n=N, dim=-1)                   # zero-pads modes >= K
        return torch.einsum("ij,bjn->bin", self.W, a) + spectral + self.b[None, :, None]


class DeepFNO(nn.Module):
    """Lifting P (1 → D), L spectral layers without skip connection, linear read-out Q (D → 1).

    forward(u): u (B, N) float64 → (B, N) float64. ``preactivations(u)`` returns [Z^0, ..., Z^L].
    """

    def __init__(self, depth: int, width: int, n_modes: int, n_grid: int, activation: str = "relu"):
        super().__init__()
        check_int("depth", depth, 1)
        check_int("width", width, 1)
        check_modes(n_modes, n_grid)
        self.n_grid = int(n_grid)
        self.lift = nn.Parameter(torch.zeros(width, dtype=torch.float64))
        self.layers = nn.ModuleList(SpectralLayer(width, n_modes, activation) for _ in range(depth))
        self.readout = nn.Parameter(torch.zeros(width, dtype=torch.float64))

    def preactivations(self, u: torch.Tensor) -> list[torch.Tensor]:
        if u.ndim != 2 or u.shape[-1] != self.n_grid:
            raise ValueError(f"u must have shape (batch, N={self.n_grid}), got {tuple(u.shape)}")
        zs = [self.lift[None, :, None] * u[:, None, :]]
        for layer in self.layers:
            zs.append(layer(zs[-1]))
        return zs

    def forward(self, u: torch.Tensor) -> torch.Tensor:
        z = self.preactivations(u)[-1]
        return torch.einsum("d,bdn->bn", self.readout, z)


def init_gaussian_(model: DeepFNO, sigma2: float, sigma_b2: float = 0.0, variant: str = "with_w",
                   generator: torch.Generator | None = None) -> DeepFNO:
    """Zero-mean Gaussian initialisation of eq. (2), in place; returns the model.

    W ~ N(0, σ_w²/D); R(k) circular complex with E|R|² = σ_r²/D, R(0) real; b ~ N(0, σ_b²);
    lifting ~ N(0, 1); read-out ~ N(0, 1/D). (σ_w², σ_r²) = ``split_sigma2(sigma2, variant)``.

    Raises
    ------
    ValueError if σ² <= 0, σ_b² < 0 or ``variant`` is unknown.
    """
    sigma_w2, sigma_r2 = split_sigma2(sigma2, variant)
    sigma_b2 = check_nonnegative("sigma_b2", sigma_b2)
    D = model.lift.shape[0]

    def normal(*shape, std):
        return torch.randn(*shape, dtype=torch.float64, generator=generator) * std

    with torch.no_grad():
        model.lift.copy_(normal(D, std=1.0))
        model.readout.copy_(normal(D, std=1.0 / math.sqrt(D)))
        for layer in model.layers:
            K = layer.n_modes
            layer.W.copy_(normal(D, D, std=math.sqrt(sigma_w2 / D)))
            scale = torch.full((K, 1, 1), math.sqrt(sigma_r2 / (2 * D)), dtype=torch.float64)
            scale[0] = math.sqrt(sigma_r2 / D)
            layer.R_re.copy_(normal(K, D, D, std=1.0) * scale)
            im = normal(K, D, D, std=1.0) * scale
            im[0] = 0.0
            layer.R_im.copy_(im)
            layer.b.copy_(normal(D, std=math.sqrt(sigma_b2)))
    return model


def input_gradient_norms(model: DeepFNO, u: torch.Tensor, generator: torch.Generator | None = None):
    """‖∂ℓ/∂Z^l‖ for l = 0..L by backpropagation, with ℓ = ⟨G, Z^L⟩ for a fixed Gaussian G.

    Parameters
    ----------
    model : a DeepFNO.   u : (B, N) float64 inputs.

    Returns
    -------
    (L + 1,) float64 tensor of Frobenius norms (dimensionless).

    Raises
    ------
    TypeError if ``model`` is not a DeepFNO or ``u`` not a floating torch tensor; ValueError if ``u`` has
    NaN/inf entries or is not (B, N).
    """
    if not isinstance(model, DeepFNO):
        raise TypeError(f"model must be a DeepFNO, got {type(model).__name__}")
    if not isinstance(u, torch.Tensor) or not u.is_floating_point():
        raise TypeError(f"u must be a floating-point torch.Tensor, got {type(u).__name__}")
    if not torch.isfinite(u).all():
        raise ValueError("u must be finite (no NaN or inf)")
    zs = model.preactivations(u)
    for z in zs:
        z.retain_grad()
    g = torch.randn(zs[-1].shape, dtype=torch.float64, generator=generator)
    (zs[-1] * g).sum().backward()
    return torch.stack([z.grad.norm() for z in zs]).detach()
