"""How the report's intervals were made, said from the figures it prints: the Limitations' line
on intervals and the glossary's "95% interval" are built here, so that a report never calls
an interval bootstrap or t that its gate decided anytime-valid, or a prediction-powered
interval a plain one.

A figure's interval is one of: the interval a release gate decided it on (anytime-valid over
the looks of an audit bought until decided, or fixed at the gate's level), for a figure no gate
read of a run its gates stopped early the anytime-valid interval of its own looks (or, where the
looks did not record it, its own interval, said not to hold after the stop), a prediction-powered
interval (people's labels of a sample with an annotator's of every person), or the figure's
own, by the method its number carries (``interval_method``: t, percentile bootstrap,
Jeffreys).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from diptych.core.audit.stopped import not_holding
from diptych.core.report.gates import FIXED_DESIGN
from diptych.core.report.interval_names import (
    AGREEMENT,
    own_method,
)

if TYPE_CHECKING:
    from diptych.core.probe import Table
    from diptych.core.report.audit import Audit


@dataclass(frozen=True)
class GateDecided:
    """A figure printed with the interval its release gate decided it on."""

    run: str
    figure: str
    kind: str
    level: str
    method: str
    look: str
    #: The gate that decided on it: "its gate", or by name where two gates read the figure.
    whose: str = "its gate"

    @property
    def sentence(self) -> str:
        if self.kind == "anytime-valid":
            return (
                f"{self.figure} of run {self.run} is printed with the {self.level} "
                f"anytime-valid interval {self.whose} decided on at {self.look}, which holds "
                f"however many looks were taken: {self.method}."
            )
        return (
            f"{self.figure} of run {self.run} is printed with the {self.level} fixed-design "
            f"interval {self.whose} decided on: {self.method}."
        )


@dataclass(frozen=True)
class StoppedFigures:
    """The figures of a run no gate read, its design stopped early by its audit's gates at
    ``look``: those printed with an anytime-valid interval over their own looks, and those
    whose looks did not record them, printed with a fixed-design interval that does not hold."""

    run: str
    look: str
    anytime: tuple[str, ...]
    fixed: tuple[str, ...]
    #: Bought on since its stop: its figures are read at the look, their values since beside.
    bought_on: bool = False
    #: Of a run bought on since: the figures a gate read, printed with the gate's interval.
    gated: tuple[str, ...] = ()

    @property
    def sentence(self) -> str:
        if self.bought_on:
            read = (
                f"Run {self.run} was bought on after its gates stopped it early at {self.look}: "
                f"its figures are read as its looks read them at {self.look}, each with the 95% "
                "anytime-valid interval of its looks (the gate's where a gate read it) and its "
                "value on all the trials stored since beside it, a value only: the looks' "
                "intervals hold at the looks of their spending plan, and a fixed-design "
                "interval of the trials stored since does not hold after the stop"
            )
            if self.fixed:
                read += f"; {_fixed_said(self.fixed)}"
            return f"{read}."
        said = []
        if self.anytime:
            said.append(
                f"{_listed(list(self.anytime))} {_are(self.anytime)} printed with the 95% "
                f"anytime-valid interval of {_its(self.anytime)} own looks, made as the gates' "
                "are: a fixed-design interval does not hold once the looks "
                "decided when to stop"
            )
        if self.fixed:
            said.append(_fixed_said(self.fixed))
        return (
            f"Run {self.run} stopped early at {self.look}, when its gates were decided; of the "
            f"figures no gate read, {'; '.join(said)}."
        )


def _fixed_said(names: tuple[str, ...]) -> str:
    """The figures printed with their own fixed-design intervals, which the looks did not
    record, each verb agreeing with how many there are."""
    if len(names) == 1:
        return (
            f"{names[0]} is printed with its fixed-design interval, which does not hold after "
            "the stop: the looks did not record it"
        )
    return (
        f"{_listed(list(names))} are printed with their fixed-design intervals, which do not "
        "hold after the stop: the looks did not record them"
    )


def _are(names: tuple[str, ...]) -> str:
    return "is" if len(names) == 1 else "are"


def _its(names: tuple[str, ...]) -> str:
    return "its" if len(names) == 1 else "their"


@dataclass(frozen=True)
class IntervalMethods:
    """The kinds of interval the report prints, in the order they are said."""

    gated: tuple[GateDecided, ...]
    own: tuple[str, ...]
    stopped: tuple[StoppedFigures, ...] = ()
    #: Whether a table or chart prints intervals named as not holding after a stop.
    tables_not_holding: bool = False
    #: Whether a run's human review prints its annotators' agreement with intervals.
    agreement: bool = False
    #: Whether a signed figure (a bias tested against 0) is printed with its interval.
    signed: bool = False
    #: Whether an agent's findings are printed, each with its bootstrap interval.
    agent: bool = False
    #: Whether a figure's own interval is printed named fixed-design, beside a gate's or a
    #: stop's (headlines.named_beside).
    fixed_beside: bool = False

    @property
    def sentences(self) -> list[str]:
        """The Limitations' lines on intervals: the figures' own, then each gate's."""
        out = []
        if self.own:
            out.append(
                f"The figures' 95% intervals are {_listed(list(self.own))}; they do not cover "
                "changes in the model between runs."
            )
        out += [g.sentence for g in self.gated]
        out += [s.sentence for s in self.stopped]
        return out

    @property
    def glossary(self) -> str:
        """What the glossary's "95% interval" adds for this report: the kinds it prints."""
        kinds = list(self.own)
        # A gated figure of a run bought on since its stop carries its gate's interval too.
        if any(g.kind == "anytime-valid" for g in self.gated) or any(s.gated for s in self.stopped):
            kinds.append(
                "for a figure a gate decided at a look of an audit bought until decided, "
                "anytime-valid over the looks"
            )
        if any(g.kind == FIXED_DESIGN for g in self.gated):
            kinds.append("for a figure a gate decided, fixed at the gate's level")
        if any(s.anytime for s in self.stopped):
            kinds.append(
                "for a figure no gate read of a run its gates stopped early, anytime-valid over "
                "its own looks"
            )
        if any(s.fixed for s in self.stopped) or self.tables_not_holding:
            kinds.append(
                "for a table, chart or figure of a run its gates stopped early that its looks "
                "did not record, fixed-design, which does not hold after the stop"
            )
        if self.fixed_beside:
            kinds.append(
                "for a figure no gate decided in a report that names its intervals, its own, "
                "fixed-design: made as though every trial planned was bought at once"
            )
        if self.agent:
            kinds.append("for an agent's findings, bootstrap over the units named beside each")
        if self.agreement:
            kinds.append(AGREEMENT)
        return f" In this report: {_listed(kinds)}." if kinds else ""


