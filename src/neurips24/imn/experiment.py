"""The chapter's experiment: AUROC of IMN against scikit-learn's baselines on three tabular sets, and the
faithfulness of IMN's impacts against comparison explanations on logistic data with known beta.

- :func:`fit_baselines`: logistic regression, decision tree, random forest, histogram gradient boosting
  (scikit-learn, default hyper-parameters); InterpretML's explainable boosting machine (EBM) is fitted by
  :func:`~neurips24.imn.ebm.fit_ebm` beside them.
- :func:`auroc`: scikit-learn's ``roc_auc_score`` (one-vs-rest macro average for more than two classes).
- :func:`run_experiment`: everything the chapter reports, for one run scale (:func:`run_accuracy`, then
  :func:`run_faithfulness`, which the notebook calls in two cells).
"""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

import numpy as np

from .. import seeding
from ..scale import check_scale
from .data import check_xy, load_tabular
from .ebm import ebm_global_importance, ebm_local_scores, fit_ebm
from .faithfulness import deletion_curve, impact_correlation, neighbour_hyperplane_accuracy, occlusion_attributions
from .model import IMN, IMNConfig

CONFIG = {   # EBM: outer bags (library default 14) and pairwise terms (library default "3x") of the accuracy fit
    "fast": dict(n_seeds=3, epochs=60, n_synthetic=600, rf_trees=100, neighbours=(10, 50),
                 ebm_bags=2, ebm_interactions=0),
    "full": dict(n_seeds=10, epochs=500, n_synthetic=3000, rf_trees=500, neighbours=(10, 200),
                 ebm_bags=14, ebm_interactions="3x"),
}
AUROC_SETS = ("breast_cancer", "wine", "noisy_moons")
PAPER_BUDGET_RECORD = "shipped/paper_budget_500.json"   # scripts/imn_paper_budget.py: 500 epochs, seeds 0-5
MODELS = ("logistic regression", "decision tree", "random forest", "gradient boosting", "EBM", "IMN")
TREES = ("decision tree", "random forest", "gradient boosting")


def fit_baselines(X, y, seed: int, rf_trees: int = 100) -> dict:
    """The four scikit-learn baselines fitted on (X, y) (validated by :func:`~neurips24.imn.data.check_xy`)."""
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier
    X, y, _ = check_xy(X, y)
    models = {"logistic regression": LogisticRegression(max_iter=2000),
              "decision tree": DecisionTreeClassifier(random_state=seed),
              "random forest": RandomForestClassifier(n_estimators=rf_trees, random_state=seed, n_jobs=1),
              "gradient boosting": HistGradientBoostingClassifier(random_state=seed)}
    return {name: m.fit(X, y) for name, m in models.items()}


def auroc(y, proba) -> float:
    """AUROC of probabilities ``proba`` (n, C) for labels ``y`` (n,) in 0..C-1 (macro one-vs-rest if C > 2)."""
    from sklearn.metrics import roc_auc_score
    proba = np.asarray(proba, dtype=float)
    if proba.ndim != 2 or proba.shape[0] != len(y) or not np.isfinite(proba).all():
        raise ValueError(f"proba must be finite (n, C) with n = len(y) = {len(y)}, got shape {proba.shape}")
    return float(roc_auc_score(y, proba[:, 1]) if proba.shape[1] == 2 else roc_auc_score(y, proba, multi_class="ovr"))


@dataclass
class Results:
    """What :func:`run_experiment` returns (lists are per seed)."""

    config: dict
    auroc: dict = field(default_factory=dict)          # dataset -> model -> [AUROC per seed]
    faith_local: dict = field(default_factory=dict)    # method -> [mean per-instance Pearson with beta*x]
    faith_global: dict = field(default_factory=dict)   # method -> [Spearman(global importance, |beta|)]
    neighbours: dict = field(default_factory=dict)     # k -> [neighbour-hyperplane accuracy per seed]
    deletion: dict = field(default_factory=dict)       # order -> (M + 1,) curve averaged over seeds
    example: dict = field(default_factory=dict)        # one seed's IMN impacts and truth, for the figures
    seconds: dict = field(default_factory=dict)

    def mean(self, dataset, model) -> float:
        return float(np.mean(self.auroc[dataset][model]))

    def best_tree(self, dataset) -> str:
        return max(TREES, key=lambda m: self.mean(dataset, m))


def _spearman(a, b) -> float:
    from scipy.stats import spearmanr
    return float(spearmanr(a, b).statistic)


def run_experiment(scale: str = "fast", seeds=None, ebm: bool = True) -> Results:
    """Run the chapter's experiment at ``scale`` ('fast' or 'full'): :func:`run_accuracy`, then
    :func:`run_faithfulness`. ``seeds`` overrides the scale's seeds; ``ebm=False`` leaves out the EBM (which
    needs the optional ``interpret-core``)."""
    return run_faithfulness(run_accuracy(scale, seeds, ebm))


