"""Where an audit's gates stopped a run's design early, and the intervals that do not hold
after that stop named as such.

A run bought batch by batch until its gates were decided stopped where the looks showed
enough. A fixed-design interval of its answers (a breakdown's per identity or per group, a
chart's bars) assumes the design was bought whole: after a stop chosen on what the looks
showed it does not hold, and every page that prints one names it so, in the words a headline
figure whose looks did not record it is named by ("fixed-design; does not hold after the stop
at look 1 of 4"), its verb plural where it names many ("Its intervals: fixed-design; do not hold
after the stop at look 1 of 4")."""

from __future__ import annotations

import re
import time
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from diptych.core.audit.overrides import apply_overrides
from diptych.core.audit.record import AuditRecord, PartRecord, list_audits, process_running
from diptych.core.audit.run_status import (
    BOUGHT_ON,
    bought_on_since,
    decided_words,
    joined_looks,
    listed_status,
    status_text,
    trials_asked,
    unasked_word,
)
from diptych.core.audit.schema import AuditFile, parse_audit
from diptych.core.audit.sequential import PartLooks, SequentialSummary
from diptych.core.errors import DiptychError
from diptych.core.probe import ProbeResult, Table

if TYPE_CHECKING:
    from diptych.core.store import RunRecord, Store

#: How the name of a fixed-design interval on a design stopped early on its gates begins.
NOT_HOLDING = "fixed-design; does not hold after the stop"
#: The same name said of many intervals at once (a table's, a chart's bars, B − A's rows).
NOT_HOLDING_MANY = "fixed-design; do not hold after the stop"
#: Either name, of one interval or of many.
NOT_HOLDING_EITHER = re.compile(r"fixed-design; do(?:es)? not hold after the stop")

#: A column of a table that holds intervals ("paired 95% CI", "95% interval").
_INTERVAL_COLUMN = re.compile(r"\b(CI|interval)\b")


def stopped_name(at: str, many: bool = False) -> str:
    """The name of a fixed-design interval on a design that stopped early on its gates; of
    many intervals at once where ``many`` ("…; do not hold after the stop at look 1 of 4")."""
    return f"{NOT_HOLDING_MANY if many else NOT_HOLDING} at {at}"


def not_holding(name: str) -> bool:
    """Whether ``name`` names an interval (or intervals) as not holding after a stop."""
    return NOT_HOLDING_EITHER.search(name) is not None


#: The recorded audit whose report is being written (:func:`read_as`), if any.
_READER: ContextVar[str | None] = ContextVar("looks_reader", default=None)


@contextmanager
def read_as(audit_id: str) -> Iterator[None]:
    """Within it, every run of the recorded audit ``audit_id`` is read at that audit's own looks
    (:func:`looked`): its report reads its runs as its gates decided them, whatever another
    audit bought of them since."""
    token = _READER.set(audit_id)
    try:
        yield
    finally:
        _READER.reset(token)


def looked(store: Store, run_id: str) -> tuple[AuditRecord, str, PartLooks] | None:
    """The newest audit that bought ``run_id`` batch by batch, the part's name and the run's
    looks (:func:`run_looks`: every audit's, not only that one's); within :func:`read_as`,
    that audit's and its own looks where it bought the run so."""
    reader = _READER.get()
    for audit in list_audits(store) if reader else []:
        if audit.id != reader:
            continue
        for part in audit.parts:
            looks = part_looks(store, part) if part.run_id == run_id else None
            if looks is not None and looks.active and looks.last is not None:
                return audit, part.name, looks
    found = None
    for audit in sorted(list_audits(store), key=lambda a: a.updated_at):
        for part in audit.parts:
            looks = PartLooks.of(part.detail) if part.run_id == run_id else None
            if looks is not None and looks.active and looks.last is not None:
                found = (audit, part.name)
    joined = run_looks(store, run_id)
    return None if found is None or joined is None else (*found, joined)


def run_looks(store: Store, run_id: str) -> PartLooks | None:
    """The looks ``run_id``'s answers were taken at, joined from every audit record here that
    bought it batch by batch (:func:`~diptych.core.audit.run_status.joined_looks`); None for
    a run no record looked at."""
    return joined_looks(list_audits(store), run_id)


