"""The Audit screen's rows and lines: a part's row as the audit recorded it, a recorded audit
as the list offers it, and the line said when a recorded audit opens from its recorded text
(its file gone or moved)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from textual.message import Message

from diptych.audit import AuditPlan
from diptych.audit.placebo_plan import (
    PlaceboTrials,
    placebo_cell,
    search_requests_cell,
    search_stored_cell,
)
from diptych.audit.sequential import part_status_words
from diptych.audit.status_words import REUSED
from diptych.core.audit.record import AuditRecord, PartRecord
from diptych.core.audit.run_status import status_text
from diptych.core.audit.schema import file_hash
from diptych.core.audit.sequential import PartLooks
from diptych.core.errors import RunNotFoundError
from diptych.core.report.formatting import bounds, dollars
from diptych.core.report.gates import GateLine
from diptych.core.report.reproduce import COMMAND_LINE
from diptych.core.workspace import Estimate, Workspace


@dataclass
class RecordedFound(Message):
    """A recorded audit picked from the list, with its file from here (None: gone, moved or
    changed, or the record ran with --set: it opens from its recorded text)."""

    audit: AuditRecord
    file: Path | None


def recorded_words(
    plan: AuditPlan,
    parts: list[PartRecord],
    now: list[PartRecord] | None = None,
    said: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """Each part's row as the audit last recorded it, in the words a run of it shows: a part
    bought until decided names the look it stopped at, and where the audit was last bought until
    decided, a part no gate reads is "not run" (as ``diptych audit run --until-decided`` says).
    ``now``: the same parts as ``diptych audit list`` lists them (``ws.audits.as_now``); a part
    whose run was bought on past the look that stopped it is in its run's status, as there
    ("interrupted", "complete"), and no longer at that look. ``said``: each part's run's
    status in the words of every listing of the run (:func:`runs_said`): a part bought batch by
    batch whose run they say more of than its status (decided at a look, and bought on since)
    is said in them."""
    words: dict[str, str] = {}
    listed = {part.name: part.status for part in now or parts}
    # The looks as every listing reads them: the record's own, never a later record's.
    own = {part.name: PartLooks.of(part.detail) for part in now or parts}
    sequential = False
    for part in parts:
        looks = own.get(part.name) or PartLooks.of(part.detail)
        active = looks is not None and looks.active and bool(looks.looks)
        run_words = (said or {}).get(part.name, "")
        # Still decided as recorded, its run bought further by another audit's looks only: its
        # own look, not the run's last.
        kept = listed.get(part.name) == "decided"
        if active and not kept and run_words not in ("", part.status, listed.get(part.name)):
            words[part.name] = run_words
            sequential = True
            continue
        if listed.get(part.name, part.status) != part.status:
            words[part.name] = listed[part.name]
            sequential = sequential or looks is not None
            continue
        # A last look that read the whole design says so, as every surface names it
        # (:func:`~diptych.core.audit.sequential.look_text`): never "at look 2 of 10" alone.
        at: dict[str, Any] = {}
        if looks is not None and active:
            whole = looks.last is not None and looks.last.complete
            at = {"look": len(looks.looks), "batches": looks.total, "complete": whole}
        sequential = sequential or active
        if active and looks is not None and part.status in ("decided", "partial"):
            # What stopping there saved: "decided at look 1 of 10: 164 of 1,640 requests,
            # 1,476 saved", the words of every listing of the run.
            words[part.name] = status_text(part.status, looks)
        else:
            words[part.name] = part_status_words(part.status, at)
    if sequential:
        for planned in plan.parts:
            words.setdefault(planned.part.name, "not run")
    return words


def runs_said(ws: Workspace, parts: Sequence[PartRecord]) -> dict[str, str]:
    """Each part bought batch by batch, by name: its run's status in the words of every
    listing of the run (``ws.runs.status_text``), a run gone from the workspace left out."""
    out: dict[str, str] = {}
    for part in parts:
        if part.run_id and PartLooks.of(part.detail) is not None:
            try:
                out[part.name] = ws.runs.status_text(part.run_id)
            except RunNotFoundError:
                continue
    return out


def recorded_found(ws: Workspace, audit_id: str) -> RecordedFound:
    """A recorded audit picked from the list, by its id: with its file where that is the
    record's own (the text it ran, no ``--set``), else opened from its recorded text and
    overrides, so that its parts and gates are its own, not those of its file's newest run."""
    audit = ws.audits.get(audit_id)
    file = ws.audits.file(audit)
    try:
        own = file is not None and file_hash(file.read_bytes()) == audit.file_hash
    except OSError:
        own = False
    return RecordedFound(audit, file if own and not audit.overridden else None)


def moved_line(audit: AuditRecord) -> str:
    """Why a recorded audit shows its recorded text, not its file: said before its plan. An
    audit made on the command line (``diptych run --gate``) never had a file: it says so."""
    day = time.strftime("%Y-%m-%d", time.localtime(audit.created_at))
    if audit.file_path == COMMAND_LINE:
        return (
            "made on the command line by diptych run --gate; "
            f"showing the definition recorded on {day}"
        )
    if audit.overridden:
        return f"record {audit.id}, run with --set on {day}"
    if Path(audit.file_path).is_file():
        return f"file changed since; showing the text recorded on {day}"
    return f"file moved; showing the text recorded on {day}"


def recorded_line(audit: AuditRecord) -> str:
    """A recorded audit as the list offers it: its id (which ``diptych audit gate`` and the
    other commands take, and which begins with its name), its status and its file."""
    return f"{audit.id} · {audit.status} · {shown_path(audit.file_path)}"