def _listed(items: list[str]) -> str:
    if len(items) < 2:
        return "".join(items)
    return "; ".join(items[:-1]) + "; and " + items[-1]


def figures_note(result: Any, decided: Any, beside: bool, run: str = "") -> str:
    """The line under a table of figures that names the intervals its cells print unnamed
    (each figure's own, where no gate decided it and no stop or other interval on the page
    named it), so that the table read on its own says what its intervals are; "" where every
    interval is named in its cell, or there is none."""
    from diptych.core.report.headlines import named_beside

    kinds: dict[str, None] = {}
    floors: list[str] = []
    for name, number in result.numbers.items():
        if (run, name) in decided or not _has_interval(number):
            continue
        if isinstance(number.get("floor"), str) and number["floor"]:
            # The n column counts observations; which units a floored interval rests on is
            # said here, as `diptych show` says it under its table.
            floors.append(f" The interval of {name} fell to its floor, {number['floor']}.")
        if named_beside(number, beside).get("interval_name"):
            continue
        kinds[own_method(number)] = None
    if not kinds:
        return "".join(floors).lstrip()
    return f"Its 95% intervals: {_listed(list(kinds))}." + "".join(floors)


def _has_interval(number: Any) -> bool:
    if not isinstance(number, dict):
        return False
    low, high = number.get("ci_low"), number.get("ci_high")
    return all(
        isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)
        for x in (low, high)
    )


