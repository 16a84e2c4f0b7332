"""The chapter's experiment (paper Secs. 4-5, Figs. 2-4 and Table 1 in miniature), sized by the run scale.

Per seed (:func:`run_seed`): draw the noisy data; estimate memorization and the C-proxy from an ensemble; train
the original model on the whole training set; build forget sets by memorization (low, mid, high, mix), by
entanglement (near, far) and at random; retrain an oracle from scratch for each; run every unlearning algorithm
on every set (U steps); on the mix set, run RUM (sequences over low -> mid -> high, U steps per subset) against
vanilla algorithms given the same 3U steps; score everything with ToW and ToW-MIA.
:func:`run_unlearning` repeats it over seeds 0, 1, …, 5 (``seeding.seeds``; never chosen).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import seeding
from ..scale import check_scale
from .algorithms import make_job, run_jobs
from .data import noisy_digits
from .entanglement import entanglement_score
from .forget_sets import distance_groups, memorization_groups, random_set
from .memorization import estimate_memorization
from .metrics import accuracies, mia_efficacy, tow, true_class_confidence
from .stack import fit_from_scratch, hidden_features, predict_proba

CONFIG = {
    "fast": dict(source="digits", n_points=None, noise=0.03, hidden=48, steps=200, lr=0.03, mem_runs=12,
                 share=0.7, k=30, unlearn_steps=30, n_seeds=6, rum=True),
    "full": dict(source="mnist", n_points=None, noise=0.03, hidden=256, steps=600, lr=0.01, mem_runs=200,
                 share=0.7, k=150, unlearn_steps=100, n_seeds=6, rum=True),
}
VANILLA = ("FT", "NegGrad+", "RL", "L1", "SCRUB")
TABLE_SETS = ("low", "mid", "high", "random", "near", "far", "mix")
RUM_SEQUENCES = {"RUM (nothing, FT, NegGrad+)": ("nothing", "FT", "NegGrad+"),
                 "RUM (nothing, FT, RL)": ("nothing", "FT", "RL")}


@dataclass
class SeedResult:
    """Everything one seed measured.

    mem, c_proxy : (n,) scores; noisy : (n,) bool; sets : name -> indices; es : name -> ES of the set;
    noise_share : name -> share of flipped labels in the set; es_control : (25,) ES(near) / ES(far) with the
    sets built from row-shuffled embeddings (the control of the ES ordering); tow, tow_mia : (method, set) ->
    value (method 'nothing' or one of :data:`VANILLA`); rum, rum_mia : label -> ToW / ToW-MIA on the mix set
    (RUM sequences, 'RUM^F <alg>', 'vanilla <alg> (3U)' and 'vanilla <alg> (U)'); info : train accuracies and
    sizes.
    """

    seed: int
    mem: np.ndarray
    c_proxy: np.ndarray
    noisy: np.ndarray
    sets: dict
    es: dict
    noise_share: dict
    es_control: np.ndarray = field(default_factory=lambda: np.zeros(0))
    tow: dict = field(default_factory=dict)
    tow_mia: dict = field(default_factory=dict)
    rum: dict = field(default_factory=dict)
    rum_mia: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)


def _scores(proba_u, proba_r, data, forget, retain, cache=None):
    """ToW and ToW-MIA of one unlearned model (probabilities on train and test) against its oracle; ``cache``
    (a dict) keeps the oracle's accuracies and MIA efficacy, which do not depend on the unlearned model."""
    y, yt = data.y_train, data.y_test
    sets = {"forget": forget, "retain": retain}
    acc_u = {**accuracies(proba_u[0], y, sets), "test": accuracies(proba_u[1], yt, {"t": np.arange(len(yt))})["t"]}

    def mia(proba):
        conf = true_class_confidence(proba[0], y)
        return mia_efficacy(conf[retain], true_class_confidence(proba[1], yt), conf[forget])

    cache = {} if cache is None else cache
    if not cache:
        cache["acc"] = {**accuracies(proba_r[0], y, sets),
                        "test": accuracies(proba_r[1], yt, {"t": np.arange(len(yt))})["t"]}
        cache["mia"] = mia(proba_r)
    acc_r = cache["acc"]
    return tow(acc_u, acc_r), tow({**acc_u, "forget": mia(proba_u)}, {**acc_r, "forget": cache["mia"]})


