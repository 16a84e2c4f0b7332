"""The experiment and its checks on planted data: concepts that are attribute words, and a control without them."""
from __future__ import annotations

import numpy as np
import pytest

from neurips24.concepts import collection, experiment, reproduction
from neurips24.concepts.collection import TokenSet

pytest.importorskip("english_words", reason="english-words (the word lists) is not installed")

ATTRS = ["red", "blue", "green", "left", "right", "big", "small"]
FILLERS = ["house", "river", "music", "garden", "window", "doctor", "bottle", "engine", "forest", "summer"]


def planted_run(M=160, D=24, seed=0):
    rng = np.random.default_rng(seed)
    tokens = ["\u0120" + w for w in ATTRS + FILLERS + ["circle"]]
    W_U = rng.normal(size=(len(tokens), D))
    vocab = np.array([t[1:] for t in tokens], dtype=object)
    groups = [("red", "blue", "green"), ("left", "right"), ("big", "small")]
    attributes, Z, Zc = [], [], []
    for _ in range(M):
        a = {rng.choice(g) for g in groups}
        attributes.append(a)
        z = W_U[-1] * 2 + sum(3 * W_U[ATTRS.index(w)] for w in a)          # each attribute adds its word's row
        Z.append(z + 0.3 * rng.normal(size=D))
        Zc.append(W_U[-1] * 2 + 3 * rng.normal(size=D))                     # control: no attribute in Z
    ts = TokenSet("circle", 0, np.arange(M), ["a circle"] * M, np.array(Z, np.float32), np.array(Zc, np.float32),
                  attributes)
    cfg = dict(experiment.CONFIG["fast"], K=7, n_test=30, n_random=3, alpha=0.1, n_words=5,
               pre_top=len(tokens) - 1, max_iter=100)
    saved = experiment.CONFIG["fast"]
    experiment.CONFIG["fast"] = cfg
    try:
        run = experiment.run_concepts("fast", {"meta": {"n_images": M}, "circle": ts}, W_U, vocab,
                                      seeds=(seed, seed + 1, seed + 2))
    finally:
        experiment.CONFIG["fast"] = saved
    return run


@pytest.fixture(scope="module")
def run():
    return planted_run()


def test_planted_concepts_are_grounded(run):
    res = run.get("circle", "trained", "snmf")
    assert res.precision.mean() > 0.6
    assert run.get("circle", "untrained", "snmf").precision.mean() < 0.4
    for method in run.config["methods"]:
        r = run.get("circle", "trained", method)
        assert 0 <= r.overlap <= 1 and r.recon_test >= 0 and r.mas.shape == (7, 5)


def test_checks_pass_on_planted_data_and_controls_fail(run):
    checks = reproduction.checks(run)
    for claim_id in ("concepts.grounded", "concepts.visual_position", "concepts.overlap"):
        kw = checks[claim_id]
        assert kw["test"](kw["measured"]), claim_id
        assert not kw["test"](kw["control"]["measured"]), claim_id
    assert checks["concepts.grounded_position_own"]["expect"] == "needs full scale"     # no own-caption run given


def test_chance_baselines_hand_worked():
    attrs = [{"red", "left"}, {"blue", "left"}, {"red", "right"}, {"red", "top"}]
    # a random word of ('red', 'blue', 'left'): on images 0 and 1, red 1/2, blue 1/2, left 1 -> 2/3
    assert reproduction.chance_precision(np.array([[0, 1]]), attrs, ("red", "blue", "left")) == pytest.approx([2 / 3])
    # positions left 1/2, right 1/4, top 1/4 of the images; two draws agree with probability 3/8 -> purity
    # E[max share] = 3/8 * 1 + 5/8 * 1/2
    assert reproduction.chance_purity(attrs, ("left", "right", "top"), 2) == pytest.approx(3 / 8 + 5 / 16)
    assert reproduction.mas_purity(np.array([[0, 1, 2]]), attrs, ("left", "right")) == pytest.approx([2 / 3])