def interval_methods(audit: Audit) -> IntervalMethods:
    """The kinds of interval the report's figures are printed with (its runs', comparisons'
    and agent sessions' figures; a gate's where a gate decided the figure)."""
    from diptych.core.report.gates import decided_intervals
    from diptych.core.report.headlines import FIXED_DESIGN, named_beside, names_intervals

    decided = decided_intervals(audit)
    beside = names_intervals(audit)
    fixed_beside = False
    methods: dict[tuple[str, str], str] = {}
    if audit.gates is not None:
        runs = {str(p.get("name")): str(p.get("run")) for p in audit.scope.get("parts") or []}
        # The first gate's method, as its interval is the one printed (decided_intervals).
        for r in audit.gates.results:
            methods.setdefault((runs.get(r.part, ""), r.figure), getattr(r, "method", ""))
    gated = [
        GateDecided(run, name, g.kind, g.level, methods.get((run, name), ""), g.look, g.whose)
        for (run, name), g in decided.items()
    ]
    own: dict[str, None] = {}
    stopped: dict[tuple[str, str], dict[str, list[str]]] = {}
    results = [(p.id, p.result) for p in audit.runs] + [("", c.result) for c in audit.comparisons]
    for run, result in results:
        for name, number in result.numbers.items():
            # A gate's interval is printed whether or not the figure has one of its own.
            if (run, name) in decided:
                continue
            if not _has_interval(number):
                continue
            if number.get("stopped_at"):
                # Said by its run's own sentence (StoppedFigures), not among the figures' own.
                kinds = stopped.setdefault((run, str(number["stopped_at"])), {})
                kind = "gate" if number.get("gate") else str(number.get("stopped_interval"))
                kinds.setdefault(kind, []).append(name)
                if number.get("bought_on"):
                    kinds.setdefault("bought-on", [])
                if number.get("stopped_interval") == "anytime-valid":
                    continue
            named = named_beside(number, beside).get("interval_name")
            fixed_beside = fixed_beside or named == FIXED_DESIGN
            own[own_method(number)] = None
    stops = tuple(
        StoppedFigures(
            run,
            look,
            tuple(k.get("anytime-valid", [])),
            tuple(k.get("fixed-design", [])),
            "bought-on" in k,
            tuple(k.get("gate", [])),
        )
        for (run, look), k in stopped.items()
    )
    tables = any(
        not_holding(str(getattr(t, "interval_name", "") or ""))
        for _, result in results
        for t in result.tables
    )
    agreement = any(
        _prints_interval(t) for p in audit.runs if p.review is not None for t in p.review.agreement
    )
    signed = any(_has_interval(n) and _signed(n) for _, r in results for n in r.numbers.values())
    return IntervalMethods(
        tuple(gated),
        tuple(own),
        stops,
        tables,
        agreement=agreement,
        signed=signed,
        agent=bool(audit.agent_sessions),
        fixed_beside=fixed_beside,
    )


def _signed(number: dict[str, Any]) -> bool:
    """Whether ``number`` is a bias with a direction: tested against 0, or on a range either
    side of it (STS's [−100, 100]); a share or an accuracy is neither."""
    low, high = (list(number.get("range") or []) + [None, None])[:2]
    spans = isinstance(low, int | float) and isinstance(high, int | float) and low < 0 < high
    return spans or "p_value" in number or "p" in number


def _prints_interval(table: Table) -> bool:
    """Whether a cell of ``table``'s interval columns ("κ 95% CI") holds an interval, not the
    words of one it has none of."""
    columns = [i for i, c in enumerate(table.columns) if "CI" in str(c)]
    return any(str(row[i]).startswith("[") for row in table.rows for i in columns if i < len(row))


__all__ = ["IntervalMethods", "interval_methods"]
