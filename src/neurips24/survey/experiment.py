"""The chapter's experiments: SmolLM2-135M-Instruct fills in the ACS form (paper §3-§4, miniature).

``run_survey(scale, loaded)`` asks all 25 questions under several choice orders, in the plain
``Question/Answer:`` format of the paper (letters ' A', ' B', ...) and, for the naive order, also in the model's
chat template (letters 'A', 'B', ...), and returns every probability it read. ``run_synthetic_states`` measures
the subgroup artifact on labelled-synthetic states. Sizes come from :data:`CONFIG`.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import seeding
from .adjust import adjusted_response, choice_orders, naive_response
from .census import census_distribution, covered_questions, geographies
from .extraction import distributions_from_logprobs, letter_logprobs, next_token_logits
from .metrics import a_bias, kl_bits, kl_to_uniform, normalized_entropy
from .prompts import chat_prompt, format_prompt, letter_prefix, letter_token_ids
from .questionnaire import questions
from .subgroups import spearman, subgroup_divergence, subgroup_entropy, synthetic_states

CONFIG = {
    # fast: every order for k <= 3 (k! <= 6), the k cyclic shifts (a Latin square) for k >= 4; the chat
    # template only in the questionnaire's order (to see which letter tokens carry the probability)
    "fast": {"all_up_to": 3, "design_large": "cyclic", "max_perms": 24, "adjusted_formats": ("plain",),
             "naive_formats": ("plain", "chat"), "n_states": 50, "state_seeds": 8, "concentration": 200.0,
             "max_tokens": 2048, "max_batch": 32},
    # full: the paper's rule (all k! orders when k! <= 5000, else 5000 sampled), both formats adjusted
    "full": {"all_up_to": 26, "design_large": "all", "max_perms": 5000, "adjusted_formats": ("plain", "chat"),
             "naive_formats": ("plain", "chat"), "n_states": 50, "state_seeds": 32, "concentration": 200.0,
             "max_tokens": 8192, "max_batch": 128},
}
PAPER_CLOSER_MAX = 0.24   # official figures.ipynb: "Largest fraction of questions closer to census than to uniform"


def _config(scale: str) -> dict:
    if scale not in CONFIG:
        raise ValueError(f"scale must be one of {sorted(CONFIG)}, got {scale!r}")
    return CONFIG[scale]


def orders_for(k: int, scale: str) -> np.ndarray:
    """The choice orders asked for a question with k choices at this scale (row 0: the questionnaire's order)."""
    cfg = _config(scale)
    design = "all" if k <= cfg["all_up_to"] else cfg["design_large"]
    return choice_orders(k, cfg["max_perms"], design=design, seed=k)


@dataclass
class Responses:
    """What one prompt format gave for one question.

    Attributes
    ----------
    orders : (J, k) int, the orders asked (row 0 = questionnaire order).
    P : (J, k) float, positional letter distributions (renormalised over the k letters).
    mass : (J,) float, next-token probability the k letters carried.
    naive, choice_p, p_adj : (k,) naive response, positional distribution, adjusted response.
    """

    orders: np.ndarray
    P: np.ndarray
    mass: np.ndarray
    naive: np.ndarray
    choice_p: np.ndarray
    p_adj: np.ndarray


@dataclass
class SurveyResult:
    """Everything :func:`run_survey` measured.

    Attributes
    ----------
    scale : 'fast' or 'full'.
    responses : format ('plain', 'chat') -> question key -> :class:`Responses` (adjusted formats only).
    naive : format -> key -> (k,) naive response (all formats).
    letter_mass : format -> prefix (' ' or '') -> (25,) mass of that letter family on the naive prompts.
    n_prompts : int, prompts asked (run through the model or read from the cache).
    seconds : 'forward', 'softmax_gather', 'adjust', 'total' wall-clock seconds of this run, and
        'forward_measured': the forward seconds of all its prompts as measured when each was run (from the
        cache for cached prompts).
    n_cached : int, prompts whose letter log-probabilities came from the cache (0 on a first run).
    """

    scale: str
    responses: dict
    naive: dict
    letter_mass: dict
    n_prompts: int
    seconds: dict = field(default_factory=dict)
    n_cached: int = 0

    @property
    def keys(self) -> list[str]:
        """The 25 question keys, in the questionnaire's order."""
        return list(questions())

    def metric(self, name: str, fmt: str = "plain") -> np.ndarray:
        """(25,) per-question metric: 'a_bias', 'h_naive', 'h_adj', 'kl_u_naive', 'kl_u_adj'."""
        r = self.responses[fmt]
        f = {"a_bias": lambda x: a_bias(x.choice_p), "h_naive": lambda x: normalized_entropy(x.naive),
             "h_adj": lambda x: normalized_entropy(x.p_adj), "kl_u_naive": lambda x: kl_to_uniform(x.naive),
             "kl_u_adj": lambda x: kl_to_uniform(x.p_adj)}
        if name not in f:
            raise ValueError(f"unknown metric {name!r}; one of {sorted(f)}")
        return np.array([float(f[name](r[k])) for k in self.keys])


def _prompts(fmt: str, tok, question, order) -> str:
    text = format_prompt(question, order)
    return text if fmt == "plain" else chat_prompt(tok, text)


def _cache_key(tag: str, prompt: str, ids) -> str:
    return hashlib.sha1(f"{tag}\0{prompt}\0{','.join(map(str, ids))}".encode()).hexdigest()


def letter_logprob_cache_path(loaded) -> Path:
    """Where :func:`run_survey` keeps the letter log-probabilities it read, per (prompt, letter ids).

    ``$NEURIPS24_CACHE/survey/letter_logprobs-<model>.json`` (default under ``~/.cache/neurips24``), outside the
    repository; ``<model>`` is the name of the converted model's folder. Deleting the file makes the next run
    ask the model again.
    """
    from ..assets.packages import cache_root

    return cache_root() / "survey" / f"letter_logprobs-{Path(loaded.path).name}.json"


def _load_cache(path: Path | None) -> dict:
    if path is None or not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}                     # a damaged cache is ignored and rewritten


