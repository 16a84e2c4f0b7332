"""Reproduction checks: assert a paper's claim on what the code computed, beside a control that must fail.

Every chapter's reproduction check goes through :func:`check`. A check has three parts:

- the **claim**, measured by the chapter's code, and whether it holds;
- a **control**: the same measurement, through the same code path, on a case where the claim must *not* hold
  (the baseline method, the other initialisation, shuffled labels). A control that holds too means the check
  does not discriminate, and :func:`check` raises, as it does for a claim that does not hold;
- for a noisy claim, an **interval** (:func:`t_interval` for a mean over seeds, :func:`binomial_interval` for a
  count of seeds that pass, :func:`bootstrap_interval` for 20 values or more; SciPy computes them), recorded so
  that a reader sees the margin, not only the verdict. Over fewer than 5 values an interval is the **range**,
  labelled as such, never "95 %";
- for a claim that rests on training or a random draw, the **per-seed values** (``per_seed=``, at least 3 seeds;
  5 at ``full``), which the card shows. Every seed goes through :mod:`neurips24.seeding`, so ``make reseed`` runs
  the book at another seed set; a claim whose verdict is known to depend on the draw says so (``fragile=``).

A claim that a chapter knows does not reproduce is checked with ``expect="not reproduced"`` and ``tried=`` (what
was run, including the paper's own value of each factor that decides it): it is recorded as such and does not
fail the build, but it raises if it starts to hold (like pytest's strict xfail), so that the chapter's text is
revisited. A claim whose paper setting cannot run at ``fast`` is ``expect="needs full scale"`` with the
``command=`` that runs it: NOT RUN HERE, counted apart from NOT REPRODUCED.

Each check appends a record to ``$NEURIPS24_CLAIMS_DIR/<chapter>.jsonl`` (default ``~/.cache/neurips24/claims``),
shows a card (claim, paper, ours, control, interval, verdict) and carries ``elapsed_s``, the seconds since this
module was first imported: in a chapter, whose setup cell imports ``neurips24`` first, that is the chapter's
run time up to the check. The book's status page is generated from these records (``python -m neurips24.status``).
"""
from __future__ import annotations

import html
import json
import math
import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from . import seeding
from .scale import scale as current_scale

ENV_VAR = "NEURIPS24_CLAIMS_DIR"
_T0 = time.perf_counter()   # when the process (in a chapter: the kernel) imported neurips24
EXPECT = ("holds", "not reproduced", "needs full scale")
# outcome of a check -> the verdict a reader sees
VERDICTS = {"pass": "PASS", "not reproduced": "NOT REPRODUCED", "not run here": "NOT RUN HERE", "fail": "FAIL",
            "control holds": "FAIL: THE CONTROL HOLDS TOO", "unexpected pass": "FAIL: NOW HOLDS, REVISIT"}
# the outcomes that do not fail a build
EXPECTED_OUTCOMES = ("pass", "not reproduced", "not run here")
MIN_SEEDS = {"fast": 3, "full": 5}
MIN_BOOTSTRAP = 20   # a percentile bootstrap over fewer values is their range


@dataclass(frozen=True)
class Interval:
    """A confidence interval around an estimate, as a check records it.

    Attributes
    ----------
    estimate, low, high : float, the point estimate and the interval's ends (low <= high).
    level : float in (0, 1), the confidence level (0.95 for a 95 % interval), or None for a range (the smallest
        and largest of a few values: no confidence level is claimed).
    method : str, how it was computed, e.g. 'binomial (wilson), 13/16' or 'Student t, n=6'.
    """

    estimate: float
    low: float
    high: float
    level: float | None
    method: str

    def __str__(self) -> str:
        return f"{self.estimate:.3g} [{self.low:.3g}, {self.high:.3g}] ({interval_label(self)})"


