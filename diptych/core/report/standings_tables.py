"""The standings in the words and digits every surface prints (the CLI, the terminal app and
the report's section): one table of models ranked, one of their pairwise differences, a
sentence per model measured again, and the papers' published figures as another design."""

from __future__ import annotations

from dataclasses import dataclass, field

from diptych.core.report.formatting import (
    FLOOR_MARK,
    bounds,
    figure_text,
    interval,
    marked_interval,
    p_text,
)
from diptych.core.report.quick_look import QUICK_LOOK, QUICK_LOOK_MARK, quick_look
from diptych.core.standings import DecidedKind, DesignTable, Standing, Succession
from diptych.core.standings.table import untested

#: What a pair's p and Holm's p read where no test was done (a figure without an interval):
#: a line under the table says why.
NO_TEST = "—"

#: The standings' intervals, named by their level only: what one rests on is said under the
#: table (:attr:`StandingsText.units`) — the identities, or where it fell to its floor (marked
#: ``†``, as on every page of the run) the pairings of identities seen only.
INTERVAL = "95% interval"
#: What follows the interval of a figure of a design its run's gates stopped at an early look:
#: a line under the table names it ("95% anytime-valid interval, look 1 of 10"), as every page
#: of the run does. A mark of its own: ``†`` is an interval at its floor on every surface.
DECIDED_MARK = "‡"
#: What the line of a ``‡`` says of its interval, by which interval of a design stopped early
#: on its gates the figure carries (:data:`~diptych.core.standings.DecidedKind`).
DECIDED_SAID: dict[DecidedKind, str] = {
    "gated": "the interval its gates decided on, not the fixed design's; its pairs are tested "
    "no more confidently than it",
    "read": "the interval its gates read, which decided nothing (inconclusive), not the fixed "
    "design's; its pairs are tested no more confidently than it",
    "stopped": "the interval of its own looks, which holds after its gates stopped the design "
    "early, not the fixed design's; its pairs are tested no more confidently than it",
    "fixed": "its looks did not record it, so no interval of its own holds after the stop",
    "bought_on": "the interval its looks read at the stop, the one its decision used; the run "
    "was bought on since, and no interval is made of the trials stored since (their figure is "
    "a value only); its pairs read the trials that look read, tested no more confidently "
    "than it",
    "bought_on_all": "the interval its looks read at the stop, the one its decision used; the "
    "run was bought on since, and no interval is made of the trials stored since (their figure "
    "is a value only); the trials that look read cannot be told apart now, so its pairs' B − A "
    "is the difference of the values shown, its interval made of all the trials the runs hold, "
    "tested no more confidently than it",
    "bought_on_none": "its looks read it at the stop without an interval, and the run was "
    "bought on since: no interval is made of the trials stored since (their figure is a value "
    "only), so, for want of an interval, it is not ranked apart from any model: its pairs, "
    "read on the trials that look read, have no interval either and no test tells it apart",
}
RANK_COLUMNS = ["#", "rank", "rank CI", "model", "run", "figure", INTERVAL]
PAIR_COLUMNS = ["A", "B", "B − A", INTERVAL, "p", "p (Holm)", "differs"]


@dataclass
class StandingsText:
    """One design's standings as rows of text."""

    title: str
    ranks: list[list[str]]
    pairs: list[list[str]]
    successions: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    #: What a model's figure leaves out of its run and why, one line each.
    notes: list[str] = field(default_factory=list)
    #: What the intervals rest on: "95% interval: over the identities crossed in scenes …".
    units: str = ""


def rank_interval_text(low: int, high: int) -> str:
    return str(low) if low == high else f"{low}–{high}"


def succession_sentence(s: Succession) -> str:
    d = s.difference
    verdict = (
        "distinguishable from noise" if s.distinguishable else "not distinguishable from noise"
    )
    if not d.inference.has_interval:
        said = f"{figure_text(d.difference)}, {untested(d)}"
        return f"{s.after} against {s.before}: {said} — {verdict}."
    return (
        f"{s.after} against {s.before}: {figure_text(d.difference)} "
        f"{bounds(d.ci_low, d.ci_high)}, p {p_text(d.p_value)} — {verdict}."
    )


def reference_lines(table: DesignTable) -> list[str]:
    out = []
    for r in table.references:
        values = ", ".join(f"{who} {figure_text(v)}" for who, v in r.values.items())
        out.append(
            f"{values} — {r.source}, {r.where}: {r.what}; measured on {r.measured_on} "
            "(other design: not ranked)"
        )
    return out