def _save_cache(path: Path | None, cache: dict) -> None:
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(cache), encoding="utf-8")
    tmp.replace(path)


def run_survey(scale: str, loaded, cache: bool = True) -> SurveyResult:
    """Ask SmolLM2 the 25 ACS questions under the scale's choice orders and prompt formats.

    For every prompt (one question in one order and format) the model's next-token log-probabilities of the
    two letter families (' A', ' B', ... and 'A', 'B', ...) are read once and, with ``cache``, stored per
    (prompt, letter ids) in :func:`letter_logprob_cache_path`; a later run reads them back instead of running
    the model (they are deterministic), and re-derives every response from them.

    Parameters
    ----------
    scale : 'fast' or 'full' (see :data:`CONFIG`).
    loaded : :class:`neurips24.assets.smollm.LoadedModel` (``neurips24.assets.load_smollm()``); at ``full``
        scale its model is moved to the GPU when torch sees one.
    cache : read and write the letter log-probability cache (default True).

    Returns
    -------
    :class:`SurveyResult` (``n_cached``: how many of its prompts came from the cache).

    Raises
    ------
    ValueError for an unknown scale, or if an answer letter is not a single token.
    """
    import torch

    cfg = _config(scale)
    model, tok = loaded.model, loaded.tokenizer
    if scale == "full" and torch.cuda.is_available():
        model = model.to("cuda")   # the paper's set-up is a GPU job; the letters' probabilities come back to the CPU
    qs = questions()
    seconds = {"forward": 0.0, "softmax_gather": 0.0, "adjust": 0.0, "forward_measured": 0.0}
    t_start = time.perf_counter()
    path = letter_logprob_cache_path(loaded) if cache else None
    store = _load_cache(path)
    tag = Path(loaded.path).name
    responses, naive, letter_mass, n_prompts, n_cached = {}, {}, {}, 0, 0
    for fmt in cfg["naive_formats"]:
        prefix = letter_prefix(fmt)
        adjusted = fmt in cfg["adjusted_formats"]
        orders = {key: (orders_for(q.k, scale) if adjusted else np.arange(q.k)[None, :]) for key, q in qs.items()}
        prompts, owner = [], []
        for key, q in qs.items():
            for order in orders[key]:
                prompts.append(_prompts(fmt, tok, q, order))
                owner.append(key)
        owner = np.array(owner)
        ids = {p: [letter_token_ids(tok, qs[o].k, p) for o in owner] for p in (" ", "")}
        keys = {p: [_cache_key(tag, prompts[i], ids[p][i]) for i in range(len(prompts))] for p in (" ", "")}
        todo = [i for i in range(len(prompts)) if any(keys[p][i] not in store for p in (" ", ""))]
        n_cached += len(prompts) - len(todo)
        chunk = 1024
        for s in range(0, len(todo), chunk):
            rows = todo[s:s + chunk]
            before = seconds["forward"]
            logits = next_token_logits(model, tok, [prompts[i] for i in rows], max_tokens=cfg["max_tokens"],
                                       max_batch=cfg["max_batch"], seconds=seconds)
            per_prompt = (seconds["forward"] - before) / len(rows)
            for p in (" ", ""):
                logp = letter_logprobs(logits, [ids[p][i] for i in rows], seconds=seconds)
                for i, lp in zip(rows, logp, strict=True):
                    store[keys[p][i]] = {"logprobs": lp.tolist(), "forward_s": per_prompt}
        n_prompts += len(prompts)
        logp = {p: [np.asarray(store[keys[p][i]]["logprobs"], dtype=float) for i in range(len(prompts))]
                for p in (" ", "")}
        seconds["forward_measured"] += sum(store[keys[" "][i]]["forward_s"] for i in range(len(prompts)))
        P_all, mass_all = distributions_from_logprobs(logp[prefix])
        first = [i for i in range(len(prompts)) if i == 0 or owner[i] != owner[i - 1]]   # the naive prompts
        letter_mass[fmt] = {p: distributions_from_logprobs([logp[p][i] for i in first])[1] for p in (" ", "")}
        t0 = time.perf_counter()
        naive[fmt], per_q = {}, {}
        for key in qs:
            idx = np.flatnonzero(owner == key)
            P = np.stack([P_all[i] for i in idx])
            naive[fmt][key] = naive_response(P, orders[key])
            if adjusted:
                choice_p, p_adj = adjusted_response(P, orders[key])
                per_q[key] = Responses(orders[key], P, mass_all[idx], naive[fmt][key], choice_p, p_adj)
        if adjusted:
            responses[fmt] = per_q
        seconds["adjust"] += time.perf_counter() - t0
    if n_cached < n_prompts:
        _save_cache(path, store)
    seconds["total"] = time.perf_counter() - t_start
    return SurveyResult(scale, responses, naive, letter_mass, n_prompts, seconds, n_cached)