def part_looks(store: Store, part: PartRecord) -> PartLooks | None:
    """The looks a part's listing, its gates, ``show`` and the report read: its own record's,
    which hold every look of its run taken before it too (a record continues them), so that
    another audit buying the same run further never rewrites what this one decided; its run's
    joined from every record (:func:`run_looks`) only where its record took none of them."""
    own = PartLooks.of(part.detail)
    if own is None or not own.active or not part.run_id or own.looks:
        return own
    return run_looks(store, part.run_id) or own


def since_looks(store: Store, part: PartRecord) -> PartLooks | None:
    """The looks a part's run is bought on since (:func:`continued`) after: the run's last look,
    whichever record took it (:func:`run_looks`). Another audit's looks buying it further are
    looks, not a buy-on: the part reads its own stop (:func:`part_looks`), never "bought on"."""
    joined = run_looks(store, part.run_id) if part.run_id else None
    return joined or part_looks(store, part)


def bought_on_part(store: Store, part: PartRecord) -> bool:
    """Whether ``part``'s run was bought on since the last look any audit took of it
    (:func:`continued` after :func:`since_looks`)."""
    looks = since_looks(store, part)
    return part.run_id is not None and looks is not None and continued(store, part.run_id, looks)


def purchase_seed(store: Store, run_id: str) -> int | None:
    """The seed of the random order an audit bought ``run_id`` in, batch by batch (the newest
    such audit's; None for a run no audit bought so). Whatever buys more of the run later — a
    resume, a plain run of its design, the audit again — continues in that order, so that a
    run stopped part way holds a random part of its design, never the plan's first identities."""
    found = None
    for audit in sorted(list_audits(store), key=lambda a: a.updated_at):
        for part in audit.parts:
            seed = PartLooks.order_seed_of(part.detail) if part.run_id == run_id else None
            if seed is not None:
                found = seed
    return found


def continued(store: Store, run_id: str, looks: PartLooks) -> bool:
    """Whether ``run_id`` was bought on after its audit's gates stopped it early (``diptych
    resume``, a plain ``diptych run`` of the same design) and not bought whole: its trials are
    then more than its last look read, and no look describes them (its gates were decided on
    fewer). Rerunning the audit, which decides it again on the same looks, changes nothing."""
    run = store.run_with_id(run_id)
    if run is None:
        return False
    return bought_on_since(run.status, looks, store.requests_held(run.id))


def decided_runs(store: Store, rec: AuditRecord) -> list[str]:
    """The runs of ``rec``'s parts its gates stopped short of their design that still have the
    rest of it to buy, once each: what running the audit whole buys on purpose only, asked
    first (``diptych audit run``, the Audit screen's ``ctrl+r``). A part's record, not its
    run's status now, says its gates stopped it: a run bought on since ("decided, bought on", or
    stopped part way again, "interrupted") still has the rest of its design to buy; one
    bought whole since has none."""
    runs = []
    for part in rec.parts:
        run = store.run_with_id(part.run_id) if part.run_id else None
        if part.status == "decided" and run is not None and run.status != "complete":
            runs.append(run.id)
    return list(dict.fromkeys(runs))


def bought_on(store: Store, rec: AuditRecord) -> set[str]:
    """The parts of ``rec`` whose run was bought on since its gates stopped it early
    (:func:`continued`), by name: they hold more trials than the look the gates decided on
    read, and every page reads their figures at that look. Rerunning the audit, which decides such
    a run again on the same looks and stores it as decided, leaves it bought on."""
    out = set()
    for part in rec.parts:
        looks = part_looks(store, part)
        if part.run_id and looks is not None and continued(store, part.run_id, looks):
            out.add(part.name)
    return out


def stopped_status(store: Store, audit: AuditRecord) -> str:
    """The status of an audit whose run stopped mid-way (the app quit, Ctrl-C, a killed
    process) as its parts' runs are stored: the first one not complete in its own status
    ("interrupted"; "decided" where a decided run was being bought on), "interrupted" where
    a run was left planning, buying or between two looks, or where no part's run is stored
    yet."""
    for part in audit.parts:
        run = store.run_with_id(part.run_id) if part.run_id else None
        if run is not None and run.status != "complete":
            return "interrupted" if run.status in ("planned", "running", "partial") else run.status
    return "interrupted"