def run_seed(scale: str, seed: int, config: dict | None = None) -> SeedResult:
    """One seed of the chapter's experiment (see the module docstring); ``config`` overrides entries of the
    scale's :data:`CONFIG` (e.g. a smaller run for the tests).

    Raises
    ------
    ValueError on an unknown scale or an unknown config key.
    """
    cfg = {**CONFIG[check_scale(scale)], **_check_overrides(config)}
    data = noisy_digits(seed, cfg["noise"], source=cfg["source"], n_points=cfg["n_points"])
    x, y, n, k, u = data.x_train, data.y_train, len(data.y_train), cfg["k"], cfg["unlearn_steps"]
    recipe = dict(hidden=cfg["hidden"], steps=cfg["steps"], lr=cfg["lr"])
    mem = estimate_memorization(x, y, n_runs=cfg["mem_runs"], share=cfg["share"], seed=1000 + seed, **recipe)
    original = fit_from_scratch(x, y, np.ones((1, n), bool), seed=2000 + seed, **recipe)
    phi = hidden_features(original, x)[0].cpu().numpy()
    sets = {**memorization_groups(mem.mem, k, seed=seed), "random": random_set(n, k, seed=3000 + seed),
            **distance_groups(phi, k)}

    def retain_of(idx):
        keep = np.ones(n, bool)
        keep[idx] = False
        return np.flatnonzero(keep)

    es = {name: entanglement_score(phi[retain_of(idx)], phi[idx]) for name, idx in sets.items()}
    # the control of the ES ordering: the same builder on embeddings whose rows were shuffled across points (two
    # random sets; the ratio of two random sets' ES is noisy, so the control keeps all 25 shuffles)
    shuffle_rng = np.random.default_rng(5000 + seed)
    es_control = []
    for _ in range(25):
        g = distance_groups(phi[shuffle_rng.permutation(n)], k)
        es_control.append(entanglement_score(phi[retain_of(g["near"])], phi[g["near"]])
                          / entanglement_score(phi[retain_of(g["far"])], phi[g["far"]]))
    # one retrained oracle per forget set, all in one stacked program
    masks = np.ones((len(TABLE_SETS), n), bool)
    for i, name in enumerate(TABLE_SETS):
        masks[i, sets[name]] = False
    oracles = fit_from_scratch(x, y, masks, seed=4000 + seed, **recipe)

    def proba(params):
        return predict_proba(params, x), predict_proba(params, data.x_test)

    p_orig, p_orac = proba(original), proba(oracles)
    res = SeedResult(seed, mem.mem, mem.c_proxy, data.noisy, sets, es,
                     {name: float(data.noisy[idx].mean()) for name, idx in sets.items()},
                     es_control=np.array(es_control))
    res.info = dict(mem_train_acc=mem.train_acc, n_train=n, n_test=len(data.y_test), k=k, unlearn_steps=u,
                    original_train_acc=float((p_orig[0][0].argmax(-1) == y).mean()),
                    original_test_acc=float((p_orig[1][0].argmax(-1) == data.y_test).mean()),
                    n_noisy=int(data.noisy.sum()))
    oracle_of = {name: ((p_orac[0][i], p_orac[1][i])) for i, name in enumerate(TABLE_SETS)}
    caches = {name: {} for name in TABLE_SETS}
    for name in TABLE_SETS:
        res.tow[("nothing", name)], res.tow_mia[("nothing", name)] = _scores(
            (p_orig[0][0], p_orig[1][0]), oracle_of[name], data, sets[name], retain_of(sets[name]), caches[name])
    # vanilla algorithms on every set, U steps
    jobs = [make_job((alg, name), [(alg, sets[name], u)], n) for alg in VANILLA for name in TABLE_SETS]
    p_u = proba(run_jobs(original, x, y, jobs, seed=seed))
    for j, job in enumerate(jobs):
        name = job.label[1]
        res.tow[job.label], res.tow_mia[job.label] = _scores((p_u[0][j], p_u[1][j]), oracle_of[name], data,
                                                             sets[name], retain_of(sets[name]), caches[name])
    if cfg["rum"]:
        _run_rum(res, original, data, sets, oracle_of["mix"], caches["mix"], retain_of(sets["mix"]), k, u, seed)
    return res


