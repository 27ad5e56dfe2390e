"""``diptych runs``'s table: the user's runs, and each agent search's as one row of the search
whose counts are :class:`~diptych.core.workspace.search_runs.SearchRuns`' (the runs it made and
those it reused, each once), as ``show`` and the Runs screen count them."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rich import box
from rich.table import Table

from diptych.cli.kept_words import KeptWords, kept_together
from diptych.core.audit.run_status import NOT_BOUGHT, outcome_words
from diptych.core.report.formatting import tally
from diptych.core.workspace import RunSummary
from diptych.core.workspace.search_runs import SearchRuns, search_runs
from diptych.core.workspace.sessions import session_label, session_status

#: How a run made by an agent session is set under its session's row (``--all``).
MEMBER_INDENT = "  "
_OUTCOMES = ("done", "refused", "failed", "pending")


@dataclass
class SessionRow:
    """An agent session as one row of the runs listing: its runs' outcomes added up."""

    search: SearchRuns

    @property
    def session(self) -> str:
        return self.search.session

    @property
    def runs(self) -> list[RunSummary]:
        """The runs it made, then those it reused."""
        return list(self.search.runs)

    def label(self, short: bool = False) -> str:
        # The count on a line of its own: the session's name alone sets the column's width.
        # Short, an audit search's is named by its part and hash (named in full under the
        # table): its 45-character id left the other columns a few characters each at 80.
        n = len(self.runs)
        name = session_label(self.session) if short else self.session
        return f"{name}\n({n} run{'' if n == 1 else 's'})"

    @property
    def status(self) -> str:
        return session_status(r.said for r in self.runs)

    def total(self, outcome: str) -> int:
        return self.search.total(outcome)


def grouped(
    summaries: list[RunSummary], searches: Mapping[str, SearchRuns] | None = None
) -> list[RunSummary | SessionRow]:
    """The runs in order, each agent session's runs gathered into one row where its first run
    stands; ``searches`` (``ws.runs.searches``) adds the runs each reused to its row."""
    found = search_runs(summaries, {}) if searches is None else searches
    out: list[RunSummary | SessionRow] = []
    seen: set[str] = set()
    for summary in summaries:
        if summary.session is None:
            out.append(summary)
        elif summary.session not in seen:
            seen.add(summary.session)
            out.append(SessionRow(found[summary.session]))
    return out


def session_json(search: SearchRuns) -> dict[str, Any]:
    """A search as ``diptych runs --json`` lists it after the runs: its runs (made, then
    reused) and their trials counted once, as its row counts them."""
    return {
        "kind": "session",
        "id": search.session,
        "label": session_label(search.session),
        "status": session_status(r.said for r in search.runs),
        "runs": [r.run.id for r in search.runs],
        "runs_made": search.made,
        "runs_reused": search.reused,
        "trials": search.trials,
        "counts": search.counts,
        "flagged": search.flagged,
    }


def runs_table(
    summaries: list[RunSummary],
    width: int,
    *,
    show_session_runs: bool = False,
    searches: Mapping[str, SearchRuns] | None = None,
) -> Table:
    """The runs as a table that fits ``width`` columns without cutting a run id, the one thing
    a user copies from it: ids never wrap; on a narrow terminal the outcome counts share one
    column and the creation time is left out, and other cells wrap between words.

    The runs an agent session made stand behind one row of the session (its runs' outcomes
    added up, with the runs it reused: ``searches``); ``show_session_runs`` lists them too,
    indented under it."""
    wide = width >= 120
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    entries = grouped(summaries, searches)
    widths = [len(e.run.id) for e in entries if isinstance(e, RunSummary)]
    for e in entries:
        if isinstance(e, SessionRow):
            # Its runs under it with --all: a run it reused may be the user's, listed twice.
            widths += [len(e.label(not wide).split("\n")[0])]
            widths += [len(r.run.id) + len(MEMBER_INDENT) for r in e.runs]
    widest = max(widths, default=3)
    table.add_column("run", no_wrap=True, min_width=widest)
    for name in ("probe", "models", "status"):
        table.add_column(name, overflow="fold")
    # A decided run's untried trials are counted apart, as "not bought" (outcome_words).
    outcomes = _OUTCOMES + ((NOT_BOUGHT,) if any(_unbought(s) for s in summaries) else ())
    if wide:
        for name in ("trials", *outcomes):
            table.add_column(name, justify="right")
        table.add_column("created", no_wrap=True)
    else:
        table.add_column("trials", overflow="fold")
    for entry in entries:
        if isinstance(entry, SessionRow):
            table.add_row(*_session_cells(entry, wide, outcomes), style="bold")
            if show_session_runs:
                for member in entry.runs:
                    table.add_row(*_run_cells(member, wide, outcomes, indent=MEMBER_INDENT))
        else:
            table.add_row(*_run_cells(entry, wide, outcomes))
    return table


def sessions_named(summaries: list[RunSummary], width: int) -> list[str]:
    """The sessions :func:`runs_table` names short at ``width``, each with its id in full (the
    id the agent's commands take)."""
    if width >= 120:
        return []
    sessions = dict.fromkeys(s.session for s in summaries if s.session is not None)
    return [f"{session_label(s)}: session {s}" for s in sessions if session_label(s) != s]


def _models(runs: list[RunSummary]) -> str:
    return ", ".join(dict.fromkeys(m["model_id"] for r in runs for m in r.run.models))


def _unbought(summary: RunSummary) -> bool:
    return summary.run.status == "decided" and bool(summary.counts.get("pending"))


def _counts(
    trials: int,
    counts: dict[str, int],
    wide: bool,
    status: str = "",
    *,
    outcomes: tuple[str, ...] = _OUTCOMES,
) -> list[Any]:
    # A decided run's untried trials are not waiting for anything: "not bought", not "pending".
    words = outcome_words(status, counts)
    if wide:
        return [f"{trials:,}", *(f"{words.get(k, 0):,}" for k in outcomes)]
    counted = tally(words)
    # Each count with its word on one line: "1,476 not bought" is one thing.
    return [KeptWords(kept_together(f"{trials:,}: {counted}" if counted else f"{trials:,}"))]


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def _run_cells(
    summary: RunSummary, wide: bool, outcomes: tuple[str, ...], indent: str = ""
) -> list[Any]:
    run = summary.run
    # A status is read by its looks and counts: none is parted across two lines.
    said = KeptWords(kept_together(summary.said))
    cells = [indent + run.id, run.probe, _models([summary]), said]
    cells += _counts(run.n_trials, summary.counts, wide, run.status, outcomes=outcomes)
    return cells + ([_when(run.created_at)] if wide else [])


def _session_cells(row: SessionRow, wide: bool, outcomes: tuple[str, ...]) -> list[Any]:
    probes = ", ".join(dict.fromkeys(r.run.probe for r in row.runs))
    cells = [row.label(not wide), probes, _models(row.runs), row.status]
    cells += _counts(row.search.trials, row.search.counts, wide, outcomes=outcomes)
    return cells + ([_when(row.runs[0].run.created_at)] if wide else [])