def left_running(store: Store, audit: AuditRecord) -> bool:
    """Whether ``audit`` is recorded ``running`` with nothing running it. The process recorded
    running it says so where it is of this host: gone (killed, before any part stored a run
    too), or still running it — whatever it is doing, an agent search whose part has no run
    or its report. Where no process of this host is recorded, no run of its parts is running
    or between two looks (a process buying the audit holds one or the other)."""
    if audit.status != "running":
        return False
    alive = process_running(audit)
    if alive is not None:
        return not alive
    if not audit.parts:
        return False
    runs = [store.run_with_id(p.run_id) for p in audit.parts if p.run_id]
    busy = ("running", "partial")
    return all(r is None or (r.status not in busy and store.live_lease(r.id) is None) for r in runs)


def as_now(store: Store, audit: AuditRecord) -> AuditRecord:
    """``audit`` as a listing shows it, each part in its run's status now, as ``diptych runs``
    says it (:func:`run_status_now`: "interrupted" after a stop, "stale" where a killed process
    left it running), and a part with no run (an agent search) that was started in an audit
    nothing runs now "interrupted". A part whose run was bought on after the audit's gates
    stopped it early (part way, :func:`continued`, or whole) reads "interrupted", "complete",
    "decided, bought on" where the run was decided again since, and the audit in it too; a
    buy-on still running (``diptych resume``) is its part's, never the audit's (see
    :func:`audit_status_text`); its record keeps what its gates decided. Each part's
    ``counts`` are its run's as the store holds them now (:func:`counts_now`)."""
    parts = []
    # A record its process left running (killed, or quit before it was written) reads as its runs.
    now = stopped_status(store, audit) if left_running(store, audit) else audit.status
    for part in audit.parts:
        run = store.run_with_id(part.run_id) if part.run_id else None
        if run is not None:
            part = replace(part, detail=counts_now(store, run.id, part.detail, audit.updated_at))
            own = part_looks(store, part)
            if own is not None:
                # The looks its gates read: every listing reads these.
                part = replace(part, detail={**part.detail, PartLooks.KEY: own.to_dict()})
            if part.status != "decided":
                part = replace(part, status=run_status_now(store, run))
        elif part.status == "running" and now != "running":
            part = replace(part, status="interrupted")
        if part.status != "decided" or run is None or run.status == "partial":
            parts.append(part)
            continue
        said = listed_status(store, run, since_looks(store, part))
        said = run_status_now(store, run) if said == run.status else said
        if said == part.status:
            parts.append(part)
            continue
        parts.append(replace(part, status=said))
        # A buy-on in flight (or killed) is the run's: the audit is not running it.
        if said not in ("running", "stale"):
            now = said
    # Complete only when every part of its file is: one left out is not run yet.
    if now == "complete" and not_run(audit):
        now = "incomplete"
    return replace(audit, status=now, parts=parts)


def run_status_now(store: Store, run: RunRecord) -> str:
    """``run``'s status as ``diptych runs`` lists it: ``stale`` where it is stored ``running``
    and no live process holds it (killed), else as stored."""
    if run.status == "running" and store.live_lease(run.id) is None:
        return "stale"
    return run.status


def bought_on_elsewhere(audit: AuditRecord) -> PartRecord | None:
    """The part of ``audit`` (:func:`as_now`) whose run is being bought on while nothing runs
    the audit (``diptych resume`` of a run its gates decided), if any."""
    if audit.status == "running":
        return None
    return next((p for p in audit.parts if p.status == "running" and p.run_id), None)


#: Where a part's counts as its audit recorded them are kept when its run has moved on since.
COUNTS_RECORDED = "counts_recorded"


def counts_now(store: Store, run_id: str, detail: dict[str, Any], at: float) -> dict[str, Any]:
    """A part's ``detail`` with its run's counts as ``diptych runs`` reads them now; where the
    run has moved on since the audit recorded them (bought on, resumed), the recorded ones
    beside them, with when (``{"counts": …, "at": "2026-11-30T11:51:00Z"}``)."""
    counts = store.status_counts(run_id)
    recorded = detail.get("counts")
    if recorded is None or recorded == counts:
        return {**detail, "counts": counts}
    when = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))
    return {**detail, "counts": counts, COUNTS_RECORDED: {"counts": recorded, "at": when}}