def interval_label(iv) -> str:
    """'95 %, <method>' for a confidence interval, '<method>' (which says 'range') for a range; ``iv`` is an
    :class:`Interval` or its recorded dict."""
    level = iv["level"] if isinstance(iv, Mapping) else iv.level
    method = iv["method"] if isinstance(iv, Mapping) else iv.method
    return method if level is None else f"{level:.0%}, {method}"


def _check_level(level) -> float:
    if isinstance(level, bool) or not isinstance(level, (int, float, np.floating)) or not 0 < level < 1:
        raise ValueError(f"level must be a number in (0, 1), got {level!r}")
    return float(level)


def binomial_interval(k: int, n: int, level: float = 0.95, method: str = "wilson") -> Interval:
    """Confidence interval for a proportion k/n (seeds that reach a minimum, runs that get stuck, ...).

    SciPy computes it: ``scipy.stats.binomtest(k, n).proportion_ci(level, method)``.

    Parameters
    ----------
    k : int, successes, 0 <= k <= n.
    n : int, trials, n >= 1.
    level : confidence level in (0, 1).
    method : 'wilson' (default), 'wilsoncc' or 'exact' (Clopper-Pearson), as SciPy names them.

    Returns
    -------
    Interval with estimate k/n.

    Raises
    ------
    ValueError if k or n is not an integer, n < 1, k outside [0, n], level outside (0, 1) or method unknown.
    """
    from scipy.stats import binomtest

    for name, value in (("k", k), ("n", n)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"{name} must be an integer, got {value!r}")
    if n < 1 or not 0 <= k <= n:
        raise ValueError(f"need n >= 1 and 0 <= k <= n, got k={k!r}, n={n!r}")
    if method not in ("wilson", "wilsoncc", "exact"):
        raise ValueError(f"method must be 'wilson', 'wilsoncc' or 'exact', got {method!r}")
    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=_check_level(level), method=method)
    return Interval(k / n, float(ci.low), float(ci.high), float(level), f"binomial ({method}), {k}/{n}")