def recorded_lines(audits: list[AuditRecord]) -> list[tuple[str, str]]:
    """Each recorded audit's line and id, newest first: every one named by its id, as ``audit
    list`` names it, so that no two rows look the same and each gives the id to type."""
    return [(recorded_line(a), a.id) for a in reversed(audits)]


def shown_path(path: str | Path) -> str:
    """A recorded file's path as the screen shows it: from the current directory where the file
    is under it (the path a user would type), else whole."""
    where = Path(path)
    if where.is_absolute() and where.is_relative_to(Path.cwd()):
        return str(where.relative_to(Path.cwd()))
    return str(path)


def rule(gate: Any) -> str:
    return str(gate.rule_text)


def look_of(report: Any) -> str:
    """The look a gate report's anytime-valid intervals were made at ("look 1 of 10"), as
    ``diptych audit gate`` names it; "" for a report of one look at the design."""
    sequential = getattr(report, "sequential", None)
    if sequential is None or not sequential.looks:
        return ""
    return str(sequential.at)


def interval_kind_cell(kind: str, look: str) -> str:
    """How a gate's interval was made, named as ``diptych audit gate`` names it: "anytime-valid,
    look 1 of 10" (over the looks of an audit bought until decided) or "fixed-design"."""
    return f"{kind}, {look}" if kind == "anytime-valid" and look else kind


def gate_headers(columns: Sequence[str], kinds: Sequence[str]) -> list[str]:
    """The gates table's headers, its intervals named by how they were made (``kinds``: each
    gate's :func:`interval_kind_cell`): where all are made alike, the interval's header says
    so ("anytime-valid interval, look 1 of 10"), so that a table and a card drawn narrow
    ("anytime-valid interval, look 1 of 10: [−1.04, 24.2]") both name it; where they differ, a
    column after the interval names each."""
    at = columns.index("interval")
    named = set(kinds)
    if len(named) > 1:
        return [*columns[: at + 1], "interval kind", *columns[at + 1 :]]
    if not named:
        return list(columns)
    kind, _, look = next(iter(named)).partition(", ")
    header = f"{kind} interval" + (f", {look}" if look else "")
    return [*columns[:at], header, *columns[at + 1 :]]


def part_rows(
    plan: AuditPlan | None, status: Mapping[str, str]
) -> list[tuple[str | None, list[str]]]:
    """The parts table's rows: each part's kind, probe, counts, cost and ``status`` (planned
    where none was heard)."""
    rows: list[tuple[str | None, list[str]]] = []
    for p in plan.parts if plan is not None else []:
        e = p.estimate
        # The words of the CLI's plan: the agent decides how many trials a search buys, at
        # least its placebo words' where they are planned.
        said = status.get(p.part.name, "planned")
        done = finished(said)
        cells = estimate_cells(e) if e else search_cells(p.placebo, p.session_trials, done)
        rows.append((p.part.name, [p.part.name, p.part.kind, p.part.probe or "", *cells, said]))
    return rows


def finished(words: str) -> bool:
    """Whether a part's status words say it finished whole: a run of its audit keeps it."""
    return words == "complete" or words.startswith(("complete, ", REUSED))


def search_cells(
    placebo: PlaceboTrials | None, session_trials: int | None = None, done: bool = False
) -> tuple[str, str, str, str]:
    """A search's trials (at least its placebo words', where planned), stored (every trial its
    session holds: :func:`search_stored_cell`), requests to run (none once it finished:
    ``done``) and cost, as the CLI's plan gives them."""
    stored = search_stored_cell(placebo, session_trials)
    if placebo is None and not done:
        return placebo_cell(None), stored, "—", "≤ budget"
    return placebo_cell(placebo), stored, search_requests_cell(placebo, done), "≤ budget"


def estimate_cells(e: Estimate) -> tuple[str, str, str, str]:
    """A part's trials, stored and requests to run (with thousands separators) and its cost."""
    return f"{e.planned:,}", f"{e.cached:,}", f"{e.to_run:,}", dollars(e.cost)


def gate_bounds(gate: GateLine) -> str:
    """A gate's interval in the bracket form of every table of the app and of the verdict
    lines above ("[0.15, 22.3]"), not the report's sentence form ("0.15 to 22.3"): one screen,
    one way of writing an interval. Without one, why (the report's words)."""
    if gate.has_interval and gate.low is not None and gate.high is not None:
        return bounds(gate.low, gate.high)
    return gate.interval


def gate_table(
    columns: Sequence[str],
    lines: Sequence[GateLine],
    undecided: Sequence[tuple[str, str, str, str]],
    look: str,
) -> tuple[list[str], list[tuple[str | None, list[str]]]]:
    """The gates table's headers and rows, verdict first: the decided gates' ``lines``, then
    the gates stated but not decidable yet (``undecided``: gate, figure, rule and why)."""
    kinds = [interval_kind_cell(g.kind, look) for g in lines]
    headers = gate_headers(columns, kinds)
    # Made alike, the intervals are named by their header; else each by a cell of its own.
    each = len(headers) > len(columns)
    rows: list[tuple[str | None, list[str]]] = [
        (None, [g.verdict.upper(), g.label, f"{g.part} · {g.figure}", g.value, gate_bounds(g),
                *([kind] if each else []), g.level, g.rule])
        for g, kind in zip(lines, kinds, strict=True)
    ]  # fmt: skip
    rows += [
        (None, [why, label, figure, "—", "—", *(["—"] if each else []), "—", rule])
        for label, figure, rule, why in undecided
    ]
    return headers, rows