def _run_rum(res, original, data, sets, oracle, cache, retain, k, u, seed) -> None:
    """RUM on the mix set, into ``res.rum`` / ``res.rum_mia`` (see :class:`SeedResult`)."""
    x, y, n = data.x_train, data.y_train, len(data.y_train)

    def proba(params):
        return predict_proba(params, x), predict_proba(params, data.x_test)

    # RUM on the mix set: sequences low -> mid -> high, U steps each, against vanilla given 3U steps
    third = k // 3
    parts = [sets["mix"][i * third:(i + 1) * third] for i in range(3)]          # low, mid, high subsets
    jobs = [make_job(f"vanilla {alg} (3U)", [(alg, sets["mix"], 3 * u)], n) for alg in VANILLA]
    jobs += [make_job(f"RUM^F {alg}", [(alg, part, u) for part in parts], n) for alg in VANILLA]
    jobs += [make_job(label, [(alg, part, u) for alg, part in zip(seq, parts, strict=True)], n)
             for label, seq in RUM_SEQUENCES.items()]
    p_u = proba(run_jobs(original, x, y, jobs, seed=seed))
    for j, job in enumerate(jobs):
        res.rum[job.label], res.rum_mia[job.label] = _scores((p_u[0][j], p_u[1][j]), oracle, data, sets["mix"],
                                                             retain, cache)
    for alg in VANILLA + ("nothing",):
        res.rum[f"vanilla {alg} (U)"] = res.tow[(alg, "mix")]
        res.rum_mia[f"vanilla {alg} (U)"] = res.tow_mia[(alg, "mix")]


@dataclass
class UnlearningResult:
    """The seeds of :func:`run_unlearning`, with summaries across them."""

    scale: str
    seeds: tuple
    runs: list

    def tow_table(self, metric: str = "tow") -> dict:
        """(method, set) -> (S,) ToW (or ToW-MIA with metric='tow_mia') over seeds."""
        keys = getattr(self.runs[0], metric).keys()
        return {key: np.array([getattr(r, metric)[key] for r in self.runs]) for key in keys}

    def rum_table(self, metric: str = "rum") -> dict:
        """label -> (S,) ToW (metric='rum') or ToW-MIA (metric='rum_mia') on the mix set over seeds."""
        return {key: np.array([getattr(r, metric)[key] for r in self.runs]) for key in getattr(self.runs[0], metric)}

    def per_seed(self, fn) -> np.ndarray:
        """(S,) fn(run) over seeds."""
        return np.array([fn(r) for r in self.runs], dtype=float)


def _check_overrides(config) -> dict:
    config = dict(config or {})
    unknown = set(config) - set(CONFIG["fast"])
    if unknown:
        raise ValueError(f"unknown config keys {sorted(unknown)}; known: {sorted(CONFIG['fast'])}")
    return config


def run_unlearning(scale: str, seeds=None, config: dict | None = None) -> UnlearningResult:
    """:func:`run_seed` for every seed (default: ``seeding.seeds(n_seeds)`` of the scale, i.e. 0..5 shifted by
    ``NEURIPS24_SEED_OFFSET``); ``config`` overrides entries of :data:`CONFIG`."""
    cfg = {**CONFIG[check_scale(scale)], **_check_overrides(config)}
    seeds = tuple(seeding.seeds(cfg["n_seeds"]) if seeds is None else (int(s) for s in seeds))
    return UnlearningResult(scale, seeds, [run_seed(scale, s, config) for s in seeds])


def merge(*results: UnlearningResult) -> UnlearningResult:
    """One :class:`UnlearningResult` from several of one scale (seeds run in separate calls)."""
    if len({r.scale for r in results}) != 1:
        raise ValueError("merge needs results of one scale")
    return UnlearningResult(results[0].scale, sum((r.seeds for r in results), ()),
                            sum((r.runs for r in results), []))


RUM_LABELS = tuple(f"RUM^F {alg}" for alg in VANILLA) + tuple(RUM_SEQUENCES)
EQUAL_COMPUTE = tuple(f"vanilla {alg} (3U)" for alg in VANILLA)


def memorization_gap(mem, flagged) -> float:
    """mean mem over flagged points − mean mem over the others (flagged: (n,) bool, both groups non-empty)."""
    mem, flagged = np.asarray(mem, float), np.asarray(flagged, bool)
    if flagged.shape != mem.shape or flagged.all() or not flagged.any():
        raise ValueError("flagged must be an (n,) bool mask with both groups non-empty")
    return float(mem[flagged].mean() - mem[~flagged].mean())


