"""A small IFCNN-like fusion network and its two trainings: for fusion, and (the control) for reconstruction.

IFCNN (Zhang et al., 2020) is one of the paper's three base methods: a convolutional encoder applied to each
source, an element-wise fusion rule on the features, a convolutional decoder. Ours keeps that shape at a CPU
size, full resolution throughout (no pooling), so a per-pixel weight map can multiply the features:

    h_m = E(x_m),   I_F = D( Σ_m ω_m h_m )         (rule 'sum', the official code's CDDFuse convention), or
                    I_F = D( (1/M) Σ_m ω_m h_m )   (rule 'mean', IFCNN's mean rule);   static: ω_m = 1.

One source alone through the network gives D(E(x_m)) under either rule: the *uni-source component* of the paper
(Eq. 4), whose loss TTD reads at test time. Under the sum rule the decoder was trained on the sum of M sources'
features and sees one source's features alone, as in the official code; under the mean rule it sees features of
the magnitude it was trained on.

Training (torch): :func:`train_fusion` minimises the paper's unsupervised fusion loss (Eq. 2, L1 to every
source) plus the gradient term of CDDFuse/IFCNN-style losses, ‖ |∇I_F| − max_m |∇x_m| ‖₁ — without it Eq. 2
alone is minimised by the average of the sources. No ground truth is used. :func:`train_reconstruction` trains
the same network as a plain auto-encoder, D(E(x)) ≈ x, the control that can point the
weights the wrong way.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ..checks import check_count

GRAD_WEIGHT = 10.0     # the gradient term's weight, as in CDDFuse's fusion loss (loss_in + 10 · loss_grad)


RULES = ("sum", "mean")


class FusionNet(nn.Module):
    """Encoder (3 convolutions, dilations 1, 2, 4: a 15 px receptive field), fusion rule, decoder (2 convs).

    Parameters
    ----------
    channels : feature channels C ≥ 1 (8 at `fast` scale).
    rule : 'sum' (the official code's: features added) or 'mean' (IFCNN's mean rule).

    Raises
    ------
    ValueError for channels < 1 or an unknown rule.
    """

    def __init__(self, channels: int = 8, rule: str = "sum"):
        super().__init__()
        c = check_count("channels", channels)
        if rule not in RULES:
            raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
        self.rule = rule

        def conv(i, o, d=1):
            return nn.Conv2d(i, o, 3, padding=d, dilation=d, padding_mode="reflect")

        self.encoder = nn.Sequential(conv(1, c), nn.ReLU(), conv(c, c, 2), nn.ReLU(), conv(c, c, 4), nn.ReLU())
        self.decoder = nn.Sequential(conv(c, c), nn.ReLU(), conv(c, 1))

    def encode(self, sources: torch.Tensor) -> torch.Tensor:
        """(B, M, H, W) sources -> (B, M, C, H, W) features h_m = E(x_m), one shared encoder."""
        B, M, H, W = sources.shape
        return self.encoder(sources.reshape(B * M, 1, H, W)).reshape(B, M, -1, H, W)

    def decode(self, features: torch.Tensor) -> torch.Tensor:
        """(B, C, H, W) fused features -> (B, H, W) image."""
        return self.decoder(features)[:, 0]

    def forward(self, sources: torch.Tensor, weights: torch.Tensor | None = None) -> torch.Tensor:
        """I_F = D(Σ_m ω_m E(x_m)) ('sum') or D((1/M) Σ_m ω_m E(x_m)) ('mean').  sources (B, M, H, W);
        weights (B, M, H, W) or None (ω_m = 1)."""
        h = self.encode(sources)
        if weights is not None:
            h = h * weights[:, :, None]
        return self.decode(h.sum(1) if self.rule == "sum" else h.mean(1))


def sobel_magnitude(x: torch.Tensor) -> torch.Tensor:
    """|∇x| with 3×3 Sobel filters (replicate padding): (B, H, W) -> (B, H, W)."""
    k = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]], dtype=x.dtype)
    ker = torch.stack([k, k.T])[:, None]
    g = nn.functional.conv2d(nn.functional.pad(x[:, None], (1, 1, 1, 1), mode="replicate"), ker)
    return torch.sqrt(g.pow(2).sum(1) + 1e-12)


def fusion_loss(fused: torch.Tensor, sources: torch.Tensor, grad_weight: float = GRAD_WEIGHT) -> torch.Tensor:
    """Unsupervised fusion loss: (1/M) Σ_m ‖I_F − x_m‖₁ (paper Eq. 2) + grad_weight · ‖|∇I_F| − max_m |∇x_m|‖₁.

    fused (B, H, W); sources (B, M, H, W); means over pixels. Returns a scalar tensor.
    """
    intensity = (fused[:, None] - sources).abs().mean()
    target = torch.stack([sobel_magnitude(sources[:, m]) for m in range(sources.shape[1])]).amax(0)
    return intensity + grad_weight * (sobel_magnitude(fused) - target).abs().mean()


def sample_patches(pairs, n: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """n random (M, size, size) crops of the sources of random pairs: (n, M, size, size) float32."""
    out = np.empty((n, pairs[0].sources.shape[0], size, size), np.float32)
    for k in range(n):
        s = pairs[rng.integers(len(pairs))].sources
        i, j = rng.integers(0, s.shape[1] - size + 1), rng.integers(0, s.shape[2] - size + 1)
        out[k] = s[:, i:i + size, j:j + size]
    return out


def _train(net, pairs, steps, batch, patch, lr, seed, loss_fn) -> list[float]:
    steps, batch, patch = check_count("steps", steps), check_count("batch", batch), check_count("patch", patch, 8)
    if not pairs:
        raise ValueError("pairs must be a non-empty list of FusionPair")
    rng = np.random.default_rng(seed)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    history = []
    for _ in range(steps):
        x = torch.from_numpy(sample_patches(pairs, batch, patch, rng))
        loss = loss_fn(net, x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        history.append(loss.item())
    net.eval()
    return history


def train_fusion(pairs, steps: int = 300, batch: int = 8, patch: int = 48, lr: float = 3e-3, channels: int = 8,
                 seed: int = 0, rule: str = "sum") -> tuple[FusionNet, list[float]]:
    """Train a :class:`FusionNet` for fusion on random patches of ``pairs`` (their ground truth is not used).

    Parameters
    ----------
    pairs : list of :class:`~neurips24.ttd.data.FusionPair` (training images only).
    steps, batch, patch : Adam steps (cosine-decayed learning rate ``lr``), patches per step, patch side (px).
    channels : feature channels.   seed : seeds the initialisation and the patch sampling.
    rule : the fusion rule, 'sum' (official code) or 'mean'.

    Returns
    -------
    (net in eval mode, loss per step).

    Raises
    ------
    ValueError for an empty ``pairs``, non-positive sizes or an unknown rule.
    """
    torch.manual_seed(seed)
    net = FusionNet(channels, rule)
    return net, _train(net, pairs, steps, batch, patch, lr, seed,
                       lambda nt, x: fusion_loss(nt(x), x))


def train_reconstruction(pairs, steps: int = 300, batch: int = 8, patch: int = 48, lr: float = 3e-3,
                         channels: int = 8, seed: int = 0) -> tuple[FusionNet, list[float]]:
    """The control: the same network trained as an auto-encoder, ‖D(E(x)) − x‖₁ on single sources (each
    source of a patch pair on its own, as the uni-source component sees it). Same arguments and returns as
    :func:`train_fusion`, without ``rule``: an auto-encoder fuses by the mean of its features."""
    torch.manual_seed(seed)
    net = FusionNet(channels, "mean")

    def loss(nt, x):
        B, M, H, W = x.shape
        single = x.reshape(B * M, 1, H, W)
        return (nt(single) - single[:, 0]).abs().mean()

    return net, _train(net, pairs, steps, batch, patch, lr, seed, loss)