def standings_text(table: DesignTable) -> StandingsText:
    # A pair names its two models by their rows (#1, #2 ...): the names stay in one column.
    row_of = {}
    for k, s in enumerate(table.standings, start=1):
        row_of[s.measured.name] = row_of[s.measured.label] = f"#{k}"
    ranks = [
        [
            f"#{k}",
            str(s.rank),
            rank_interval_text(s.rank_low, s.rank_high),
            s.measured.name,
            s.measured.shown_run or s.measured.run,
            figure_text(s.figure.value),
            standing_interval(s),
        ]
        for k, s in enumerate(table.standings, start=1)
    ]
    pairs = [
        [
            row_of.get(p.a, p.a),
            row_of.get(p.b, p.b),
            figure_text(p.difference.difference),
            bounds(p.difference.ci_low, p.difference.ci_high),
            p_text(p.difference.p_value) if p.tested else NO_TEST,
            p_text(p.p_holm) if p.tested else NO_TEST,
            "yes" if p.differs else "no",
        ]
        for p in table.pairs
    ]
    untested_lines = [
        f"{row_of.get(p.a, p.a)} − {row_of.get(p.b, p.b)}: p {NO_TEST}, {untested(p.difference)}"
        for p in table.pairs
        if not p.tested
    ]
    if untested_lines:
        # Holm's family is the pairs tested: the adjusted p's above are over that many.
        n = table.holm_family
        untested_lines.append(
            f"p (Holm): adjusted over the {n} pair{'s' if n != 1 else ''} with a test; "
            f"the {len(untested_lines)} without one {'is' if len(untested_lines) == 1 else 'are'}"
            " not in its family"
        )
    return StandingsText(
        title=f"{table.figure} · {table.design_label}",
        ranks=ranks,
        pairs=pairs,
        successions=[succession_sentence(s) for s in table.successions],
        references=reference_lines(table),
        # A line of a mark starts with it, as under a run's own table ("† STS paired: …").
        notes=[
            f"{mark}{s.measured.name} ({s.measured.shown_run or s.measured.run}): {said}"
            for s in table.standings
            for mark, said in _said_of(s)
        ]
        + untested_lines,
        units=units_line(table),
    )


def units_line(table: DesignTable) -> str:
    """What the intervals rest on, said of the rows that have one: all of them ("95% interval:
    over the identities …"), those it names ("95% interval of #1 and #3: …"), or none ("No row
    has a 95% interval: each says why") — a row without one resamples nothing."""
    having = [
        f"#{k}"
        for k, s in enumerate(table.standings, start=1)
        if interval({"ci_low": s.figure.ci_low, "ci_high": s.figure.ci_high}) != "—"
    ]
    if not having:
        return f"No row has a {INTERVAL}: each says why."
    listed = ", ".join(having[:-1]) + f" and {having[-1]}" if len(having) > 1 else having[0]
    whose = "" if len(having) == len(table.standings) else f" of {listed}"
    # The † is explained only where a row carries it.
    floor = (
        f", or, marked {FLOOR_MARK}, over the pairings of identities seen only (it fell "
        "to its floor)"
        if any(s.figure.floor for s in table.standings)
        else ""
    )
    return f"{INTERVAL}{whose}: over the {table.unit_words}{floor}"


def standing_interval(s: Standing) -> str:
    """A model's interval as its run's pages print it, marked ``†`` where it fell to its
    floor (:func:`~diptych.core.report.formatting.marked_interval`) or saying why it has none,
    then ``‡`` where it is that of a design its gates stopped at an early look (its name is
    long for a table's column: a line under the table says it), and ``§`` where it is a quick
    look, its words said under the table too."""
    f = s.figure
    text = marked_interval(
        {"ci_low": f.ci_low, "ci_high": f.ci_high, "floor": f.floor, "reason": f.reason}
    )
    text += f" {DECIDED_MARK}" if s.measured.decided is not None else ""
    return text + (f" {QUICK_LOOK_MARK}" if _quick_look(s) else "")


def _quick_look(s: Standing) -> str:
    """Why the model's figure is a quick look (:func:`~diptych.core.report.quick_look.
    quick_look`, the words of its run's pages), or "". A figure its gates decided on (‡) is
    read on their interval, as ``diptych show`` and Run detail read it: no quick look there."""
    return "" if s.measured.decided is not None else quick_look(s.figure.to_dict())


def _said_of(s: Standing) -> list[tuple[str, str]]:
    """What a reader must know of one model's figure, each with the mark it explains ("" for
    none): what it leaves out of its run, how much of its design the run holds, the interval
    its gates decided on (‡), an interval that fell to its floor (†), and a quick look (§)."""
    m = s.measured
    out = [("", m.sample.note)] if m.sample.note else []
    if m.partial:
        out.append(("", f"ranked on {m.partial}"))
    if m.decided is not None:
        said = DECIDED_SAID[m.decided.kind]
        out.append((f"{DECIDED_MARK} ", f"{m.decided.name}: {said}"))
    if s.figure.floor:
        out.append((f"{FLOOR_MARK} ", s.figure.floor))
    if quick := _quick_look(s):
        out.append((f"{QUICK_LOOK_MARK} ", f"a {QUICK_LOOK}: {quick}"))
    return out
