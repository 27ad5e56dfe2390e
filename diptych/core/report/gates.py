"""The release gates of an audit as its report states them, beside the verdict block.

The gates are decided by the workspace exactly as ``diptych audit gate`` decides them (the
report only words them): a gate's figure, its value with the interval at the gate's adjusted
level, the rule, and pass, fail or inconclusive.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, replace
from typing import Any

from diptych.core.report.formatting import decided_name, figure_text, level_text


def _num(x: float | None) -> str:
    # The finding of the same figure prints it with the same function: the same digits.
    return "—" if x is None else figure_text(x)


def gate_interval(r: Any) -> str:
    """A gate's interval as every page prints a figure's: "12.0 to 40.5", or where it has
    none (no look held enough units to be tested, a figure of too few units) "no interval"
    and why, as the method says it ("anytime-valid over looks (…); no look yet holds …"),
    never an infinite bound."""
    low, high = r.ci_low, r.ci_high
    if low is not None and high is not None and math.isfinite(low) and math.isfinite(high):
        return f"{_num(low)} to {_num(high)}"
    method = str(getattr(r, "method", "") or "")
    why = method.split("; ", 1)[1] if "; " in method else "its figure has none"
    return f"no interval ({why})"


#: How a gate's interval made on one look at the design is named, as docs/gates.md names it.
FIXED_DESIGN = "fixed-design"


def interval_kind(method: str) -> str:
    """How a gate's interval was made, in the words every surface names it by:
    ``anytime-valid`` (over the looks of an audit bought until decided) or ``fixed-design``
    (one look at the design)."""
    return "anytime-valid" if method.startswith("anytime-valid") else FIXED_DESIGN


@dataclass(frozen=True)
class DecidedInterval:
    """The interval a gate decided a figure on: the one the report prints for that figure
    everywhere (finding, table of figures), named, so that a page never shows a figure with
    two intervals at one level."""

    low: float
    high: float
    level: str
    kind: str
    #: Where an anytime-valid interval stopped ("look 1 of 10"); empty for a fixed one.
    look: str = ""
    confidence: float = 0.95
    #: The gate whose interval this is, and every gate that read the figure (two gates of a
    #: Holm family read it at two levels: this is the first's).
    gate: str = ""
    gates: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return decided_name(self.confidence, self.kind, self.look)

    @property
    def whose(self) -> str:
        """The gate that decided on this interval, as a sentence names it: "its gate" where
        one gate read the figure, the gate by its name where more did."""
        return "its gate" if len(self.gates) <= 1 else f"the gate “{self.gate}”"

    @property
    def said(self) -> str:
        """What a figure printed with this interval says of it: "(the interval its gate decided
        on)", or with two gates which one, and that each read it at its own level."""
        if len(self.gates) <= 1:
            return "(the interval its gate decided on)"
        return (
            f"(the interval {self.whose} decided on; the figure's {len(self.gates)} gates each "
            "read it at their own level)"
        )


def bought_on(audit: Any) -> set[str]:
    """The parts of the audit whose run was bought on since its gates stopped it early (its
    figures are read at the look the gates decided on, each with its value since beside it)."""
    return {str(p.get("name")) for p in audit.scope.get("parts") or [] if p.get("bought_on")}


def read_whole(audit: Any) -> set[str]:
    """The parts of :func:`bought_on` whose run's tables and charts read all its trials, the
    trials its look read not rebuilt (``RunPart.whole_since``)."""
    whole = {part.id for part in audit.runs if part.whole_since}
    return {str(p.get("name")) for p in audit.scope.get("parts") or [] if p.get("run") in whole}


def _look(report: Any) -> str:
    sequential = getattr(report, "sequential", None)
    return str(sequential.at) if sequential is not None else ""


def decided_intervals(audit: Any) -> dict[tuple[str, str], DecidedInterval]:
    """The gates' intervals by (run id, figure), for the figures an audit's gates read
    directly (a ``no_regression`` gate reads a difference, not the figure). A run bought on
    since its gates stopped it has none here: its numbers already carry the look's reading,
    named with the value on all its trials since beside it, as ``diptych show`` prints them
    (:func:`diptych.core.workspace.decided.bought_on_numbers`)."""
    if audit.gates is None:
        return {}
    later = bought_on(audit)
    runs = {p.get("name"): p.get("run") for p in audit.scope.get("parts") or []}
    look = _look(audit.gates)
    out: dict[tuple[str, str], DecidedInterval] = {}
    readers: dict[tuple[str, str], list[str]] = {}
    for r in audit.gates.results:
        run = runs.get(r.part)
        if (
            run is None
            or r.part in later
            or r.ci_low is None
            or r.ci_high is None
            or r.rule == "no_regression"
        ):
            continue
        kind = interval_kind(getattr(r, "method", ""))
        readers.setdefault((str(run), r.figure), []).append(str(r.label))
        out.setdefault(
            (str(run), r.figure),
            DecidedInterval(
                r.ci_low,
                r.ci_high,
                level_text(r.confidence),
                kind,
                look if kind == "anytime-valid" else "",
                r.confidence,
                str(r.label),
            ),
        )
    return {key: replace(d, gates=tuple(readers[key])) for key, d in out.items()}


