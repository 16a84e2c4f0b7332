"""A small residual network on scikit-learn's 8x8 digits, trained with a checkpoint (in memory) every epoch.

The book's miniature of the paper's ResNet50 on ImageNet (Fel et al. 2024 train theirs for 90 epochs): a
3x3 convolutional stem, ``n_blocks`` pre-activation residual blocks x + conv(relu(conv(relu(x)))) of constant
width, a ReLU and global average pooling (the penultimate layer, ``pool``) and a linear head ``fc``.
Optimiser: Adam (torch), cross-entropy, mini-batches.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


def _torch():
    import torch

    return torch


def build_resnet(width: int = 32, n_blocks: int = 4, n_classes: int = 10):
    """The digits ResNet (torch.nn.Module): input (N, 1, 8, 8) float32, output (N, n_classes) logits.

    Named modules: 'stem', 'blocks.0' .. 'blocks.{n_blocks-1}' (the residual stream after each block),
    'pool' ((N, width), ReLU + global average pooling, the penultimate layer) and 'fc'.
    """
    torch = _torch()
    nn = torch.nn
    for nm, v in (("width", width), ("n_blocks", n_blocks), ("n_classes", n_classes)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{nm} must be a positive integer, got {v!r}")

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(width, width, 3, padding=1)
            self.conv2 = nn.Conv2d(width, width, 3, padding=1)

        def forward(self, x):
            return x + self.conv2(torch.relu(self.conv1(torch.relu(x))))

    class Pool(nn.Module):
        def forward(self, x):
            return torch.relu(x).mean((2, 3))

    class DigitResNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(1, width, 3, padding=1)
            self.blocks = nn.Sequential(*[Block() for _ in range(n_blocks)])
            self.pool = Pool()
            self.fc = nn.Linear(width, n_classes)

        def forward(self, x):
            return self.fc(self.pool(self.blocks(self.stem(x))))

    return DigitResNet()


@dataclass
class TrainingRun:
    """A trained model with its history: ``checkpoints[t]`` is the state after t epochs (0: initialisation)."""

    model: object
    checkpoints: list = field(default_factory=list)
    test_accuracy: list = field(default_factory=list)

    def at_epoch(self, t: int):
        """A copy of the model with the weights after t epochs."""
        import copy

        if not 0 <= t < len(self.checkpoints):
            raise ValueError(f"t must be in 0..{len(self.checkpoints) - 1}, got {t!r}")
        m = copy.deepcopy(self.model)
        m.load_state_dict(self.checkpoints[t])
        return m.eval()


def digits_tensors():
    """scikit-learn's 8x8 digits as (1797, 1, 8, 8) float32 in [0, 1] and int64 labels (torch tensors)."""
    from ..assets import digits_8x8

    torch = _torch()
    images, y = digits_8x8()
    return torch.from_numpy(images.astype(np.float32) / 16.0)[:, None], torch.from_numpy(y)


def train_resnet(x, y, train, test, seed: int, epochs: int = 12, width: int = 32, n_blocks: int = 4,
                 lr: float = 3e-3, batch_size: int = 64) -> TrainingRun:
    """Train :func:`build_resnet` with Adam, keeping the weights after every epoch (and at initialisation).

    Parameters
    ----------
    x : (N, 1, 8, 8) float32 tensor; y : (N,) int64 tensor; train, test : index arrays.
    seed : seeds the initialisation and the batch order (torch.manual_seed).
    epochs : >= 1. width, n_blocks : the network's size. lr : Adam's step size. batch_size : >= 1.

    Returns
    -------
    TrainingRun with ``epochs + 1`` checkpoints and the test accuracy after each epoch.
    """
    torch = _torch()
    if isinstance(epochs, bool) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
        raise ValueError(f"epochs must be an integer >= 1, got {epochs!r}")
    torch.manual_seed(seed)
    model = build_resnet(width, n_blocks)
    run = TrainingRun(model=model)
    snap = lambda: {k: v.detach().clone() for k, v in model.state_dict().items()}  # noqa: E731
    run.checkpoints.append(snap())
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    gen = torch.Generator().manual_seed(seed)
    tr, te = torch.as_tensor(train), torch.as_tensor(test)
    for _ in range(epochs):
        model.train()
        for b in tr[torch.randperm(len(tr), generator=gen)].split(batch_size):
            opt.zero_grad()
            torch.nn.functional.cross_entropy(model(x[b]), y[b]).backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            run.test_accuracy.append(float((model(x[te]).argmax(1) == y[te]).float().mean()))
        run.checkpoints.append(snap())
    return run
