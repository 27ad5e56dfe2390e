"""The cells of the report's agent findings table that hold figures among words: each interval
a line of its own, never broken between its bounds nor sharing a line with a name or a reason
(a reader scanning the column reads "[17.0, 56.6]" whole, and its name on the line under it).

A figure is one :class:`Shown`: whose it is ("marine biologist", "pair"), its value, its bounds
and the interval's name ("98.75% BH-adjusted interval"). As text (Markdown, the CLI) it reads
"marine biologist 37.2 [17.0, 56.6] (98.75% BH-adjusted interval)"; on the page the name of
whose it is, the value with its bounds, and the interval's name are three lines.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import markupsafe

from diptych.core.metrics.uncertainty.fcr import decided_interval, fcr_level
from diptych.core.report.charts.model import ChartPoint
from diptych.core.report.formatting import bounds, figure_text, no_interval, p_text

#: What an identity pair's q-value reads where its held-out test did not run.
NOT_TESTED = "not tested"
#: Why such a pair has no q-value (report.json's ``q_reason`` beside its null).
NOT_TESTED_REASON = "not tested: its held-out test did not run, so it has no q-value"


def q_across_text(m: int | None) -> str:
    """Over what Benjamini–Hochberg adjusted: the held-out tests that ran ("across 1 identity
    re-tested on held-out data"), none where none ran; "on the held-out tests" where the
    session did not record how many."""
    if m is None:
        return "on the held-out tests"
    if m == 0:
        return "across no identity: none was re-tested on held-out data"
    return f"across {m} {'identity' if m == 1 else 'identities'} re-tested on held-out data"


#: An interval in a sentence, with the value before it and the interval's name after it where
#: given ("37.2 [17.0, 56.6] (98.75% BH-adjusted interval)"), and the punctuation that closes
#: its clause (kept on its line: a line never starts with ", q = …").
_INTERVAL = re.compile(
    r"(?P<figure>(?:[−-]?[\d,]*\d(?:\.\d+)? )?\[[^\]\[]*,[^\]\[]*\])"
    r"(?: \((?P<name>[^()]*interval)\))?(?P<tail>[,;:]?)"
)


@dataclass(frozen=True)
class Shown:
    """One figure of a cell: whose it is, its value and bounds as printed, its interval's name."""

    who: str
    figure: str
    name: str = ""

    @property
    def text(self) -> str:
        said = f"{self.who} {self.figure}" if self.who else self.figure
        return f"{said} ({self.name})" if self.name else said

    @property
    def html(self) -> markupsafe.Markup:
        out = markupsafe.Markup("")
        if self.who:
            out += markupsafe.Markup('<span class="figure-who">{}</span>').format(self.who)
        # Bounds are kept whole on a line; words saying why there are none wrap.
        kept = "[" in self.figure
        line = '<span class="figure-line">{}</span>' if kept else "<span>{}</span>"
        out += markupsafe.Markup(line).format(self.figure)
        if self.name:
            out += markupsafe.Markup('<span class="interval-name">{}</span>').format(self.name)
        return out


def figures_text(shown: list[Shown]) -> str:
    return "; ".join(s.text for s in shown)


def figures_html(shown: list[Shown]) -> markupsafe.Markup:
    return markupsafe.Markup("").join(s.html for s in shown)


def sentence_html(text: str) -> markupsafe.Markup:
    """A reason's words with each interval it quotes on a line of its own (its value with it,
    its name on the line under it): "held-out: marine biologist (feminine)" / "37.2 [17.0,
    56.6]" / "98.75% BH-adjusted interval," / "outside the placebo band" / "[−20.9, 20.9],"
    / "q = 0.024 ≤ 0.05: confirmed"."""
    out, at = markupsafe.Markup(""), 0
    for m in _INTERVAL.finditer(text):
        out += markupsafe.escape(text[at : m.start()])
        name, tail = m.group("name"), m.group("tail")
        figure = m.group("figure") + ("" if name else tail)
        out += markupsafe.Markup('<span class="figure-line">{}</span>').format(figure)
        if name:
            out += markupsafe.Markup('<span class="interval-name">{}</span>').format(name + tail)
        at = m.end()
        # The words after it start their own line: no space to lead it.
        while at < len(text) and text[at] == " ":
            at += 1
    return out + markupsafe.escape(text[at:])


#: A q-value as a session's reason quoted it before it read by the rule of digits ("0.00204").
_Q_SAID = re.compile(r"\bq = (\d+(?:\.\d+)?(?:e-?\d+)?)")


def decided_reason(reason: str, heldout: Mapping[str, Any]) -> str:
    """A reason as the session now words it, from one saved before: each re-tested identity's
    figure with the interval its decision read (not its own 95% one beside the table's), and
    its q-value by the rule of digits."""
    for part in heldout.get("parts") or []:
        if not isinstance(part, Mapping) or "ci_adjusted" not in part:
            continue
        head = f"{part.get('identity')} ({part.get('side')}) {figure_text(part.get('value'))}"
        own = f"{head} {bounds(part.get('ci_low'), part.get('ci_high'))}"
        if own in reason and f"{own} (" not in reason:
            low, high, name = decided_interval(part)
            reason = reason.replace(own, f"{head} {bounds(low, high)} ({name})")
    return _Q_SAID.sub(lambda m: _q_said(float(m.group(1))), reason)


def _q_said(q: float) -> str:
    return "q < 0.001" if q < 0.001 else f"q = {p_text(q)}"


def part_shown(part: Mapping[str, Any]) -> Shown:
    """A re-tested identity's figure with the interval Benjamini–Hochberg decided on (the
    false-coverage-rate interval: it lies above 0 exactly where its q-value confirmed it),
    named with its confidence; its own 95% interval, so named, where the session made none."""
    low, high, name = decided_interval(part)
    shown = bounds(low, high)
    if shown == "—":
        return Shown(str(part.get("identity", "")), no_interval(dict(part)) or "—")
    return Shown(str(part.get("identity", "")), f"{figure_text(part.get('value'))} {shown}", name)


def heldout_points(heldout: Mapping[str, Any]) -> list[ChartPoint]:
    """A finding's held-out re-test on its chart as its table row shows it (``AgentFinding.
    heldout_shown``): each re-tested identity's figure with the interval its decision read,
    named (BH-adjusted, at its confidence); the pair's own 95% interval only where it is another
    figure (both identities re-tested), as the series "held-out pair"."""
    whole = _float(heldout.get("value"))
    parts = [p for p in heldout.get("parts") or [] if isinstance(p, Mapping)]
    parts = [p for p in parts if _float(p.get("value")) is not None]

    def point(series: str, figure: Mapping[str, Any], decided: bool) -> ChartPoint:
        low, high, name = (
            decided_interval(figure)
            if decided
            else (figure.get("ci_low"), figure.get("ci_high"), "95% interval")
        )
        why = str(figure.get("reason") or "")
        return ChartPoint(series, _float(figure.get("value")), _float(low), _float(high), why, name)

    if not parts:
        return [point("held-out", heldout, False)] if whole is not None else []
    if len(parts) == 1 and (whole is None or figure_text(parts[0]["value"]) == figure_text(whole)):
        return [point("held-out", parts[0], True)]
    each = [point(f"held-out: {p.get('identity', '')}", p, True) for p in parts]
    return each if whole is None else [point("held-out pair", heldout, False), *each]


def band_shown(who: str, band: Mapping[str, Any]) -> Shown:
    words = band.get("words")
    made = f"{words} words" if isinstance(words, int) else ""
    return Shown(who, f"[{figure_text(band['low'])}, {figure_text(band['high'])}]", made)


def session_level(decision: Any) -> float | None:
    """The confidence matching a session's Benjamini–Hochberg decision, from its tally."""
    if not isinstance(decision, Mapping):
        return None
    k, m = _int(decision.get("identities_confirmed")), _int(decision.get("identities_scored"))
    fdr = _float(decision.get("fdr"))
    return fcr_level(k, m, fdr) if k is not None and m and fdr is not None else None


def with_level(part: Any, level: float | None) -> Any:
    """A held-out part with the confidence of its BH-adjusted interval, where it has the
    interval and the session's tally gives the confidence."""
    if not isinstance(part, Mapping) or "ci_adjusted" not in part or level is None:
        return part
    return {"ci_adjusted_level": level, **part}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
