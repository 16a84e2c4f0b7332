"""Reproduction checks: assert a paper's claim on what the code computed, beside a control that must fail.

Every chapter's reproduction check goes through :func:`check`. A check has three parts:

- the **claim**, measured by the chapter's code, and whether it holds;
- a **control**: the same measurement, through the same code path, on a case where the claim must *not* hold
  (the baseline method, the other initialisation, shuffled labels). A control that holds too means the check
  does not discriminate, and :func:`check` raises, as it does for a claim that does not hold;
- for a noisy claim, an **interval** (:func:`binomial_interval`, :func:`bootstrap_interval`; SciPy computes
  both), recorded so that a reader sees the margin, not only the verdict.

A claim that a chapter knows does not reproduce at its scale is checked with ``expect="not reproduced"``: it is
recorded as such and does not fail the build, but it raises if it starts to hold (like pytest's strict xfail),
so that the chapter's text is revisited.

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

from .scale import scale as current_scale

ENV_VAR = "NEURIPS24_CLAIMS_DIR"
_T0 = time.perf_counter()   # when the process (in a chapter: the kernel) imported neurips24
EXPECT = ("holds", "not reproduced")
# outcome of a check -> the verdict a reader sees
VERDICTS = {"pass": "PASS", "not reproduced": "NOT REPRODUCED", "fail": "FAIL",
            "control holds": "FAIL: THE CONTROL HOLDS TOO", "unexpected pass": "FAIL: NOW HOLDS, REVISIT"}


@dataclass(frozen=True)
class Interval:
    """A confidence interval around an estimate, as a check records it.

    Attributes
    ----------
    estimate, low, high : float, the point estimate and the interval's ends (low <= high).
    level : float in (0, 1), the confidence level (0.95 for a 95 % interval).
    method : str, how it was computed, e.g. 'binomial (wilson), 13/16' or 'bootstrap (percentile), n=3'.
    """

    estimate: float
    low: float
    high: float
    level: float
    method: str

    def __str__(self) -> str:
        return f"{self.estimate:.3g} [{self.low:.3g}, {self.high:.3g}] ({self.level:.0%}, {self.method})"


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


def bootstrap_interval(samples, statistic: Callable = np.mean, level: float = 0.95, *,
                       method: str = "percentile", n_resamples: int = 9999, seed: int = 0) -> Interval:
    """Bootstrap confidence interval of ``statistic`` over independent samples (e.g. one value per seed).

    SciPy computes it: ``scipy.stats.bootstrap((samples,), statistic, ...)``. With few samples (3 to 8 seeds)
    the interval is rough; it still shows the spread, which a point estimate hides.

    Parameters
    ----------
    samples : (n,) array-like of finite floats, n >= 2.
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
    ValueError on fewer than 2 samples, non-finite samples, a level outside (0, 1), an unknown method or
    n_resamples < 100.
    """
    from scipy.stats import bootstrap

    x = np.asarray(samples, dtype=float)
    if x.ndim != 1 or x.size < 2:
        raise ValueError(f"samples must be a 1-d array of at least 2 values, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("samples must be finite (no NaN or inf)")
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


def check(claim_id: str, *, claim: str, measured, paper, holds=None, test: Callable | None = None,
          control: Mapping | None = None, interval: Interval | None = None, expect: str = "holds",
          paper_source: str | None = None, scale: str | None = None) -> Claim:
    """Assert one claim beside its control, record both, and show the check's card.

    Give either ``holds`` (computed by the caller from ``measured``) or ``test`` (a predicate applied to
    ``measured`` *and* to the control's measurement, so both go through the same rule).

    Parameters
    ----------
    claim_id : '<chapter>.<claim>', e.g. 'fno.relu_gain'; the part before the first dot names the chapter.
    claim : the claim in words, as the chapter states it.
    measured : what this run computed (a number, a string, or a small list/dict of numbers).
    paper : the paper's value or statement (a string such as '>= 10x' or a number).
    holds : bool, whether ``measured`` satisfies the claim (give this or ``test``).
    test : callable, ``test(measured) -> bool`` (give this or ``holds``).
    control : mapping with ``name`` (str: what the control is) and ``measured`` (its value), plus ``holds``
        (bool) when ``test`` is not given. The control must not hold.
    interval : :class:`Interval` of the measurement (from :func:`binomial_interval`, :func:`bootstrap_interval`).
    expect : 'holds' (default) or 'not reproduced': a claim the chapter shows does not reproduce here.
    paper_source : where the paper's value comes from (e.g. 'Fig. 4', 'Table 2').
    scale : the run scale; default: the current one (:func:`neurips24.scale`).

    Returns
    -------
    Claim (a dict), the record written: chapter, claim_id, claim, measured, paper, paper_source, holds,
    control (name, measured, holds; or None), interval (estimate, low, high, level, method; or None), expect,
    outcome ('pass', 'not reproduced', 'fail', 'control holds' or 'unexpected pass'), scale, time, elapsed_s
    (seconds since ``neurips24`` was imported, rounded to 0.1 s).

    Raises
    ------
    ValueError if ``claim_id`` has no '<chapter>.' prefix, both or neither of ``holds``/``test`` are given,
    ``control`` lacks its fields, or ``expect`` is unknown; TypeError if ``holds`` (or what ``test`` or the
    control gives) is not a bool, or ``interval`` is not an :class:`Interval`.
    AssertionError, after recording, when the check fails: the claim does not hold (expect='holds'), holds
    although the chapter says it does not reproduce (expect='not reproduced'), or the control holds too.
    """
    if not isinstance(claim_id, str) or "." not in claim_id or claim_id.startswith(".") or claim_id.endswith("."):
        raise ValueError(f"claim_id must look like '<chapter>.<claim>', got {claim_id!r}")
    if (holds is None) == (test is None):
        raise ValueError("give exactly one of holds (a bool) or test (a predicate on measured)")
    if expect not in EXPECT:
        raise ValueError(f"expect must be one of {EXPECT}, got {expect!r}")
    if interval is not None and not isinstance(interval, Interval):
        raise TypeError(f"interval must be a claims.Interval, got {type(interval).__name__}")
    holds = _bool("holds", test(measured) if test is not None else holds)
    control_record = _control(control, test)

    if control_record is not None and control_record["holds"]:
        outcome = "control holds"
    elif expect == "holds":
        outcome = "pass" if holds else "fail"
    else:
        outcome = "unexpected pass" if holds else "not reproduced"
    record = Claim({
        "chapter": claim_id.split(".", 1)[0],
        "claim_id": claim_id,
        "claim": claim,
        "measured": _plain(measured),
        "paper": _plain(paper),
        "paper_source": paper_source,
        "holds": holds,
        "control": control_record,
        "interval": _plain(asdict(interval)) if interval is not None else None,
        "expect": expect,
        "outcome": outcome,
        "scale": scale or current_scale(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "elapsed_s": round(time.perf_counter() - _T0, 1),
    })
    folder = claims_dir()
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{record['chapter']}.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(dict(record)) + "\n")
    card(record)
    if outcome not in ("pass", "not reproduced"):
        why = {"fail": "did not reproduce", "control holds": f"does not discriminate: its control "
               f"({control_record and control_record['name']}) holds too",
               "unexpected pass": "now holds although the chapter says it does not reproduce: revisit the text"}
        raise AssertionError(f"claim {claim_id!r} {why[outcome]}: measured {record['measured']!r}, "
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


def card_text(record: Mapping) -> str:
    """A check's card as plain text (what a script or a terminal prints)."""
    lines = [f"[{VERDICTS[record['outcome']]}] {record['claim_id']}: {record['claim']}",
             f"    paper: {format_value(record['paper'])}"
             + (f"  ({record['paper_source']})" if record.get("paper_source") else ""),
             f"    ours: {format_value(record['measured'])}"]
    if record.get("interval"):
        iv = record["interval"]
        lines.append(f"    interval: [{iv['low']:.3g}, {iv['high']:.3g}] ({iv['level']:.0%}, {iv['method']})")
    ctrl = record.get("control")
    lines.append(f"    control: {ctrl['name']}: {format_value(ctrl['measured'])} "
                 f"({'holds' if ctrl['holds'] else 'does not hold'})" if ctrl else "    control: none")
    return "\n".join(lines)


_COLOURS = {"pass": "#1a7f37", "not reproduced": "#9a6700"}


def card_anchor(claim_id: str) -> str:
    """The HTML ``id`` of a claim's card ('fno.chi_slope' -> 'claim-fno-chi_slope'), the target of the status
    page's links."""
    return "claim-" + re.sub(r"[^A-Za-z0-9_-]", "-", claim_id)


def card_html(record: Mapping) -> str:
    """A check's card as a small HTML block (in Jupyter, Colab and the book)."""
    esc = html.escape
    colour = _COLOURS.get(record["outcome"], "#cf222e")
    rows = [("Paper", format_value(record["paper"])
             + (f" ({record['paper_source']})" if record.get("paper_source") else "")),
            ("Ours", format_value(record["measured"]))]
    if record.get("interval"):
        iv = record["interval"]
        rows.append(("Interval", f"[{iv['low']:.3g}, {iv['high']:.3g}] ({iv['level']:.0%}, {iv['method']})"))
    ctrl = record.get("control")
    rows.append(("Control", f"{ctrl['name']}: {format_value(ctrl['measured'])} "
                 f"({'holds' if ctrl['holds'] else 'does not hold'})" if ctrl else "none"))
    body = "".join(f"<tr><th style='text-align:left;padding:1px 8px 1px 0;vertical-align:top'>{esc(k)}</th>"
                   f"<td style='text-align:left;padding:1px 0'>{esc(v)}</td></tr>" for k, v in rows)
    return (f"<div class='claim-card' id='{card_anchor(record['claim_id'])}' "
            f"data-claim-id='{esc(record['claim_id'])}' "
            f"data-outcome='{esc(record['outcome'])}' data-ours='{esc(format_value(record['measured']))}' "
            f"style='border-left:4px solid {colour};padding:4px 10px;margin:4px 0'>"
            f"<div><strong style='color:{colour}'>{esc(VERDICTS[record['outcome']])}</strong> "
            f"<code>{esc(record['claim_id'])}</code>: {esc(record['claim'])}</div>"
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