def census_comparison(result: SurveyResult, fmt: str = "plain", which: str = "p_adj") -> dict:
    """KL of the model's responses to the census and to uniform, on the covered questions (national values).

    Returns
    -------
    dict key -> {'kl_census', 'kl_uniform', 'closer'} (closer: KL(p, U) >= KL(p, census)), in bits.
    """
    if which not in ("p_adj", "naive"):
        raise ValueError(f"which must be 'p_adj' or 'naive', got {which!r}")
    out = {}
    for key in covered_questions():
        p = getattr(result.responses[fmt][key], which)
        c = float(kl_bits(p, census_distribution(key)))
        u = float(kl_to_uniform(p))
        out[key] = {"kl_census": c, "kl_uniform": u, "closer": u >= c}
    return out


@dataclass
class StateResult:
    """Divergence vs entropy over subgroups (one row per subgroup)."""

    names: list
    entropy: np.ndarray
    divergence: np.ndarray
    control_divergence: np.ndarray
    rho: float
    control_rho: float


def run_hicov_states(p_hicov, control_p=None) -> StateResult:
    """HICOV in the states with a sourced 2019 value: KL(p || q_s) against the normalised entropy H(q_s).

    Parameters
    ----------
    p_hicov : (2,) the model's HICOV response.
    control_p : (2,) the control responder (default: the least-uninsured state's own distribution, a
        low-entropy responder).

    Returns
    -------
    :class:`StateResult` with Spearman correlations for the model and the control.
    """
    names = [g for g in geographies("HICOV") if g != "US"]
    q = np.stack([census_distribution("HICOV", g) for g in names])
    if control_p is None:
        control_p = q[np.argmin(normalized_entropy(q))]
    H = subgroup_entropy([q])
    div = subgroup_divergence([p_hicov], [q])
    cdiv = subgroup_divergence([control_p], [q])
    return StateResult(names, H, div, cdiv, spearman(H, div), spearman(H, cdiv))


@dataclass
class SyntheticResult:
    """The subgroup artifact on synthetic Dirichlet states, one Spearman correlation per seed."""

    rho: np.ndarray
    control_rho: np.ndarray
    example: dict
    seeds: tuple = ()


def run_synthetic_states(result: SurveyResult, scale: str, fmt: str = "plain") -> SyntheticResult:
    """Spearman(H(s), div(m, s)) over SYNTHETIC states for SmolLM2's adjusted responses and for a control.

    The control responder answers every question with the states' own base profile m_Q (the low-entropy end
    of the synthetic states), so it must look closest to the *low*-entropy states. ESR and JWTRNS are left out,
    as in the paper.

    Returns
    -------
    :class:`SyntheticResult`: rho and control_rho of shape (state_seeds,), the seeds (through
    :mod:`neurips24.seeding`), and the first seed's states for a plot.
    """
    cfg = _config(scale)
    keys = [k for k in result.keys if k not in ("ESR", "JWTRNS")]
    p = [result.responses[fmt][k].p_adj for k in keys]
    ks = [len(x) for x in p]
    rho, crho, example = [], [], {}
    seeds = seeding.seeds(cfg["state_seeds"])
    for seed in seeds:
        q, bases, t = synthetic_states(ks, cfg["n_states"], cfg["concentration"], seed=seed)
        H = subgroup_entropy(q)
        div = subgroup_divergence(p, q)
        cdiv = subgroup_divergence(bases, q)
        rho.append(spearman(H, div))
        crho.append(spearman(H, cdiv))
        if seed == seeds[0]:
            example = {"entropy": H, "divergence": div, "control_divergence": cdiv}
    return SyntheticResult(np.array(rho), np.array(crho), example, seeds)