def claim_measures(res: UnlearningResult) -> dict:
    """Per-seed quantities behind the chapter's reproduction checks, each with its control. (S,) arrays:

    mem_gap / mem_gap_control : mem(noisy) − mem(clean); control: the same with the 'noisy' flag moved to as many
        random clean points (Spearman of mem with the C-proxy, and with a shuffled C-proxy);
    drop_<m> / drop_<m>_control : ToW(low) − ToW(high) for method m in ('nothing', 'FT'); control ToW(low) −
        ToW(random);
    es_ratio / es_ratio_control : ES(near) / ES(far); control: the median of that ratio over 25 pairs of sets
        built from row-shuffled embeddings (pairs of random sets);
    es_tow_gap (S · 6,) / es_tow_gap_control : ToW(far) − ToW(near) per method and seed; control ToW(random) −
        ToW(low) (two sets of similar ES);
    es_tow_by_method / es_tow_by_method_control : method -> mean over seeds of those gaps;
    rum_gain / rum_gain_control : best RUM − best equal-compute vanilla (3U) on the mix set; control: doing
        nothing − best equal-compute vanilla.
    """
    from scipy.stats import spearmanr

    out: dict = {k: [] for k in ("mem_gap", "mem_gap_control", "spearman", "spearman_control", "es_ratio",
                                 "es_ratio_control", "rum_gain", "rum_gain_control")}
    for r in res.runs:
        rng = np.random.default_rng(6000 + r.seed)
        fake = np.zeros_like(r.noisy)
        fake[rng.choice(np.flatnonzero(~r.noisy), size=int(r.noisy.sum()), replace=False)] = True
        clean = ~r.noisy
        out["mem_gap"].append(memorization_gap(r.mem, r.noisy))
        out["mem_gap_control"].append(memorization_gap(r.mem[clean], fake[clean]))
        out["spearman"].append(spearmanr(r.mem, r.c_proxy)[0])
        out["spearman_control"].append(spearmanr(r.mem, rng.permutation(r.c_proxy))[0])
        out["es_ratio"].append(r.es["near"] / r.es["far"])
        out["es_ratio_control"].append(float(np.median(r.es_control)))
        if r.rum:                                                # RUM was run (config 'rum')
            best_vanilla = max(r.rum[k] for k in EQUAL_COMPUTE)
            out["rum_gain"].append(max(r.rum[k] for k in RUM_LABELS) - best_vanilla)
            out["rum_gain_control"].append(r.rum["vanilla nothing (U)"] - best_vanilla)
    out = {k: np.array(v) for k, v in out.items()}
    table, table_mia = res.tow_table(), res.tow_table("tow_mia")
    out["rum_baseline"] = np.array([max(r.rum[k] for k in EQUAL_COMPUTE) for r in res.runs if r.rum])
    for m in ("nothing", "FT"):
        out[f"drop_{m}"] = table[(m, "low")] - table[(m, "high")]
        out[f"drop_{m}_control"] = table[(m, "low")] - table[(m, "random")]
        out[f"drop_mia_{m}"] = table_mia[(m, "low")] - table_mia[(m, "high")]
        out[f"drop_mia_{m}_control"] = table_mia[(m, "low")] - table_mia[(m, "random")]
    for m in VANILLA:
        out[f"targeted_{m}"] = table[(m, "high")] - table[("nothing", "high")]
        out[f"targeted_{m}_control"] = table[(m, "low")] - table[("nothing", "low")]
    methods = ("nothing",) + VANILLA
    out["es_tow_by_method_seed"] = {m: table[(m, "far")] - table[(m, "near")] for m in methods}
    out["es_tow_by_method"] = {m: float(v.mean()) for m, v in out["es_tow_by_method_seed"].items()}
    out["es_tow_by_method_seed_control"] = {m: table[(m, "random")] - table[(m, "low")] for m in methods}
    out["es_tow_by_method_control"] = {m: float(v.mean()) for m, v in out["es_tow_by_method_seed_control"].items()}
    out["es_tow_gap"] = np.concatenate([table[(m, "far")] - table[(m, "near")] for m in methods])
    out["es_tow_gap_control"] = np.concatenate([table[(m, "random")] - table[(m, "low")] for m in methods])
    out["es_tow_seed"] = np.mean([table[(m, "far")] - table[(m, "near")] for m in methods], axis=0)
    out["es_tow_seed_control"] = np.mean([table[(m, "random")] - table[(m, "low")] for m in methods], axis=0)
    return out


def es_tow_rank_correlation(res: UnlearningResult, sets=TABLE_SETS) -> float:
    """Spearman's rank correlation, over the forget sets, of the mean ES with the mean ToW (averaged over the
    six methods and the seeds). The paper's law predicts a negative value (higher ES, lower ToW); shown, not
    asserted: the tabulated sets differ in memorization too."""
    from scipy.stats import spearmanr

    table = res.tow_table()
    methods = ("nothing",) + VANILLA
    es = [np.mean([r.es[s] for r in res.runs]) for s in sets]
    tw = [np.mean([table[(m, s)].mean() for m in methods]) for s in sets]
    return float(spearmanr(es, tw).statistic)


def set_memorization(res: UnlearningResult, sets=("near", "far")) -> dict:
    """Mean memorization score of each forget set, averaged over seeds (the confound of the ES sets)."""
    return {s: float(np.mean([r.mem[r.sets[s]].mean() for r in res.runs])) for s in sets}
