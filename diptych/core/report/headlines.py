"""A figure's interval as the report's tables of figures and its headlines print it, named.

A gate's interval is printed named ("95% anytime-valid interval, look 2 of 4"), and so is
every interval of a design stopped early on its gates (the anytime-valid one of its looks, or
its own named as not holding after the stop). On a page that names one interval, every other
interval of its tables of figures and of its headlines is named too: a figure no gate or stop
named keeps its own interval, named "95% fixed-design interval" — a design read whole after
its gates' looks was not stopped on what they showed — so that no interval stands unnamed
beside a named one, as ``diptych show`` and the terminal app print them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import markupsafe

from diptych.core.report.formatting import (
    decided_name,
    figure_text,
    interval,
    no_interval,
    p_text,
    sample_size,
)
from diptych.core.report.gates import decided_intervals
from diptych.core.report.missing_intervals import TOO_FEW_UNITS
from diptych.core.report.quick_look import QUICK_LOOK, quick_look

if TYPE_CHECKING:
    from diptych.core.report.audit import Audit, RunPart

#: Significance level of the "significant" the summary writes beside a p-value.
ALPHA = 0.05
#: The name of a figure's own interval beside an interval a gate or a stop named.
FIXED_DESIGN = decided_name(0.95, "fixed-design")
#: A missing interval whose figure does not say why: still words, never a bare dash.
NO_INTERVAL = f"no interval ({TOO_FEW_UNITS})"


def names_intervals(audit: Audit) -> bool:
    """Whether the report names its intervals: it is of gates (whose intervals a reader must
    tell from a figure's own, though none they read is printed here, as where a gate reads a
    difference or the run was bought on since), or it names an interval of a figure, one of a
    design stopped early on its gates (a number's ``interval_name``). Then every other
    interval its tables of figures, headlines and findings print is named too
    (:func:`named_beside`)."""
    if audit.gates is not None or decided_intervals(audit):
        return True
    results = [p.result for p in audit.runs] + [c.result for c in audit.comparisons]
    return any(
        isinstance(number, Mapping) and number.get("interval_name")
        for result in results
        for number in result.numbers.values()
    )


def named_beside(number: Mapping[str, Any], beside: bool) -> dict[str, Any]:
    """``number`` as a page that names another interval (``beside``) prints it: its own
    interval, where it has one and nothing named it, named :data:`FIXED_DESIGN`."""
    shown = dict(number)
    if beside and not shown.get("interval_name") and interval(shown).startswith("["):
        shown["interval_name"] = FIXED_DESIGN
    return shown


def figure_interval(
    number: dict[str, Any], decided: Any = None, beside: bool = False, *, html: bool = False
) -> Any:
    """A figure's interval in a table: the one its gate decided on where a gate read it
    (named), else its own 95% interval, named where the page names another (``beside``). The
    name is words of its own, never run into the bounds: on the page a line under them
    ("[−1.16, 23.8]" / "95% anytime-valid interval, look 1 of 10"), in Markdown after a
    semicolon. The bracketed pair is one unbreakable token: a narrow screen scrolls the table
    rather than wrap it."""
    if decided is None:
        # A figure of a design stopped early on its gates names its interval too (anytime-valid,
        # or fixed-design and not holding after the stop): words of their own, as a gate's.
        number = named_beside(number, beside)
        name = str(number.get("interval_name") or "")
        bounds_text = interval({**number, "interval_name": None})
    else:
        bounds_text = interval({"ci_low": decided.low, "ci_high": decided.high})
        name = str(decided.name)
    if bounds_text == "—":
        # No interval says why, in the words of `diptych show` ("no interval (a diagnostic)").
        return _no_interval_cell(number, html=html)
    if not html:
        return bounds_text + (f"; {name}" if name else "")
    shown = markupsafe.Markup('<span class="nowrap">{}</span>').format(bounds_text)
    if name:
        shown += markupsafe.Markup('<span class="interval-name">{}</span>').format(name)
    return shown


def _no_interval_cell(number: Mapping[str, Any], *, html: bool) -> Any:
    text = no_interval(number) or NO_INTERVAL
    if not html:
        return text
    return markupsafe.Markup('<span class="no-interval">{}</span>').format(text)


#: The level an interval's name starts with ("97.5% fixed-design interval").
LEVEL = re.compile(r"(\d+(?:\.\d+)?%) ")


@dataclass(frozen=True)
class Headline:
    """One headline figure of one run, as the summary table and sentence give it."""

    run: str
    anchor: str
    probe: str
    name: str
    value: str
    interval: str
    n: str
    p: str
    sentence: str
    #: Why the figure is a quick look, not a finding (too few units a side); "" otherwise.
    quick_look: str = ""


def _sentence(part: RunPart, name: str, number: dict[str, Any], gated: bool = False) -> str:
    models = ", ".join(part.view.model_ids())
    text = f"{part.view.run.probe} on {models}: {name} is {figure_text(number.get('value'))}"
    if interval(number) != "—":
        low, high = figure_text(number["ci_low"]), figure_text(number["ci_high"])
        named = number.get("interval_name")
        # A gate of a Holm family reads its figure at its adjusted level ("97.5% fixed
        # interval"): the sentence says the level the interval has, not 95%.
        level = LEVEL.match(str(named or ""))
        said = level[1] if level else "95%"
        text += f", with a {said} interval from {low} to {high}" + (f" ({named})" if named else "")
    elif no_interval(number):
        text += f", with {no_interval(number)}"
    size = sample_size(number, part.observation)
    if size:
        text += f", over {size}"
    p = number.get("p")
    # On too few units a side neither the interval nor the p-value decides anything.
    quick = "" if gated or interval(number) == "—" else quick_look(number)
    if isinstance(p, int | float):
        verdict = "significant" if p < ALPHA else "not significant"
        text += f"; p {_p_said(p)}" + ("" if quick else f", {verdict} at the 5% level")
    if quick:
        text += f"; a {QUICK_LOOK}: {quick}"
    return text + "."


def _p_said(p: float) -> str:
    text = p_text(p)
    return text if text.startswith("<") else f"= {text}"


def headlines(audit: Audit) -> list[Headline]:
    """Each run's figures as the summary gives them: a figure a gate read with the interval
    the gate decided on, named, as every page prints it; any other with its own interval,
    named where the page names another (:func:`names_intervals`)."""
    decided = decided_intervals(audit)
    beside = names_intervals(audit)
    rows = []
    for part in audit.runs:
        for name, number in part.result.numbers.items():
            gate = decided.get((part.id, name))
            if gate is not None:
                number = {**number, "ci_low": gate.low, "ci_high": gate.high}
                number["interval_name"] = gate.name
            else:
                number = named_beside(number, beside)
            p = number.get("p")
            rows.append(
                Headline(
                    run=part.id,
                    anchor=part.anchor,
                    probe=part.view.run.probe,
                    name=name,
                    value=figure_text(number.get("value")),
                    interval=interval(number),
                    n=sample_size(number, part.observation),
                    p=p_text(p) if isinstance(p, int | float) else "",
                    sentence=_sentence(part, name, number, gated=gate is not None),
                    quick_look=""
                    if gate is not None or interval(number) == "—"
                    else quick_look(number),
                )
            )
    return rows