def _values(name: str, values, minimum: int) -> np.ndarray:
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or x.size < minimum:
        raise ValueError(f"{name} must be a 1-d array of at least {minimum} values, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    return x


def range_interval(values) -> Interval:
    """The range [min, max] of a few values around their mean, labelled as a range (``level`` None).

    Raises
    ------
    ValueError on fewer than 2 values or non-finite values.
    """
    x = _values("values", values, 2)
    return Interval(float(x.mean()), float(x.min()), float(x.max()), None, f"range of n={x.size} values")


def t_interval(values, level: float = 0.95) -> Interval:
    """Mean of independent values (one per seed) with a Student-t interval; over fewer than 5 values, the range.

    SciPy computes it: ``scipy.stats.t.interval(level, n - 1, loc=mean, scale=sem)``. With 2 to 4 values a
    t-interval is too wide to mean much and too easily mistaken for a "95 %" band of a few draws, so the
    :func:`range_interval` is returned instead (``level`` None, method 'range of n=3 values').

    Parameters
    ----------
    values : (n,) array-like of finite floats, n >= 2 (e.g. one measurement per seed).
    level : confidence level in (0, 1).

    Returns
    -------
    Interval with estimate the mean.

    Raises
    ------
    ValueError on fewer than 2 values, non-finite values or a level outside (0, 1).
    """
    from scipy import stats

    x = _values("values", values, 2)
    level = _check_level(level)
    if x.size < 5:
        return range_interval(x)
    mean = float(x.mean())
    sem = float(stats.sem(x))
    low, high = (mean, mean) if sem == 0 else stats.t.interval(level, x.size - 1, loc=mean, scale=sem)
    return Interval(mean, float(low), float(high), level, f"Student t, n={x.size}")


def bootstrap_interval(samples, statistic: Callable = np.mean, level: float = 0.95, *,
                       method: str = "percentile", n_resamples: int = 9999, seed: int = 0) -> Interval:
    """Bootstrap confidence interval of ``statistic`` over independent samples (e.g. one value per seed).

    SciPy computes it: ``scipy.stats.bootstrap((samples,), statistic, ...)``. A percentile bootstrap over a
    handful of values is only their range, so it needs at least 20 samples (over seeds use :func:`t_interval`).

    Parameters
    ----------
    samples : (n,) array-like of finite floats, n >= 20.
    statistic : callable mapping an (n,) array to a float (default: the mean); it must accept ``axis``.
    level : confidence level in (0, 1).
    method : 'percentile' (default; stable with few samples), 'basic' or 'BCa'.
    n_resamples : int >= 100.
    seed : int >= 0, seeds the resampling (the interval is reproducible).

    Returns
    -------
    Interval with estimate ``statistic(samples)``.

    Raises
    ------
    ValueError on fewer than 20 samples, non-finite samples, a level outside (0, 1), an unknown method or
    n_resamples < 100.
    """
    from scipy.stats import bootstrap

    x = _values("samples", samples, MIN_BOOTSTRAP)
    if method not in ("percentile", "basic", "BCa"):
        raise ValueError(f"method must be 'percentile', 'basic' or 'BCa', got {method!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 100:
        raise ValueError(f"n_resamples must be an integer >= 100, got {n_resamples!r}")
    level = _check_level(level)
    estimate = float(statistic(x))
    if np.ptp(x) == 0:   # every sample equal: SciPy warns and returns NaN; the interval is the point
        low = high = estimate
    else:
        res = bootstrap((x,), statistic, confidence_level=level, method=method, n_resamples=int(n_resamples),
                        rng=np.random.default_rng(seed))
        low, high = float(res.confidence_interval.low), float(res.confidence_interval.high)
    name = getattr(statistic, "__name__", "statistic")
    return Interval(estimate, low, high, level, f"bootstrap ({method}) of the {name}, n={x.size}")


def elapsed_s() -> float:
    """Seconds of wall time since this process imported ``neurips24`` (in a chapter: since its setup cell), the
    clock every record's ``elapsed_s`` reads; a chapter glues it after its last check for its title card's time."""
    return round(time.perf_counter() - _T0, 1)


def claims_dir() -> Path:
    """Folder the records go to: ``$NEURIPS24_CLAIMS_DIR`` or ``~/.cache/neurips24/claims``."""
    env = os.environ.get(ENV_VAR)
    return Path(env) if env else Path.home() / ".cache" / "neurips24" / "claims"


class Claim(dict):
    """The record :func:`check` wrote, as a dict. :func:`check` has already shown its card, so a notebook
    that ends a cell with a check does not echo it again; ``card(record)`` shows it once more."""

    def _ipython_display_(self):
        return None


def _bool(name: str, value) -> bool:
    if isinstance(value, np.bool_):
        return bool(value)
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {type(value).__name__}")
    return value


def _evaluate(claim_id, claim, measured, paper, holds, test, control, interval, expect, paper_source, scale,
              per_seed, tried, command, fragile) -> dict:
    """Validate a check's arguments and compute its record (everything but the time stamps)."""
    if not isinstance(claim_id, str) or "." not in claim_id or claim_id.startswith(".") or claim_id.endswith("."):
        raise ValueError(f"claim_id must look like '<chapter>.<claim>', got {claim_id!r}")
    if expect not in EXPECT:
        raise ValueError(f"expect must be one of {EXPECT}, got {expect!r}")
    if holds is not None and test is not None:
        raise ValueError("give exactly one of holds (a bool) or test (a predicate on measured)")
    if holds is None and test is None and expect != "needs full scale":
        raise ValueError("give exactly one of holds (a bool) or test (a predicate on measured)")
    if interval is not None and not isinstance(interval, Interval):
        raise TypeError(f"interval must be a claims.Interval, got {type(interval).__name__}")
    if expect == "not reproduced" and not (isinstance(tried, str) and tried.strip()):
        raise ValueError("expect='not reproduced' needs tried= (what was run, with the paper's own value of "
                         "each factor that decides the claim)")
    if expect == "needs full scale" and not (isinstance(command, str) and command.strip()):
        raise ValueError("expect='needs full scale' needs command= (the command that runs the paper's setting)")
    for name, value in (("tried", tried), ("command", command), ("fragile", fragile)):
        if value is not None and not (isinstance(value, str) and value.strip()):
            raise ValueError(f"{name} must be a non-empty string (a reason or a command), got {value!r}")
    scale = scale or current_scale()
    seeds_record = _per_seed(per_seed, scale)
    if holds is None and test is None:
        holds = None
    else:
        holds = _bool("holds", test(measured) if test is not None else holds)
    control_record = _control(control, test)

    if control_record is not None and control_record["holds"]:
        outcome = "control holds"
    elif expect == "needs full scale":
        outcome = "not run here"
    elif expect == "holds":
        outcome = "pass" if holds else "fail"
    else:
        outcome = "unexpected pass" if holds else "not reproduced"
    return {
        "chapter": claim_id.split(".", 1)[0],
        "claim_id": claim_id,
        "claim": claim,
        "measured": _plain(measured),
        "paper": _plain(paper),
        "paper_source": paper_source,
        "holds": holds,
        "control": control_record,
        "interval": _plain(asdict(interval)) if interval is not None else None,
        "per_seed": seeds_record,
        "expect": expect,
        "tried": tried,
        "command": command,
        "fragile": fragile,
        "seed_offset": seeding.offset(),
        "outcome": outcome,
        "scale": scale,
    }


def _per_seed(per_seed, scale: str) -> dict | None:
    """``{seed: value}`` checked (int seeds, at least MIN_SEEDS[scale] of them) and made JSON-ready."""
    if per_seed is None:
        return None
    if not isinstance(per_seed, Mapping):
        raise TypeError(f"per_seed must be a mapping {{seed: value}}, got {type(per_seed).__name__}")
    for key in per_seed:
        if isinstance(key, bool) or not isinstance(key, (int, np.integer)) or key < 0:
            raise ValueError(f"per_seed keys must be seeds (ints >= 0), got {key!r}")
    need = MIN_SEEDS.get(scale, 3)
    if len(per_seed) < need:
        raise ValueError(f"per_seed needs at least {need} seeds at scale {scale!r}, got {len(per_seed)}")
    return {str(int(k)): _plain(v) for k, v in per_seed.items()}


def outcome(claim_id: str, *, claim: str = "", measured=None, paper=None, holds=None, test: Callable | None = None,
            control: Mapping | None = None, interval: Interval | None = None, expect: str = "holds",
            paper_source: str | None = None, scale: str | None = None, per_seed: Mapping | None = None,
            tried: str | None = None, command: str | None = None, fragile: str | None = None) -> str:
    """The outcome :func:`check` would give with these arguments, without recording, showing or raising on it.

    Returns
    -------
    str: 'pass', 'not reproduced', 'not run here', 'fail', 'control holds' or 'unexpected pass'.

    Raises
    ------
    The ValueError/TypeError :func:`check` raises on invalid arguments.
    """
    return _evaluate(claim_id, claim, measured, paper, holds, test, control, interval, expect, paper_source,
                     scale, per_seed, tried, command, fragile)["outcome"]


def check(claim_id: str, *, claim: str, measured, paper, holds=None, test: Callable | None = None,
          control: Mapping | None = None, interval: Interval | None = None, expect: str = "holds",
          paper_source: str | None = None, scale: str | None = None, per_seed: Mapping | None = None,
          tried: str | None = None, command: str | None = None, fragile: str | None = None) -> Claim:
    """Assert one claim beside its control, record both, and show the check's card.

    Give either ``holds`` (computed by the caller from ``measured``) or ``test`` (a predicate applied to
    ``measured`` *and* to the control's measurement, so both go through the same rule).

    Parameters
    ----------
    claim_id : '<chapter>.<claim>', e.g. 'fno.relu_gain'; the part before the first dot names the chapter.
    claim : the claim in words, as the chapter states it.
    measured : what this run computed (a number, a string, or a small list/dict of numbers); for a claim over
        seeds, the aggregate the rule judges (a mean, a count of seeds).
    paper : the paper's value or statement (a string such as '>= 10x' or a number).
    holds : bool, whether ``measured`` satisfies the claim (give this or ``test``).
    test : callable, ``test(measured) -> bool`` (give this or ``holds``).
    control : mapping with ``name`` (str: what the control is) and ``measured`` (its value), plus ``holds``
        (bool) when ``test`` is not given. The control must not hold.
    interval : :class:`Interval` of the measurement (:func:`t_interval`, :func:`binomial_interval`,
        :func:`bootstrap_interval`).
    expect : 'holds' (default); 'not reproduced' (a claim the chapter shows does not reproduce here, after
        trying the paper's setting: give ``tried``); or 'needs full scale' (the paper's setting cannot run at
        this scale: NOT RUN HERE; give ``command``; ``holds``/``test`` optional, e.g. from a shipped record).
    paper_source : where the paper's value comes from (e.g. 'Fig. 4', 'Table 2').
    scale : the run scale; default: the current one (:func:`neurips24.scale`).
    per_seed : mapping ``{seed: value}``, the value of each seed behind an aggregate (at least 3 seeds; 5 at
        ``full``). Seeds are the ones actually used (through :mod:`neurips24.seeding`).
    tried : what was run before recording 'not reproduced' (the paper's own epochs, batch, γ, prompt, seeds).
    command : the command that runs the paper's setting (with ``expect='needs full scale'``).
    fragile : why the verdict depends on the seed. At the base seed set (offset 0) the check asserts as usual;
        at another seed set (``$NEURIPS24_SEED_OFFSET`` > 0) a verdict that differs is recorded without raising,
        a control that holds there too included (the seed set cannot tell the claim from its control).

    Returns
    -------
    Claim (a dict), the record written: chapter, claim_id, claim, measured, paper, paper_source, holds,
    control (name, measured, holds; or None), interval (estimate, low, high, level, method; or None), per_seed
    ({seed: value} or None), expect, tried, command, fragile, seed_offset, outcome ('pass', 'not reproduced',
    'not run here', 'fail', 'control holds' or 'unexpected pass'), scale, time, elapsed_s (seconds since
    ``neurips24`` was imported, rounded to 0.1 s).

    Raises
    ------
    ValueError if ``claim_id`` has no '<chapter>.' prefix, both or neither of ``holds``/``test`` are given (for
    'needs full scale' neither is allowed), ``control`` lacks its fields, ``expect`` is unknown, 'not reproduced'
    comes without ``tried`` or 'needs full scale' without ``command``, or ``per_seed`` has too few seeds;
    TypeError if ``holds`` (or what ``test`` or the control gives) is not a bool, or ``interval`` is not an
    :class:`Interval`.
    AssertionError, after recording, when the check fails: the claim does not hold (expect='holds'), holds
    although the chapter says it does not reproduce (expect='not reproduced'), or the control holds too.
    """
    record = Claim(_evaluate(claim_id, claim, measured, paper, holds, test, control, interval, expect,
                             paper_source, scale, per_seed, tried, command, fragile))
    record["time"] = time.strftime("%Y-%m-%dT%H:%M:%S")
    record["elapsed_s"] = elapsed_s()
    folder = claims_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{record['chapter']}.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(dict(record)) + "\n")
    card(record)
    outcome_ = record["outcome"]
    # a claim declared fragile records whatever another seed set gives (its control holding there too: the
    # chapter's fragile text must say so); at the base seed set it asserts like any other
    tolerated = fragile and record["seed_offset"] != 0 and outcome_ in ("fail", "unexpected pass", "control holds")
    if outcome_ not in EXPECTED_OUTCOMES and not tolerated:
        ctrl = record["control"]
        why = {"fail": "did not reproduce", "control holds": f"does not discriminate: its control "
               f"({ctrl and ctrl['name']}) holds too",
               "unexpected pass": "now holds although the chapter says it does not reproduce: revisit the text"}
        raise AssertionError(f"claim {claim_id!r} {why[outcome_]}: measured {record['measured']!r}, "
                             f"paper {record['paper']!r}")
    return record


def _control(control, test) -> dict | None:
    if control is None:
        return None
    if not isinstance(control, Mapping) or "name" not in control or "measured" not in control:
        raise ValueError("control must be a mapping with 'name' and 'measured' (and 'holds' without test)")
    if test is not None and "holds" in control:
        raise ValueError("with test, the control's 'holds' is computed: do not give it")
    if test is None and "holds" not in control:
        raise ValueError("without test, the control needs 'holds' (a bool)")
    holds = test(control["measured"]) if test is not None else control["holds"]
    return {"name": str(control["name"]), "measured": _plain(control["measured"]),
            "holds": _bool("control holds", holds)}


def _seed_values(per_seed: Mapping) -> str:
    return ", ".join(f"{k}: {format_value(v)}" for k, v in per_seed.items())


def paper_text(record: Mapping) -> str:
    """The paper's value with its source in brackets ('0.624 (Fig. 4)'), the source left out where the value's text
    already names it ('... (abstract)' is not followed by '(abstract)' again)."""
    text, source = format_value(record["paper"]), record.get("paper_source")
    return text + (f" ({source})" if source and str(source).lower() not in text.lower() else "")


def why_category(record: Mapping) -> str:
    """Why a record has its verdict, as one of the categories a reader scans: 'passed, and its control failed',
    'below the book's threshold at this scale', 'NOT RUN HERE: the paper's setting needs full scale', 'fragile
    across seeds' (declared), or 'failed: <outcome>'. The card's Tried, Command and Seeds rows, and the status
    page's Why column, give the details."""
    outcome = record.get("outcome") or ("pass" if record.get("holds") else "fail")
    if outcome == "not run here":
        return "NOT RUN HERE: the paper's setting needs full scale"
    if record.get("fragile"):
        return "fragile across seeds"
    if outcome == "pass":
        return "passed, and its control failed"
    if outcome == "not reproduced":
        return "below the book's threshold at this scale"
    return f"failed: {outcome}"


def card_rows(record: Mapping) -> list[tuple[str, str]]:
    """The rows of a check's card, (label, text), in the order a reader needs them: the paper, ours, each seed's
    value, the interval, the control, why the verdict is what it is (:func:`why_category`), then what was tried,
    the command of a claim not run here, and whether the verdict depends on the seed."""
    rows = [("Paper", paper_text(record)), ("Ours", format_value(record["measured"]))]
    if record.get("per_seed"):
        rows.append((f"Per seed ({len(record['per_seed'])})", _seed_values(record["per_seed"])))
    if record.get("interval"):
        iv = record["interval"]
        rows.append(("Interval", f"[{iv['low']:.3g}, {iv['high']:.3g}] ({interval_label(iv)})"))
    ctrl = record.get("control")
    rows.append(("Control", f"{ctrl['name']}: {format_value(ctrl['measured'])} "
                 f"({'holds' if ctrl['holds'] else 'does not hold'})" if ctrl else "none"))
    rows.append(("Why", why_category(record)))
    if record.get("tried"):
        rows.append(("Tried", record["tried"]))
    if record.get("command"):
        rows.append(("Command", record["command"]))
    if record.get("fragile"):
        rows.append(("Seeds", f"the verdict depends on the seed: {record['fragile']}"))
    return rows


def card_text(record: Mapping) -> str:
    """A check's card as plain text (what a script or a terminal prints)."""
    lines = [f"[{VERDICTS[record['outcome']]}] {record['claim_id']}: {record['claim']}"]
    lines += [f"    {label.lower()}: {text}" for label, text in card_rows(record)]
    return "\n".join(lines)


_COLOURS = {"pass": "#1a7f37", "not reproduced": "#9a6700", "not run here": "#57606a"}


def card_anchor(claim_id: str) -> str:
    """The HTML ``id`` of a claim's card ('fno.chi_slope' -> 'claim-fno-chi_slope'), the target of the status
    page's links."""
    return "claim-" + re.sub(r"[^A-Za-z0-9_-]", "-", claim_id)


def outcome_class(outcome_: str) -> str:
    """The CSS class of an outcome ('not reproduced' -> 'claim-not-reproduced'); the book's stylesheet colours
    it in light and dark mode."""
    return "claim-" + outcome_.replace(" ", "-")


def card_html(record: Mapping) -> str:
    """A check's card as a small HTML block (in Jupyter, Colab and the book). The inline colours serve Jupyter
    and Colab; in the book the classes (``claim-card``, :func:`outcome_class`) take over, in both colour modes."""
    esc = html.escape
    colour = _COLOURS.get(record["outcome"], "#cf222e")
    body = "".join(f"<tr><th style='text-align:left;padding:1px 8px 1px 0;vertical-align:top'>{esc(k)}</th>"
                   f"<td style='text-align:left;padding:1px 0'>{esc(v)}</td></tr>" for k, v in card_rows(record))
    return (f"<div class='claim-card {outcome_class(record['outcome'])}' id='{card_anchor(record['claim_id'])}' "
            f"data-claim-id='{esc(record['claim_id'])}' "
            f"data-outcome='{esc(record['outcome'])}' data-ours='{esc(format_value(record['measured']))}' "
            f"style='border-left:4px solid {colour};padding:4px 10px;margin:4px 0'>"
            f"<div><strong class='claim-verdict' style='color:{colour}'>{esc(VERDICTS[record['outcome']])}</strong> "
            f"<code class='claim-id'>{esc(record['claim_id'])}</code>: {esc(record['claim'])}</div>"
            f"<table style='border:none;margin:2px 0;font-size:0.9em'>{body}</table></div>")


def card(record: Mapping) -> None:
    """Show a check's card: as HTML inside an IPython kernel, as text elsewhere."""
    try:
        from IPython import get_ipython
        from IPython.display import HTML, display
    except ImportError:   # pragma: no cover - IPython is a dependency
        get_ipython = None
    if get_ipython is not None and get_ipython() is not None and hasattr(get_ipython(), "kernel"):
        display(HTML(card_html(record)), metadata={"text/plain": card_text(record)})
    else:
        print(card_text(record))


def format_value(value) -> str:
    """A recorded value as short text: numbers to 3 significant digits, dicts as 'key: value; ...'."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {format_value(v)}" for k, v in value.items())
    if isinstance(value, list):
        return "[" + ", ".join(format_value(v) for v in value) + "]"
    return str(value)


def load(chapter: str | None = None) -> list[dict]:
    """The recorded claims (all chapters, or one), latest record per claim_id, in file order."""
    folder = claims_dir()
    files = [folder / f"{chapter}.jsonl"] if chapter else sorted(folder.glob("*.jsonl"))
    latest: dict[str, dict] = {}
    for path in files:
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    rec = json.loads(line)
                    latest[rec["claim_id"]] = rec
    return list(latest.values())


def _plain(value):
    """Convert NumPy scalars/arrays (and containers of them) to JSON-ready Python values."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "tolist"):
        return _plain(value.tolist())
    if isinstance(value, float):
        return float(f"{value:.6g}") if math.isfinite(value) else str(value)
    return value