def run_accuracy(scale: str = "fast", seeds=None, ebm: bool = True, *, epochs: int | None = None,
                 sets=AUROC_SETS, config: dict | None = None) -> Results:
    """The accuracy part: test AUROC of every model in :data:`MODELS` on :data:`AUROC_SETS` per seed, and the
    neighbour-hyperplane accuracy of IMN on noisy moons. Arguments as :func:`run_experiment`; ``epochs``
    overrides the scale's IMN epochs (the paper's default is 500) and ``sets`` chooses a subset of
    :data:`AUROC_SETS` (the script ``scripts/imn_paper_budget.py`` uses both); ``config`` overrides other entries
    of :data:`CONFIG` (e.g. ``n_synthetic``, ``rf_trees``, and ``l1_ablation=False`` to leave out the λ = 0 fit
    of :func:`run_faithfulness`; the mutant tests run a small size).

    Raises
    ------
    ValueError on an unknown set name, an unknown config key or epochs < 1.
    """
    cfg = dict(CONFIG[check_scale(scale)])
    unknown = set(config or {}) - set(cfg) - {"l1_ablation"}
    if unknown:
        raise ValueError(f"unknown config keys {sorted(unknown)}; known: {sorted(cfg)} and 'l1_ablation'")
    cfg.update(config or {})
    cfg["seeds"] = seeding.seeds(cfg["n_seeds"]) if seeds is None else tuple(int(s) for s in seeds)
    if epochs is not None:
        if isinstance(epochs, bool) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
            raise ValueError(f"epochs must be an integer >= 1, got {epochs!r}")
        cfg["epochs"] = int(epochs)
    unknown = [s for s in sets if s not in AUROC_SETS]
    if unknown or not sets:
        raise ValueError(f"sets must be a non-empty subset of {AUROC_SETS}, got {tuple(sets)}")
    cfg["ebm"] = bool(ebm)
    res = Results(config=cfg)
    imn_cfg = IMNConfig(epochs=cfg["epochs"])
    res.seconds["EBM fits"] = 0.0
    t0 = time.process_time()
    for name in sets:
        res.auroc[name] = {m: [] for m in MODELS if ebm or m != "EBM"}
        for seed in cfg["seeds"]:
            d = load_tabular(name, seed, n=cfg["n_synthetic"])
            models = fit_baselines(d["X_train"], d["y_train"], seed, cfg["rf_trees"])
            if ebm:
                t1 = time.process_time()
                models["EBM"] = fit_ebm(d["X_train"], d["y_train"], seed, outer_bags=cfg["ebm_bags"],
                                        interactions=cfg["ebm_interactions"])
                res.seconds["EBM fits"] += time.process_time() - t1
            models["IMN"] = IMN(imn_cfg, seed).fit(d["X_train"], d["y_train"])
            for m, model in models.items():
                res.auroc[name][m].append(auroc(d["y_test"], model.predict_proba(d["X_test"])))
            if name == "noisy_moons":
                W = models["IMN"].weights(d["X_test"])[:, :, 0]
                for k in cfg["neighbours"]:
                    res.neighbours.setdefault(k, []).append(
                        neighbour_hyperplane_accuracy(d["X_test"], W, d["y_test"], k))
    res.seconds["auroc"] = time.process_time() - t0
    return res


def run_faithfulness(res: Results) -> Results:
    """The faithfulness part, added to ``res`` (from :func:`run_accuracy`, whose config it reuses): on the
    logistic set, the correlation of each explanation with beta * x (IMN with the official λ = 0.1 and, as an
    ablation, with λ = 0), global rankings against |beta|, and deletion curves. Returns ``res``."""
    t0 = time.process_time()
    _faithfulness(res, res.config, IMNConfig(epochs=res.config["epochs"]))
    res.seconds["faithfulness"] = time.process_time() - t0
    return res