def held_now(
    store: Store,
    summary: SequentialSummary | None,
    audit: AuditRecord,
    looks: Mapping[str, PartLooks],
) -> SequentialSummary | None:
    """``summary`` of the audit's gated parts (``looks``, by part name) with what they hold now
    where a part's run was bought on since its gates stopped it early (:func:`continued`):
    the requests of the gated designs with an outcome, and the trials the bought-on runs were
    asked; ``summary`` itself where none was."""
    if summary is None:
        return None
    requests = trials = 0
    since = False
    for name, part_looks in looks.items():
        part, last = audit.part(name), part_looks.last
        if last is None:
            continue
        run = store.run_with_id(part.run_id) if part is not None and part.run_id else None
        answered = store.requests_held(run.id) if run is not None else 0
        # Bought on after the run's last look, whichever audit took it.
        after = run_looks(store, run.id) if run is not None else None
        if run is None or not bought_on_since(run.status, after or part_looks, answered):
            requests += last.bought
            continue
        since = True
        requests += answered
        trials += trials_asked(store.status_counts(run.id))
    return replace(summary, bought_now=requests, trials_now=trials) if since else summary


def failed_trials(store: Store, audit: AuditRecord, parts: Collection[str]) -> dict[str, int]:
    """The trials stored as failed in the runs of the audit's ``parts``, by run id (runs with
    none left out): a design with failed trials is not complete, however many looks it had."""
    runs = dict.fromkeys(p.run_id for p in audit.parts if p.name in parts and p.run_id)
    counts = {run: store.status_counts(run).get("failed", 0) for run in runs if run}
    return {run: n for run, n in counts.items() if n}


def failed_words(failed: Mapping[str, int]) -> str:
    """The trials that failed (``failed``: by run id) and what asks them again: "12 trials
    failed; diptych resume RUN or running the audit again asks them again"."""
    n = sum(failed.values())
    retry = " or ".join(f"diptych resume {run}" for run in failed)
    return (
        f"{n:,} trial{'s' if n != 1 else ''} failed; {retry} or running the audit again asks "
        f"{'it' if n == 1 else 'them'} again"
    )


def part_status_text(store: Store, part: PartRecord) -> str:
    """A part's status (``part``: as :func:`as_now` lists it) in the words every listing says
    its run's (:func:`~diptych.core.audit.run_status.status_text`): a part its gates decided
    names the look and what stopping there saved; one bought on since
    (:data:`~diptych.core.audit.run_status.BOUGHT_ON`) the look and what its run holds now,
    the requests not bought the ones its gates still save; any other its status."""
    looks = part_looks(store, part)
    if part.status == "interrupted" and part.run_id:
        return interrupted_words(store, part.run_id, looks)
    if part.status not in ("decided", BOUGHT_ON) or looks is None or not part.run_id:
        return part.status
    # Bought further by another audit's looks only, it says its own stop.
    answered = store.requests_held(part.run_id) if bought_on_part(store, part) else None
    return status_text("decided", looks, answered)


def interrupted_words(store: Store, run_id: str, looks: PartLooks | None) -> str:
    """A part whose run was stopped (Ctrl-C, a fault) with what it holds, as a decided part
    says what it bought: "interrupted: 10 of 156 requests, 146 pending". A run bought on since
    its gates decided it says what ``diptych runs`` says of it, the decision kept: "interrupted:
    decided at look 2 of 10, bought on since: 727 of 1,640 requests, 913 pending"."""
    held = store.requests_held(run_id)
    if bought_on_since("interrupted", run_looks(store, run_id) or looks, held):
        return status_text("interrupted", looks, held)
    answered, planned = store.requests_answered(run_id)
    rest = planned - answered
    return f"interrupted: {answered:,} of {planned:,} requests" + (
        f", {rest:,} {unasked_word('interrupted')}" if rest else ""
    )


def audit_status_text(store: Store, audit: AuditRecord) -> str:
    """The audit's status as every listing says it: an ``incomplete`` audit (a part's run has
    failed trials) names how many failed and what asks them again (:func:`failed_words`); a
    ``decided`` one the look its gates stopped it at and what that saved
    (:func:`~diptych.core.audit.run_status.decided_words`); one bought on since, its part's
    words (:func:`part_status_text`, the first such part's where there are several); any
    other its status; while a part's run is being bought on with nothing running the audit
    (:func:`bought_on_elsewhere`), that is said after it ("decided: its run pst-text-… is being
    bought on by another process")."""
    said = _own_status_text(store, audit)
    missing = not_run(audit) if audit.status in FINISHED else []
    if missing:
        said = f"{said}; not run: {', '.join(missing)}"
    elsewhere = bought_on_elsewhere(audit)
    if elsewhere is None:
        return said
    sep = "; " if ":" in said else ": "
    return f"{said}{sep}its run {elsewhere.run_id} is being bought on by another process"