def test_explain_sample(run):
    e = experiment.explain_sample(run, "circle", 0, top=3)
    assert e["row"] == 130 and len(e["concepts"]) == 3 and np.all(e["activations"] >= 0)
    with pytest.raises(ValueError, match="test_row"):
        experiment.explain_sample(run, "circle", 30)


def test_analyse_bad_inputs(run):
    ts = run.tokens["circle"]
    W = np.ones((18, 24))
    vocab = np.array([""] * 18, dtype=object)
    with pytest.raises(ValueError, match="model"):
        experiment.analyse(ts, W, vocab, model="random")
    with pytest.raises(ValueError, match="K"):
        experiment.analyse(ts, W, vocab, K=200, n_test=30)
    bad = TokenSet("circle", 0, ts.index, ts.captions, np.where(np.eye(160, 24) > 0, np.nan, ts.Z), ts.Z_control,
                   ts.attributes)
    with pytest.raises(ValueError, match="NaN"):
        experiment.analyse(bad, W, vocab)


def test_collection_roundtrip(tmp_path):
    from neurips24.assets.shapes import render_shapes

    rng = np.random.default_rng(0)
    shapes_ = render_shapes(12, seed=collection.SEED0, shape="circle")
    rows = np.array([0, 3, 5])
    ts = TokenSet("circle", collection.SEED0, rows, ["a", "b", "c"], rng.normal(size=(3, 8)).astype(np.float32),
                  rng.normal(size=(3, 8)).astype(np.float32), collection.attribute_words(shapes_, rows, "circle"))
    path = collection.save({"meta": {"n_images": 12, "layer": 29}, "circle": ts}, tmp_path / "r.npz", command="x")
    back = collection.load(path)
    assert back["meta"]["command"] == "x" and back["meta"]["targets"] == ["circle"]
    np.testing.assert_allclose(back["circle"].Z, ts.Z, rtol=1e-3, atol=1e-3)     # float16 storage
    assert back["circle"].attributes == ts.attributes and back["circle"].captions == ["a", "b", "c"]
    assert all("circle" not in a and len(a) == 3 for a in back["circle"].attributes)
    with pytest.raises(FileNotFoundError, match="scripts/concepts_representations.py"):
        collection.load(tmp_path / "missing.npz")


def test_attribute_of():
    assert collection.attribute_of("big") == "size" and collection.attribute_of("circle") == "shape"
    with pytest.raises(ValueError, match="attribute value"):
        collection.attribute_of("dog")


def test_plots_and_tables_run(run):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from neurips24.concepts import plots

    for fig in (plots.plot_gallery(run, "circle", concepts=range(3)), plots.plot_metrics(run),
                plots.plot_explained(run, "circle", experiment.explain_sample(run, "circle", 1))):
        assert fig.axes
        plt.close(fig)
    rows, header = plots.metrics_rows(run)
    assert len(rows) == len(run.config["methods"]) + 1 and len(header) == 5


def test_strict_precision_counts_shape_words_as_misses(run):
    # planted words hold no shape word, so the strict reading equals the varying-attribute one here
    strict = experiment.precision_any_attribute(run)
    assert strict == pytest.approx(run.get("circle").precision.mean())


def test_mas_purity_by_hand(run):
    # planted concepts are attribute words: their images agree on the concept's attribute far above chance
    assert experiment.mas_purity(run, "trained", "snmf", "colour") > 0.8
    with pytest.raises(ValueError, match="attribute"):
        experiment.mas_purity(run, attribute="texture")
    # by hand: one concept, images 0..2 with positions left, left, right -> 2/3
    ts = TokenSet("circle", 0, np.arange(3), ["a"] * 3, np.zeros((3, 2), np.float32), np.zeros((3, 2), np.float32),
                  [{"left"}, {"left"}, {"right"}])

    class R:
        mas = np.array([[0, 1, 2]])
        decomposition = type("D", (), {"V": np.zeros((3, 1))})()

    view = experiment.ConceptsRun(config={}, meta={}, tokens={"circle": ts}, results={("circle", "trained", "snmf"): R})
    assert experiment.mas_purity(view, attribute="position") == pytest.approx(2 / 3)