@dataclass(frozen=True)
class GateLine:
    """One gate's verdict as the report prints it."""

    label: str
    part: str
    figure: str
    verdict: str
    value: str
    interval: str
    level: str
    rule: str
    note: str
    #: The run of the gate's part, and how its interval was made (``anytime-valid``, ``fixed``).
    run: str = ""
    kind: str = FIXED_DESIGN
    #: The look the line reads ("look 1 of 4") where its run was bought on past it since: the
    #: figure's value and interval there, as the report's figures are read there too.
    reading: str = ""
    #: The interval's bounds, for a surface that prints it beside its value ("[−1.04, 24.2]",
    #: :func:`~diptych.core.report.formatting.bounds`) rather than in a sentence.
    low: float | None = None
    high: float | None = None

    @property
    def sentence(self) -> str:
        said = (
            f"{self.level} {self.kind} interval {self.interval}"
            if self.has_interval
            else self.interval
        )
        text = (
            f"{self.label}: {self.part} · {self.figure} = {self.value}, {said}; rule: {self.rule}."
        )
        return f"{text} {self.note[0].upper()}{self.note[1:]}." if self.note else text

    @property
    def has_interval(self) -> bool:
        return not self.interval.startswith("no interval")

    def to_dict(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "part": self.part,
            "figure": self.figure,
            "verdict": self.verdict,
            "value": self.value,
            "interval": self.interval,
            "level": self.level,
            "rule": self.rule,
            "note": self.note,
            "run": self.run,
            "kind": self.kind,
        }


def gate_lines(
    report: Any,
    runs: dict[str, str] | None = None,
    later: Collection[str] = (),
    whole: Collection[str] = (),
) -> list[GateLine]:
    """The lines of a decided :class:`~diptych.core.workspace.gates.GateReport` (read by its
    attributes: the report package does not import the workspace); ``runs``: each part's run;
    ``later``: the parts bought on since the gates stopped them (:func:`bought_on`), whose
    lines say they are the gate's reading at its look; ``whole``: those of them whose tables
    read all their trials (:func:`read_whole`), which the line says."""
    out = []
    look = _look(report)
    for r in report.results:
        note = r.note
        if r.part in later:
            said = (
                f"the gate's reading at {look or 'its look'}; the run was bought on since, and "
                "its figures in this report are read at that look too, each with its value on "
                "all the trials stored since beside it"
            )
            if r.part in whole:
                said = (
                    f"{said.replace('its figures', 'its headline figures')}; its tables and "
                    "charts per identity and per group read all its trials (the trials its look "
                    "read cannot be rebuilt), with intervals that do not hold after the stop"
                )
            note = f"{said}. {note[0].upper()}{note[1:]}" if note else said
        verdict = r.verdict
        if verdict == "inconclusive":
            verdict += " (blocks)" if r.blocks else f" ({r.on_inconclusive})"
        out.append(
            GateLine(
                label=r.label,
                part=r.part,
                figure=r.figure,
                verdict=verdict,
                value=_num(r.value),
                interval=gate_interval(r),
                level=level_text(r.confidence),
                rule=r.rule_text,
                note=note,
                run=(runs or {}).get(r.part, ""),
                kind=interval_kind(getattr(r, "method", "")),
                reading=(look or "its look") if r.part in later else "",
                low=r.ci_low,
                high=r.ci_high,
            )
        )
    return out


def gates_heading(report: Any) -> str:
    """The block's first line: the family, its level and its adjustment."""
    n = len(report.results)
    adjusted = (
        "Holm-adjusted so that the chance of any false verdict stays at that level"
        if report.family == "holm"
        else "each at that level, not adjusted as a family"
    )
    passed = sum(r.verdict == "pass" for r in report.results)
    heading = (
        f"Release gates of audit {report.audit_id}: {passed} of {n} pass; {n} gate"
        f"{'s' if n != 1 else ''} at {level_text(report.confidence)}, {adjusted}."
    )
    # Bought until decided (audit run --until-decided): when it stopped, and which intervals.
    sequential = getattr(report, "sequential", None)
    return f"{heading} {sequential.sentence()}" if sequential is not None else heading
