"""What a row of the Runs table holds: its columns and which a narrow terminal gives up, a
status's colour, and the rows of agent sessions (a session's runs stand behind one row of it)."""

from __future__ import annotations

from rich.text import Text

from diptych.core.audit.run_status import BOUGHT_ON
from diptych.core.safe_text import escape_controls
from diptych.core.workspace import RunSummary

#: (key, header, width): the run column widens to the longest run name (the shortest start of
#: an id that names its run alone: two runs of one design need more than 8 digits); the models
#: column takes the width the others leave (or, with ``m``, the full model ids); the line under
#: the table shows the highlighted run in full.
COLUMNS = (
    ("run", "run", 8),
    ("probe", "probe", 8),
    ("models", "models", 13),
    ("status", "status", 11),
    ("progress", "prog", 4),
    ("done", "done", 5),
    ("refused", "ref", 3),
    ("failed", "fail", 4),
    ("flagged", "flag", 4),
)
#: The columns of counts: each widens to its widest figure, never cutting one.
COUNTS = ("progress", "done", "refused", "failed", "flagged")
#: The columns that widen to their widest cell: the counts, and the status, whose short form
#: is whole or not at all ("decided, bought on" cut reads as another state).
WIDENED = ("status", *COUNTS)
#: The columns a narrow terminal gives up, first to last: the line under the table names the
#: highlighted run's probe (in its id), its models in full and its progress, while its outcome
#: counts (ref, fail, flag) have no other place. (Progress goes only where runs' names are
#: long: two runs of one design at 60 columns.)
DROPPED_FIRST = ("models", "probe", "progress")
#: The models column is left out rather than drawn narrower than this.
MIN_MODELS = 8


def table_chrome(n_columns: int) -> int:
    """Columns' padding and the scrollbar, in cells."""
    return 2 * n_columns + 2


#: Status the Workspace gives a run stored as running whose process is gone (no live lease):
#: ``u`` resumes it at once.
STALE = "stale"

STATUS_STYLE = {
    "complete": "green",
    "running": "cyan",
    "starting": "cyan",
    "paused": "yellow",
    "pausing": "yellow",
    "stopping": "yellow",
    "interrupted": "yellow",
    "planned": "dim",
    "incomplete": "red",
    STALE: "bold red",
    "over-budget": "red",
    # Stopped on purpose by a sequential audit: its gates decided, or a look undecided.
    "decided": "green",
    "partial": "cyan",
    BOUGHT_ON: "green",
}


#: A session row's key is this prefix and the session id (a run id never has it).
SESSION_KEY = "session:"


def model_ids(row: RunSummary) -> str:
    """The ids of a run's models, as its row and the line under the table list them."""
    return ", ".join(m["model_id"] for m in row.run.models)


def session_key(session: str) -> str:
    return SESSION_KEY + session


def session_members(rows: dict[str, RunSummary]) -> dict[str, list[RunSummary]]:
    """Each agent session's runs, in the order the session made them."""
    out: dict[str, list[RunSummary]] = {}
    for row in rows.values():
        if row.session is not None:
            out.setdefault(row.session, []).append(row)
    return out


def no_run_matches(text: str) -> Text:
    """What stands in place of the rows when the filter leaves none, and the key that clears
    it (the filter line's Esc, which the Runs screen takes too)."""
    return Text(f"No run matches “{escape_controls(text.strip())}”: Esc clears the filter")