def _faithfulness(res: Results, cfg: dict, imn_cfg: IMNConfig) -> None:
    from sklearn.inspection import permutation_importance
    local = {k: [] for k in ("IMN", "IMN, λ = 0 (no L1 term)", "IMN, untrained (control)",
                             "logistic regression: coef × x", "gradient boosting: occlusion")
             + (("EBM: term scores",) if cfg["ebm"] else ())}
    glob = {k: [] for k in ("IMN: mean |impact|", "logistic regression: |coef|",
                            "gradient boosting: permutation importance")
            + (("EBM: term importance",) if cfg["ebm"] else ())}
    curves = {k: [] for k in ("IMN impacts", "untrained IMN impacts", "random order")}
    for seed in cfg["seeds"]:
        d = load_tabular("logistic", seed, n=cfg["n_synthetic"])
        Xtr, Xte, beta = d["X_train"], d["X_test"], d["beta"]
        truth = Xte * beta
        imn = IMN(imn_cfg, seed).fit(Xtr, d["y_train"])
        untrained = IMN(imn_cfg, seed + 1000).init(Xtr.shape[1], 2)
        base = fit_baselines(Xtr, d["y_train"], seed, cfg["rf_trees"])
        lr, hgb = base["logistic regression"], base["gradient boosting"]
        a_imn = imn.impacts(Xte)
        a_un = untrained.impacts(Xte)
        mean = Xtr.mean(0)
        a_hgb = occlusion_attributions(hgb.decision_function, Xte, mean)
        local["IMN"].append(impact_correlation(a_imn, truth))
        if cfg.get("l1_ablation", True):
            no_l1 = IMN(dataclasses.replace(imn_cfg, l1=0.0), seed).fit(Xtr, d["y_train"])
            local["IMN, λ = 0 (no L1 term)"].append(impact_correlation(no_l1.impacts(Xte), truth))
        local["IMN, untrained (control)"].append(impact_correlation(a_un, truth))
        local["logistic regression: coef × x"].append(impact_correlation(Xte * lr.coef_[0], truth))
        local["gradient boosting: occlusion"].append(impact_correlation(a_hgb, truth))
        glob["IMN: mean |impact|"].append(_spearman(np.abs(a_imn).mean(0), np.abs(beta)))
        glob["logistic regression: |coef|"].append(_spearman(np.abs(lr.coef_[0]), np.abs(beta)))
        pi = permutation_importance(hgb, Xte, d["y_test"], n_repeats=5, random_state=seed, scoring="roc_auc")
        glob["gradient boosting: permutation importance"].append(_spearman(pi.importances_mean, np.abs(beta)))
        if cfg["ebm"]:        # main effects only, so that each feature has one score per instance
            t1 = time.process_time()
            ebm = fit_ebm(Xtr, d["y_train"], seed, outer_bags=cfg["ebm_bags"], interactions=0)
            res.seconds["EBM fits"] = res.seconds.get("EBM fits", 0.0) + time.process_time() - t1
            local["EBM: term scores"].append(impact_correlation(ebm_local_scores(ebm, Xte), truth))
            glob["EBM: term importance"].append(_spearman(ebm_global_importance(ebm), np.abs(beta)))
        rng = np.random.default_rng(seed)
        orders = {"IMN impacts": np.argsort(-np.abs(a_imn), 1), "untrained IMN impacts": np.argsort(-np.abs(a_un), 1),
                  "random order": np.argsort(rng.random(Xte.shape), 1)}
        for k, order in orders.items():
            curves[k].append(deletion_curve(imn.predict_proba, Xte, order, mean))
        if not res.example:
            res.example = dict(impacts=a_imn, truth=truth, untrained=a_un, beta=beta)
    res.faith_local, res.faith_global = {k: v for k, v in local.items() if v}, glob
    res.deletion = {k: np.mean(v, 0) for k, v in curves.items()}


def explore_run(l1: float = 0.1, epochs: int = 60, seed: int = 0, n: int = 600) -> dict:
    """One IMN on the logistic set with L1 strength ``l1`` (>= 0) and ``epochs`` (>= 6): its impacts, the truth,
    an untrained hypernetwork's impacts, the impact correlation and the test AUROC (the chapter's widget)."""
    if not (np.isfinite(l1) and l1 >= 0) or int(epochs) < 6:
        raise ValueError(f"l1 must be finite and >= 0 and epochs >= 6, got l1={l1}, epochs={epochs}")
    d = load_tabular("logistic", seed, n=n)
    model = IMN(IMNConfig(epochs=int(epochs), l1=float(l1)), seed).fit(d["X_train"], d["y_train"])
    a = model.impacts(d["X_test"])
    truth = d["X_test"] * d["beta"]
    untrained = IMN(IMNConfig(), seed + 1000).init(truth.shape[1], 2).impacts(d["X_test"])
    return dict(impacts=a, truth=truth, untrained=untrained, beta=d["beta"],
                correlation=impact_correlation(a, truth),
                auroc=auroc(d["y_test"], model.predict_proba(d["X_test"])),
                zero_fraction=float(np.mean(np.abs(a) < 0.01)))


def load_paper_budget(path=None) -> dict:
    """The shipped record of ``scripts/imn_paper_budget.py``: IMN at the paper's 500 epochs on breast cancer and
    noisy moons, seeds 0-5 (recorded seeds, not shifted by ``NEURIPS24_SEED_OFFSET``).

    Returns
    -------
    dict with 'auroc' (set -> model -> [AUROC per seed]), 'seeds', 'epochs', 'command', 'wall_s', ...

    Raises
    ------
    FileNotFoundError if the record is missing.
    """
    import json
    from pathlib import Path
    path = Path(__file__).parent / PAPER_BUDGET_RECORD if path is None else Path(path)
    return json.loads(path.read_text(encoding="utf-8"))
