"""The chapter's experiments (edl.experiment) on tiny sizes: shapes, summaries, metrics against scikit-learn;
and, marked slow, the fast-scale run with the rules the chapter's reproduction checks assert."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from neurips24.edl import experiment as Ex

TINY = {
    "gaussian": dict(N_values=(100, 1000, 10_000), lams=(0.1, 0.01), seeds=(0, 1), M=3, n_test=300,
                     hidden=(8,), steps=30, boot_steps=30, distill_steps=30, batch_size=32, lr=1e-2),
    "digits": dict(source="digits_8x8", in_classes=(0, 1, 2), lams=(0.1, 0.001), seeds=(0, 1), M=3,
                   hidden=(8,), steps=30, batch_size=32, lr=1e-3),
}


@pytest.fixture(scope="module")
def tiny_runs():
    import torch

    torch.set_num_threads(1)
    old = Ex.CONFIG["fast"]
    Ex.CONFIG["fast"] = TINY
    try:
        return Ex.run_gaussian("fast"), Ex.run_digits("fast")
    finally:
        Ex.CONFIG["fast"] = old


def test_gaussian_run_shapes_and_summaries(tiny_runs):
    g, _ = tiny_runs
    assert g.edl_alpha.shape == (2 * 3 * 2, 300, 3) and np.all(g.edl_alpha > 0)
    assert g.boot_probs.shape == (2 * 3 * 3, 300, 3)
    np.testing.assert_allclose(g.boot_probs.sum(-1), 1.0)
    assert g.distill_alpha.shape == (2 * 3, 300, 3)
    e = g.edl_stats()
    assert set(e) == {(N, lam) for N in g.N_values for lam in g.lams}
    assert e[(100, 0.1)]["alpha0"].shape == (2,)
    assert g.theory(0.1)["alpha0"] == pytest.approx(13.0)
    assert 0 < g.bayes_entropy() < np.log(3)
    assert set(g.boot_stats()) == set(g.N_values) == set(g.distill_stats())


def test_training_sets_are_nested_prefixes_of_one_pool(tiny_runs):
    g, _ = tiny_runs
    X, y = g.pools[0]
    assert X.shape == (10_000, 2)
    assert not np.allclose(g.pools[0][0], g.pools[1][0])


def test_explore_maps(tiny_runs):
    g, _ = tiny_runs
    m = Ex.explore_maps(g, 1000, 0.01, grid=20)
    for k in ("edl", "boot", "distill", "theory"):
        assert m[k].shape == (20, 20) and np.all(m[k] >= -1e-9)
    assert len(m["X_train"]) == 1000
    with pytest.raises(ValueError, match="was not trained"):
        Ex.explore_maps(g, 500, 0.1)


def test_digits_scores_auroc_and_rank_correlation(tiny_runs):
    _, d = tiny_runs
    n_eval = len(d.split.X_test) + len(d.split.X_ood)
    sc = d.scores(0)
    assert all(v.shape == (n_eval,) for v in sc.values())
    auc = d.auroc()
    for k in sc:
        assert auc[k][0] == pytest.approx(roc_auc_score(d.is_ood, sc[k]))
    # the energy score of EDL is −log α₀: its AUROC equals that of the total evidence, by the identity
    np.testing.assert_allclose(auc["EDL λ=0.1: energy −log α₀"],
                               [roc_auc_score(d.is_ood, -np.exp(d.edl_logits[d.edl_meta.index((s, 0.1))])
                                              .sum(-1)) for s in d.seeds])
    rho = d.rank_correlation("EDL λ=0.1: energy −log α₀", "EDL λ=0.1: energy −log α₀")
    np.testing.assert_allclose(rho, 1.0)
    acc = d.accuracy()
    assert all(0 <= v.min() and v.max() <= 1 for v in acc.values())


def test_check_numbers_structure(tiny_runs):
    g, d = tiny_runs
    nums = Ex.check_numbers(g, d)
    assert set(nums["alpha0"]) == set(g.lams) and nums["alpha0"][0.1].shape == (2,)
    assert nums["boot_falls"].shape == (2,) and nums["spearman_control"].shape == (2,)
    with pytest.raises(ValueError, match="was not run"):
        Ex.check_numbers(g, d, N_small=50)


def test_unknown_scale():
    with pytest.raises(ValueError, match="scale"):
        Ex.run_gaussian("huge")
    with pytest.raises(ValueError, match="scale"):
        Ex.run_digits("medium")


@pytest.mark.slow
def test_fast_scale_reproduces_the_chapter_claims():
    """The chapter's checks (edl.reproduction), on the chapter's own run (about 40 s of CPU)."""
    import torch

    from neurips24 import claims
    from neurips24.edl import reproduction

    torch.set_num_threads(1)
    checks = reproduction.checks(Ex.run_gaussian("fast"), Ex.run_digits("fast"))
    outcomes = {cid: claims.outcome(cid, **kw) for cid, kw in checks.items()}
    assert all(out in ("pass", "not reproduced") for out in outcomes.values()), outcomes


def test_figures_draw_with_labelled_axes(tiny_runs):
    import matplotlib.pyplot as plt

    from neurips24.edl import plots

    g, d = tiny_runs
    for fig in (plots.plot_mirage(g), plots.plot_maps(Ex.explore_maps(g, 100, 0.1, grid=12)), plots.plot_ood(d)):
        axes = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
        assert axes and all(ax.get_xlabel() for ax in axes)
        plt.close(fig)
    assert "| N |" in Ex.mirage_table(g) and "| N |" in Ex.mirage_table(g, "aleatoric")
    assert Ex.auroc_table(d).count("\n") == len(d.auroc()) + 1
    with pytest.raises(ValueError, match="part"):
        Ex.mirage_table(g, "total")
