"""Running an audit: every part through the Workspace, one budget, resumable as a whole.

Each probe or mitigation part is a Workspace run, found again by its fingerprint: a rerun after
a kill continues the part that stopped (no trial with a stored result is asked again) and skips
the parts recorded as finished. The spend of every part so far is taken from the budget before
the next starts, so ``budget.max_cost`` bounds the whole audit. Agent searches are driven by
the :data:`SearchRunner` a front end hands in (the CLI and the TUI hand the agent's,
:func:`diptych.agent.audit_search.run_search`), under sessions named after the audit, so they
resume from their checkpoints too. The audit and its parts are recorded in the workspace
(``ws.audits``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from diptych.audit.plan import (
    AuditPlan,
    AuditSource,
    PartPlan,
    plan_parts,
    read_overridden,
    reusable,
    search_session,
    stored_run,
)
from diptych.audit.report_files import write_report
from diptych.audit.search_part import SearchRunner, bounded, run_search_part, trials_asked
from diptych.audit.sequential import (
    LookEvent,
    SequentialOutcome,
    buy_until_decided,
    with_final_look,
)
from diptych.audit.spend import answered_now, held, spent_so_far
from diptych.audit.status_words import marked_reused
from diptych.core.audit import PartRecord
from diptych.core.audit.record import AuditRecord
from diptych.core.audit.schema import AuditFile
from diptych.core.audit.sequential import DEFAULT_BATCHES, PartLooks
from diptych.core.audit.stopped import failed_words, parts_not_run
from diptych.core.cost import answered
from diptych.core.errors import UsageError
from diptych.core.report.audit import cost_paid
from diptych.core.workspace import Reporter, RunOptions, Workspace

#: Run statuses after which the audit goes on to its next part. A part whose run has failed
#: trials (``incomplete``) is run again by the next run of the audit, which asks them again;
#: the audit is then recorded ``incomplete`` (:func:`_with_failures`).
FINISHED = ("complete", "incomplete")


#: ``on_part(name, status, detail)``: a part started (``running``), finished or was skipped.
PartEvent = Callable[[str, str, dict[str, Any]], None]


@dataclass
class AuditOutcome:
    audit_id: str
    status: str
    spent: float
    report: Path | None
    parts: list[PartRecord] = field(default_factory=list)
    #: Bought until its gates were decided: why it stopped, what it bought, what it saved.
    sequential: SequentialOutcome | None = None
    #: Parts left out, never run (``--until-decided`` buys the gated parts only).
    skipped: list[str] = field(default_factory=list)
    #: Every file the report wrote, by format (``md``, ``html``, ``json``, ``pdf``, ``figures``).
    files: dict[str, Path] = field(default_factory=dict)
    #: Trials stored as failed in the parts' runs, by run id (runs with none left out).
    failed: dict[str, int] = field(default_factory=dict)
    #: What this command asked: the requests answered while it ran, and their cost
    #: (:func:`~diptych.audit.spend.answered_now`).
    asked: float | None = None
    #: Requests its new runs found answered by an earlier run: reused, never asked.
    reused: int = 0
    #: Of ``spent``, the searches' agent calls, which no run holds.
    agent_calls: int = 0
    #: Of ``asked``, the searches' agent calls.
    agent_now: int = 0
    #: Parts no gate reads, complete before and kept as they are (``--until-decided``).
    kept: list[str] = field(default_factory=list)

    @property
    def status_text(self) -> str:
        """The status in words: an incomplete audit with its failed trials and what asks them
        again ("incomplete: 12 trials failed; diptych resume RUN or running the audit again
        asks them again")."""
        if self.status == "incomplete" and self.failed:
            return f"incomplete: {failed_words(self.failed)}"
        return self.status


def _failed(ws: Workspace, parts: list[PartRecord]) -> dict[str, int]:
    """The trials stored as failed in the parts' runs, by run id (runs with none left out)."""
    runs = dict.fromkeys(p.run_id for p in parts if p.run_id and p.kind != "search")
    counts = {run: ws.runs.counts(run).get("failed", 0) for run in runs if run}
    return {run: n for run, n in counts.items() if n}


def _with_failures(status: str, failed: dict[str, int]) -> str:
    """An audit that ran to its end with failed trials is ``incomplete``, never ``complete``:
    its report rests on fewer trials than its design, and a resume asks them again."""
    return "incomplete" if status == "complete" and failed else status


async def run_audit(
    ws: Workspace,
    source: AuditSource,
    *,
    options: RunOptions | None = None,
    reporter: Reporter | None = None,
    on_part: PartEvent | None = None,
    searches: SearchRunner | None = None,
    out_dir: str | os.PathLike[str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    until_decided: bool = False,
    batches: int = DEFAULT_BATCHES,
    on_look: LookEvent | None = None,
) -> AuditOutcome:
    """Run (or continue) every part of the audit file under one budget, record it with
    the file's hash and write its report. ``searches`` runs agent searches (a front end
    brings the agent); ``overrides`` replaces dotted fields (``models.m.params.base_url``).

    ``until_decided`` buys only the parts the gates read, in ``batches`` and in a random
    order, deciding the gates after each batch on anytime-valid intervals and stopping once
    every gate is decided (:mod:`diptych.audit.sequential`); ``on_look`` hears each look."""
    ws.require_writable("run an audit")
    audit, digest, text, overrides = read_overridden(source, overrides)
    plan = replace(plan_parts(ws, audit, digest), overrides=overrides)
    where = Path(out_dir) if out_dir is not None else None
    # An audit built in memory (``diptych run --gate``) has no file to name; a file is named by
    # its full path, so that the audit opens from any directory; a recorded audit's text run
    # again keeps the file it was recorded with.
    if isinstance(source, AuditFile):
        path = "(command line)"
    elif isinstance(source, AuditRecord):
        path = source.file_path
    else:
        path = str(Path(source).resolve())
    try:
        if until_decided:
            return await _run_until_decided(
                ws, plan, path=path, text=text, options=options, reporter=reporter,
                on_part=on_part, on_look=on_look, batches=batches, out_dir=where,
            )  # fmt: skip
        return await _run_plan(
            ws, plan, path=path, text=text, options=options, reporter=reporter,
            on_part=on_part, searches=searches, out_dir=where,
        )  # fmt: skip
    except BaseException:
        # Stopped (a quit, Ctrl-C) or failed: recorded as its runs were left, never "running"
        # with this process alive (the terminal app lives on after its audit).
        ws.audits.stopped(plan.id)
        raise


def _budget(audit_limit: float | None, given: float | None) -> float | None:
    """The audit's spending limit: the file's ``budget.max_cost`` and ``--max-cost``, the
    smaller where both are set."""
    limits = [x for x in (audit_limit, given) if x is not None]
    return min(limits) if limits else None


async def _run_until_decided(
    ws: Workspace,
    plan: AuditPlan,
    *,
    path: str,
    text: str,
    options: RunOptions | None,
    reporter: Reporter | None,
    on_part: PartEvent | None,
    on_look: LookEvent | None,
    batches: int,
    out_dir: Path | None,
) -> AuditOutcome:
    """Buy the gated parts until their gates are decided, then write the report of what was
    bought; the parts no gate reads are left for a run without ``--until-decided``."""
    audit = plan.audit
    if audit.gates is None or not audit.gates.checks:
        raise UsageError(
            "--until-decided stops when the gates are decided, and this audit states none "
            "(add a gates: section, or run without --until-decided)"
        )
    if batches < 2:
        raise UsageError(f"--batches must be at least 2, not {batches}")
    wanted = {g.part for g in audit.gates.checks}
    gated = [p for p in plan.parts if p.part.name in wanted]
    stored = ws.audits.begin(plan.id, audit.name, plan.file_hash, path, text, plan.overrides)
    # A part no gate reads is not run, but one complete before (a search run whole) is kept:
    # its run or its findings stay in the report.
    kept = plan.reused([p for p in plan.parts if p.part.name not in wanted], stored.parts)
    reused = [p.name for p in kept]
    # In the words of its record from now on (``diptych audit list``): the same rule.
    skipped = parts_not_run(audit, {*wanted, *reused})
    for part in kept:
        # Kept from an earlier run: every listing says so, and of what.
        ws.audits.save_part(plan.id, marked_reused(part))
        has = {"run": part.run_id, "session": part.detail.get("session")}
        if on_part is not None:
            on_part(part.name, "skipped", {**has, "status": part.status})
    # What this command asks is what the store holds answered from now on.
    since = time.time()
    # Every batch continues the part's one run (found by its fingerprint), never a new one.
    base = replace(options or RunOptions(), new=False, run_id=None)
    limit = _budget(audit.budget.max_cost, base.max_cost)

    def budget_left() -> float | None:
        if limit is None:
            return None
        current = [
            PartRecord(p.part.position, p.part.name, p.part.kind, found, "", None)
            for p in gated
            if (found := stored_run(ws, p)) is not None
        ]
        return max(limit - spent_so_far(ws, current), 0.0)

    bought = await buy_until_decided(
        ws, audit, plan.id, gated, {p.name: p for p in stored.parts}, options=base,
        budget_left=budget_left, batches=batches, reporter=reporter, on_look=on_look,
        on_part=on_part,
    )  # fmt: skip
    parts = sorted([*bought.parts, *kept], key=lambda p: p.position)
    summary = bought.summary
    status = {"decided": "decided", "max-cost": "over-budget", "interrupted": "interrupted"}.get(
        bought.stop, "complete"
    )
    if status == "decided" and summary is not None and not summary.early:
        status = "complete"
    failed = _failed(ws, parts)
    status = _with_failures(status, failed)
    holds = held(ws, parts)
    spent = holds.cost
    report: Path | None = None
    files: dict[str, Path] = {}
    run_ids = list(dict.fromkeys(p.run_id for p in parts if p.run_id and p.kind != "search"))
    if run_ids and bought.gates is not None:
        extra = {
            "sequential": summary.to_dict() if summary else None,
            "not_run": skipped,
            "reused": reused,
            "failed": failed,
        }
        report, files = write_report(ws, plan, plan.id, run_ids, parts, spent, out_dir, extra)
    ws.audits.finish(plan.id, status, str(report) if report else None, since=stored)
    asked = answered_now(ws, parts, since)
    return AuditOutcome(plan.id, status, spent, report, parts, bought, skipped, files, failed,
                        asked.cost, asked.reused, answered(holds.agent), kept=reused,
                        agent_now=asked.agent)  # fmt: skip


async def _run_plan(
    ws: Workspace,
    plan: AuditPlan,
    *,
    path: str,
    text: str,
    options: RunOptions | None = None,
    reporter: Reporter | None = None,
    on_part: PartEvent | None = None,
    searches: SearchRunner | None = None,
    out_dir: Path | None = None,
) -> AuditOutcome:
    """Run (or continue) every part of ``plan`` and write the audit's report."""
    audit = plan.audit
    if any(p.part.kind == "search" for p in plan.parts) and searches is None:
        raise UsageError("this audit has agent searches; run it from the CLI or the TUI")
    audit_id = plan.id
    stored = ws.audits.begin(audit_id, audit.name, plan.file_hash, path, text, plan.overrides)
    # What this command asks is what the store holds answered from now on.
    since = time.time()
    done = {p.name: p for p in stored.parts}
    notify = on_part or (lambda name, status, detail: None)
    base = options or RunOptions()
    limit = _budget(audit.budget.max_cost, base.max_cost)
    parts: list[PartRecord] = []
    runs_by_part: dict[str, str] = {}
    status = "complete"
    asked = 0  # the requests the parts run now made: what budget.max_requests bounds
    for planned in plan.parts:
        part = planned.part
        earlier = done.get(part.name)
        # Its run's looks, whichever audit took them: its answers were peeked at each one.
        looked = ws.audits.run_looks(run) if (run := _run_id(ws, planned, earlier)) else None
        # A part whose run has failed trials runs again: its run continues, asking them again.
        if earlier is not None and reusable(planned, earlier):
            if looked is not None and looked.active:
                # Looked at before: the complete design is the last look of the same plan.
                earlier = with_final_look(ws, audit, planned, earlier, looked)
                ws.audits.save_part(audit_id, earlier)
            elif earlier is not marked_reused(earlier):
                # Kept from an earlier run: every listing says so, and of what.
                earlier = marked_reused(earlier)
                ws.audits.save_part(audit_id, earlier)
            parts.append(earlier)
            if earlier.run_id:
                runs_by_part[part.name] = earlier.run_id
            # What the part has to name: its run, or an agent search's session.
            has = {"run": earlier.run_id, "session": earlier.detail.get("session")}
            notify(part.name, "skipped", {**has, "status": earlier.status})
            continue
        current = [p for p in parts]
        found = stored_run(ws, planned)
        if found is not None:
            current.append(PartRecord(part.position, part.name, part.kind, found, "", None))
        spent = spent_so_far(ws, current)
        remaining = None if limit is None else max(limit - spent, 0.0)
        notify(part.name, "running", {"spent": spent, "remaining": remaining})
        _started(ws, audit_id, planned, earlier, found)
        # A search runs under what the budget's requests leave it after the parts before it.
        running = replace(planned, part=bounded(part, audit.budget.max_requests, asked))
        try:
            outcome = await _run_part(
                ws, running, audit_id, base, remaining, reporter, searches, runs_by_part,
                audit.models, looked,
            )  # fmt: skip
        except BaseException:
            # Stopped (Ctrl-C, a quit) or failed in this part: the part names the run it
            # made, so that listings read the part in that run's status.
            _started(ws, audit_id, planned, earlier, found or stored_run(ws, planned))
            raise
        if looked is not None and looked.active and outcome.status in FINISHED:
            outcome = with_final_look(ws, audit, planned, outcome, looked)
        ws.audits.save_part(audit_id, outcome)
        asked += trials_asked(planned, outcome)
        parts.append(outcome)
        if outcome.run_id:
            runs_by_part[part.name] = outcome.run_id
        notify(part.name, outcome.status, {"run": outcome.run_id, **outcome.detail})
        if outcome.status not in FINISHED:
            status = outcome.status
            break
    failed = _failed(ws, parts)
    status = _with_failures(status, failed)
    holds = held(ws, parts)
    spent = holds.cost
    report: Path | None = None
    files: dict[str, Path] = {}
    run_ids = list(dict.fromkeys(p.run_id for p in parts if p.run_id and p.kind != "search"))
    if status in FINISHED and run_ids:
        report, files = write_report(
            ws, plan, audit_id, run_ids, parts, spent, out_dir, {"failed": failed}
        )
    ws.audits.finish(audit_id, status, str(report) if report else None, since=stored)
    now = answered_now(ws, parts, since)
    return AuditOutcome(audit_id, status, spent, report, parts, files=files, failed=failed,
                        asked=now.cost, reused=now.reused,
                        agent_calls=answered(holds.agent), agent_now=now.agent)  # fmt: skip


def _started(
    ws: Workspace, audit_id: str, planned: PartPlan, earlier: PartRecord | None, run: str | None
) -> None:
    """Record ``planned``'s part ``running`` (on ``run`` where it has one yet) from the moment
    it starts, so that a listing shows it, and after a stop or a kill the part it stopped in.
    A part its gates decided keeps its record: it says the rest of its design is bought on
    purpose only, whatever stopped the buying."""
    if earlier is not None and earlier.status == "decided":
        return
    part = planned.part
    detail = earlier.detail if earlier is not None else {}
    cost = earlier.cost if earlier is not None else None
    record = PartRecord(part.position, part.name, part.kind, run, "running", cost, detail)
    ws.audits.save_part(audit_id, record)


def _run_id(ws: Workspace, planned: PartPlan, earlier: PartRecord | None) -> str | None:
    """The run of ``planned``'s part: its record's, else the stored run of its design."""
    return earlier.run_id if earlier is not None and earlier.run_id else stored_run(ws, planned)


async def _run_part(
    ws: Workspace,
    planned: PartPlan,
    audit_id: str,
    base: RunOptions,
    remaining: float | None,
    reporter: Reporter | None,
    searches: SearchRunner | None,
    runs_by_part: dict[str, str],
    models: Any,
    looked: PartLooks | None = None,
) -> PartRecord:
    part = planned.part
    options = replace(base, max_cost=remaining)
    if looked is not None:
        # Bought until decided before: the rest of the design comes in the same order.
        options = replace(options, order_seed=looked.order_seed, order_share=None)
    if part.kind == "search":
        assert searches is not None
        baseline = runs_by_part.get(part.baseline) if part.baseline else None
        named = {name: (m.plugin, m.plugin_params()) for name, m in models.items()}
        return await run_search_part(
            ws,
            searches,
            part,
            named,
            search_session(audit_id, part.name),
            remaining,
            baseline,
            reporter,
        )
    assert part.probe is not None
    run = await ws.runs.run(
        part.probe, part.models, params=part.params, options=options, reporter=reporter
    )
    detail: dict[str, Any] = {
        "fingerprint": planned.fingerprint,
        "counts": ws.runs.counts(run.id),
    }
    if looked is not None:
        detail[PartLooks.KEY] = looked.to_dict()
    if run.status in FINISHED:
        for annotator in part.annotators:
            labelled = await ws.annotators.annotate(
                run.id,
                annotator.name,
                params=annotator.params,
                model=annotator.model,
                options=options,
                reporter=reporter,
            )
            detail.setdefault("annotators", {})[annotator.name] = asdict(labelled)
    return PartRecord(
        part.position,
        part.name,
        part.kind,
        run.id,
        run.status,
        cost_paid(ws.runs.view(run.id)),
        detail,
    )