#: The statuses of an audit no process is buying, whose parts not run are said after it.
FINISHED = ("complete", "incomplete", "decided", BOUGHT_ON)


def not_run(audit: AuditRecord) -> list[str]:
    """The parts of ``audit``'s file (its recorded text, with its ``--set`` fields) that no run
    of it has recorded, in the file's order: a search ``--until-decided`` left out, say. None
    where the recorded text no longer parses (a file of an older format): nothing says which."""
    try:
        audit_file = parse_audit(audit.file_text, audit.file_path)
        if audit.overridden:
            audit_file = apply_overrides(audit_file, audit.overridden)
    except DiptychError:
        return []
    return parts_not_run(audit_file, [p.name for p in audit.parts])


def parts_not_run(audit_file: AuditFile, ran: Collection[str]) -> list[str]:
    """The parts of ``audit_file`` not among ``ran``, in the file's order: the one rule of what
    an audit leaves "not run", read by its record (:func:`not_run`: the parts it recorded) and
    by the run that leaves them out (``--until-decided``: the gated parts and those kept)."""
    return [name for name in audit_file.part_names if name not in ran]


def _own_status_text(store: Store, audit: AuditRecord) -> str:
    if audit.status == BOUGHT_ON:
        part = next((p for p in audit.parts if p.status == BOUGHT_ON), None)
        return audit.status if part is None else part_status_text(store, part)
    if audit.status == "decided":
        said = decided_words([part_looks(store, p) for p in audit.parts if p.status == "decided"])
        return said or audit.status
    if audit.status != "incomplete":
        return audit.status
    failed = failed_trials(store, audit, [p.name for p in audit.parts])
    if failed:
        return f"incomplete: {failed_words(failed)}"
    missing = len(not_run(audit))
    if not missing:
        return audit.status
    # Its parts recorded are complete; which are not run is said after (:func:`not_run`).
    done = sum(p.status == "complete" for p in audit.parts)
    return f"{done:,} of {done + missing:,} parts complete"


def stopped_look(store: Store, run_id: str) -> str:
    """The look ("look 1 of 4") at which an audit's gates stopped ``run_id``'s design early;
    empty for a run no audit stopped early (or one since read whole)."""
    found = looked(store, run_id)
    if found is None:
        return ""
    looks = found[2]
    if looks.last is None or looks.last.complete:
        return ""
    return f"look {len(looks.looks):,} of {looks.total:,}"


#: What the first chart or table that names a stop's fixed-design intervals adds: which of the
#: report's intervals a reader may trust.
FOR_ORIENTATION = "Only the intervals named anytime-valid hold; these are shown for orientation."


def _named_table(table: Table, name: str, first: bool = False) -> Table:
    if not any(_INTERVAL_COLUMN.search(c) for c in table.columns):
        return table
    said = f"Its intervals: {name}." + (f" {FOR_ORIENTATION}" if first else "")
    return replace(table, interval_name=name, note=f"{table.note} {said}".strip())


def _named_chart(chart: Any, name: str, first: bool = False) -> Any:
    if not isinstance(chart, dict):
        return chart
    said = f"Its bars: {name}." + (f" {FOR_ORIENTATION}" if first else "")
    return {**chart, "note": f"{chart.get('note') or ''} {said}".strip()}


def name_fixed_intervals(result: ProbeResult, at: str) -> ProbeResult:
    """``result`` with every table of intervals and every chart of bars named as fixed-design
    and not holding after the stop ``at`` ("look 1 of 4"); ``result`` itself where ``at`` is
    empty (a design not stopped early). The first of them, as a report prints them (its charts
    before its tables), says too that only the anytime-valid intervals hold."""
    if not at:
        return result
    name = stopped_name(at, many=True)
    data = result.data
    charts = data.get("charts") if isinstance(data, dict) else None
    said = None
    if isinstance(charts, list):
        said = next((i for i, c in enumerate(charts) if isinstance(c, dict)), None)
        data = {**data, "charts": [_named_chart(c, name, i == said) for i, c in enumerate(charts)]}
    named = [i for i, t in enumerate(result.tables) if any(map(_INTERVAL_COLUMN.search, t.columns))]
    first = named[0] if named and said is None else None
    tables = [_named_table(t, name, i == first) for i, t in enumerate(result.tables)]
    return replace(result, tables=tables, data=data)
