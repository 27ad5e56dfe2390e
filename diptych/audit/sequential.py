"""Buying an audit's gated parts until their gates are decided (``audit run --until-decided``).

Each gated part's design is bought in equal batches, in the random order its seed fixes over
the design's distinct requests (``RunOptions.order_seed``), so that every prefix is a random
part of the whole design and a rerun continues the same order. After each batch the part's
gated figures are analysed on the requests of the batches bought so far (an answer another run
stored for a later batch waits for its batch) and kept as a look with the part's record
(:class:`~diptych.core.audit.sequential.PartLooks`); the audit's gates are then decided on the
anytime-valid interval of the looks (``ws.audits.looked_gates``). A part stops buying once its
gates are decided; the audit stops when every gate is decided, when the budget is spent, or
when the designs are complete. Each result is stored as it arrives and each look as it is
taken, so a kill at any moment loses nothing: the rerun finishes the batch it was in and takes
its look.

Once a part's looks have spent their share of the level (all of it but the complete design's
floor, :data:`~diptych.core.metrics.uncertainty.sequential.FINAL_FLOOR`), a later look short of
the complete design spends nothing and can decide nothing: the rest of its design is bought at
once as its last batch, and the next look is the complete design's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from diptych.audit.ordered import RecordingOrder, first_batch_record
from diptych.audit.plan import PartPlan, read_audit, stored_run
from diptych.core.audit import PartRecord
from diptych.core.audit.schema import AuditFile
from diptych.core.audit.sequential import (
    DEFAULT_BATCHES,
    Look,
    PartLooks,
    SequentialSummary,
    StopReason,
    look_text,
    status_at,
)
from diptych.core.cost import Cost
from diptych.core.report.audit import cost_paid
from diptych.core.workspace import Reporter, RunOptions, Workspace
from diptych.core.workspace.gates import GateReport

#: ``on_look(batch, batches, report)``: the gates as decided after a batch's look.
LookEvent = Callable[[int, int, GateReport], None]


@dataclass
class SequentialOutcome:
    """What buying until decided did: why it stopped, the gated parts as recorded, the gates
    as last decided, and the money the rest of the designs would have cost (``saved_cost``, at
    the plan's prices, with the requests it leaves unpriced)."""

    stop: StopReason
    parts: list[PartRecord]
    gates: GateReport | None
    summary: SequentialSummary | None
    saved_cost: Cost | None = None
    notes: list[str] = field(default_factory=list)


def order_seed_of(planned: PartPlan, audit: AuditFile) -> int:
    """The order's seed: the part's own seed parameter, else the audit's, else 0."""
    seed = planned.part.params.get("seed", audit.seed)
    return int(seed) if isinstance(seed, int) else 0


def requests_bought(ws: Workspace, run_id: str) -> tuple[int, int]:
    """Of the run's distinct requests, how many have an answer or a refusal stored, and how
    many there are. A failed request is not bought: it tells the figures nothing and a resume
    asks it again, so a design with failures is never complete."""
    view = ws.runs.view(run_id)
    keys = {t.key for t in view.trials}
    results = view.results
    return sum(1 for k in keys if k in results and results[k].status != "failed"), len(keys)


def _next_batch(looks: PartLooks) -> int:
    return looks.next_batch()


def _decide_looks(
    ws: Workspace, audit: AuditFile, audit_id: str, states: dict[str, PartLooks]
) -> GateReport | None:
    """The gates on the looks so far, once every gated part has one (None before)."""
    assert audit.gates is not None
    if not all(s.looks for s in states.values()):
        return None
    return ws.audits.looked_gates(audit_id, audit.gates)


def _decided(report: GateReport | None, part: str | None = None) -> bool:
    results = [r for r in (report.results if report else []) if part is None or r.part == part]
    return bool(results) and all(r.verdict != "inconclusive" for r in results)


async def buy_until_decided(
    ws: Workspace,
    audit: AuditFile,
    audit_id: str,
    gated: list[PartPlan],
    earlier: dict[str, PartRecord],
    *,
    options: RunOptions,
    budget_left: Callable[[], float | None],
    batches: int = DEFAULT_BATCHES,
    reporter: Reporter | None = None,
    on_look: LookEvent | None = None,
    on_part: Callable[[str, str, dict[str, Any]], None] | None = None,
) -> SequentialOutcome:
    """Buy the ``gated`` parts batch by batch until the audit's gates are decided (see the
    module docstring); ``earlier`` holds the parts as recorded before (a rerun continues their
    looks), ``budget_left`` the money left for the audit (None: no limit)."""
    assert audit.gates is not None
    notify = on_part or (lambda name, status, detail: None)
    states: dict[str, PartLooks] = {}
    runs: dict[str, str] = {}
    records: dict[str, PartRecord] = {}
    # The parts whose order is recorded from the start of their first batch (:mod:`.ordered`):
    # those with no record yet, or only the one a first batch stopped before its look left.
    first: set[str] = set()
    for planned in gated:
        name = planned.part.name
        before = earlier.get(name)
        if before is None or PartLooks.ORDER_KEY in before.detail:
            first.add(name)
        run_id = before.run_id if before is not None and before.run_id else None
        run_id = run_id or stored_run(ws, planned)
        # The looks its run was taken at, by this audit or another reading the same run: they
        # continue, in their order, and the level they spent stays spent. A part its gates
        # decided keeps its own: another audit's later looks never rewrite its decision.
        own = PartLooks.of(before.detail) if before is not None else None
        decided = own is not None and own.active and bool(own.looks) and own.stop == "decided"
        kept = own if decided else ws.audits.run_looks(run_id) if run_id else None
        if kept is not None and run_id is not None:
            states[name] = replace(kept, stop=None)
            runs[name] = run_id
            if before is None or PartLooks.of(before.detail) != kept:
                # Recorded with them before any look of its own, for its gates to read them.
                status = ws.runs.get(run_id).status
                ws.audits.save_part(audit_id, _record(ws, planned, run_id, status, kept))
        else:
            states[name] = PartLooks(batches, order_seed_of(planned, audit))
    report = _decide_looks(ws, audit, audit_id, states)
    stop: StopReason | None = "decided" if _decided(report) else None
    stalled: set[str] = set()
    while stop is None:
        bought_now: list[PartPlan] = []
        over_budget = False
        for planned in gated:
            name = planned.part.name
            state = states[name]
            batch = _next_batch(state)
            if batch > state.batches or name in stalled or _decided(report, name):
                continue
            left = budget_left()
            if left is not None and left <= 0:
                over_budget = True
                break
            rest = report.capped.get(name) if report is not None else None
            if rest is not None:
                # Its looks have spent their share of the level: a look short of the complete
                # design spends nothing and decides nothing, so the rest is bought at once.
                batch = state.batches
            doing = {"batch": batch, "batches": state.batches, "remaining": left, "rest": rest}
            notify(name, "running", doing)
            told = reporter
            if state.last is None and name in first:
                told = RecordingOrder(reporter, partial(_order_kept, ws, audit_id, planned, state))
            run = await ws.runs.run(
                planned.part.probe or "",
                planned.part.models,
                params=planned.part.params,
                options=replace(
                    options,
                    max_cost=left,
                    order_seed=state.order_seed,
                    order_share=batch / state.batches,
                ),
                reporter=told,
            )
            runs[name] = run.id
            for annotator in planned.part.annotators:
                await ws.annotators.annotate(
                    run.id,
                    annotator.name,
                    params=annotator.params,
                    model=annotator.model,
                    options=replace(options, max_cost=budget_left()),
                    reporter=reporter,
                )
            over_budget = over_budget or run.status == "over-budget"
            look = _look(ws, audit, run.id, batch, state)
            if state.last is not None and look.bought == state.last.bought:
                # Nothing new stored (the model stopped answering): its trials wait for a rerun.
                stalled.add(name)
                continue
            state.looks.append(look)
            records[name] = _record(ws, planned, run.id, run.status, state)
            ws.audits.save_part(audit_id, records[name])
            notify(name, records[name].status, _at(state))
            bought_now.append(planned)
        if bought_now:
            report = _decide_looks(ws, audit, audit_id, states)
            for planned in bought_now:
                name = planned.part.name
                if _decided(report, name) and ws.runs.get(runs[name]).status == "partial":
                    # Its gates are decided: the rest of its design is not needed.
                    ws.runs.settle(runs[name], "decided")
                    records[name] = _record(ws, planned, runs[name], "decided", states[name])
                    ws.audits.save_part(audit_id, records[name])
                    notify(name, "decided", _at(states[name]))
            if on_look is not None and report is not None:
                # The looks taken, of all its design is read in (a batch cut short is read
                # again): never "look 5 of 4".
                last = max(len(states[p.part.name].looks) for p in bought_now)
                on_look(last, max(s.total for s in states.values()), report)
        if _decided(report):
            stop = "decided"
        elif over_budget:
            stop = "max-cost"
        elif not bought_now:
            stop = "interrupted" if stalled else "complete"
    for planned in gated:
        name = planned.part.name
        state = states[name]
        state.stop = stop
        run_id = runs.get(name)
        if run_id is None:
            continue
        # A part whose batch was bought in full waits for no look any more: say why the rest
        # of its design stays unbought.
        why = {"decided": "decided", "max-cost": "over-budget"}.get(stop, "interrupted")
        status = ws.runs.settle(run_id, why).status
        records[name] = _record(ws, planned, run_id, status, state)
        ws.audits.save_part(audit_id, records[name])
        notify(name, records[name].status, _at(state))
    summary = SequentialSummary.of(list(states.values()))
    held = report.sequential if report is not None else None
    if summary is not None and held is not None and held.bought_now is not None:
        # A run bought on since its gates stopped it: what it holds now, not what was saved.
        summary = replace(summary, bought_now=held.bought_now, trials_now=held.trials_now)
    return SequentialOutcome(
        stop,
        [records[p.part.name] for p in gated if p.part.name in records],
        report,
        summary,
        _saved_cost(ws, gated, runs),
    )


def _order_kept(
    ws: Workspace, audit_id: str, planned: PartPlan, state: PartLooks, run_id: str
) -> None:
    ws.audits.save_part(
        audit_id, first_batch_record(planned, run_id, state.order_seed, state.batches)
    )


def _at(state: PartLooks) -> dict[str, Any]:
    """Where a part stands, for ``on_part``: the look it is at, of how many."""
    last = state.last
    return {
        "look": len(state.looks),
        "batches": state.total,
        "complete": last is not None and last.complete,
    }


def part_status_words(status: str, detail: dict[str, Any]) -> str:
    """A part's status as the audit's progress lines and the terminal app's part rows say it:
    the batch a running part buys (the rest of its design where its looks' share of the level
    is spent), the look a stopped one stands at ("decided at look 2 of 10"); its status alone
    for a part not bought batch by batch."""
    if "batch" in detail and status == "running":
        if detail.get("rest") is not None:
            rest = detail["rest"]
            return f"running the rest of the design ({rest:,} request{'s' if rest != 1 else ''})"
        return f"running batch {detail['batch']} of {detail['batches']}"
    if "look" in detail and detail["look"]:
        at = look_text(detail["look"], detail["batches"], bool(detail.get("complete")))
        return status_at(status, at)
    return status


def _look(ws: Workspace, audit: AuditFile, run_id: str, batch: int, looks: PartLooks) -> Look:
    """The part's figures after ``batch``, as its analysis gives them on the requests of
    batches 1 to ``batch`` (an unrelated run's answers to later ones are read when their batch
    comes: :mod:`diptych.core.workspace.batch_view`): every figure, not only the gated, so
    that each figure of a design stopped early has the anytime-valid interval of its own looks
    (:func:`diptych.core.workspace.decided.stopped_numbers`)."""
    result, read = ws.analysis.analyze_batches(
        run_id, looks.order_seed, batch / looks.batches, label_policy=audit.labels.policy
    )
    kept = {f: dict(n) for f, n in result.numbers.items() if isinstance(n, dict)}
    return Look(batch, len(read.read), read.planned, kept, read.held)


def with_final_look(
    ws: Workspace, audit: AuditFile, planned: PartPlan, part: PartRecord, looks: PartLooks
) -> PartRecord:
    """A part once bought until decided, its design now read whole (a run without
    ``--until-decided``): the complete design is the last look of the same spending plan, and
    spends what is left of the level — never the fixed design's full level, which would add
    to what the earlier looks spent (docs/gates.md). Nothing is added where the last look
    already saw the complete design."""
    last = looks.last
    if audit.gates is None or part.run_id is None or (last is not None and last.complete):
        kept = replace(looks, active=True, stop=looks.stop or "complete")
    else:
        look = _look(ws, audit, part.run_id, looks.batches, looks)
        # Run whole but not complete (failed trials): it stopped short, for a resume to finish.
        stop: StopReason = "complete" if look.complete else "interrupted"
        kept = replace(looks, looks=[*looks.looks, look], active=True, stop=stop)
    return replace(part, detail={**part.detail, PartLooks.KEY: kept.to_dict()})


def read_whole(ws: Workspace, run_id: str) -> int:
    """A run an audit bought until decided and stopped early, since bought whole (``diptych
    resume`` of the decided run): on each such audit, its complete design recorded as the last
    look of the same spending plan, as rerunning the audit records it (:func:`with_final_look`),
    so that every listing of the run reads its complete design — its gates on the last look,
    its other figures on their fixed-design intervals — and none the look it stopped at. The
    number of parts recorded; none while the run's design is not whole."""
    bought, total = requests_bought(ws, run_id)
    if bought < total:
        return 0
    recorded = 0
    for rec in ws.audits.list():
        for part in rec.parts:
            looks = PartLooks.of(part.detail) if part.run_id == run_id else None
            if looks is None or not looks.active or looks.last is None or looks.last.complete:
                continue
            audit = read_audit(rec)[0]
            look = _look(ws, audit, run_id, looks.batches, looks)
            kept = replace(looks, looks=[*looks.looks, look], stop="complete")
            ws.audits.save_part(
                rec.id, replace(part, detail={**part.detail, PartLooks.KEY: kept.to_dict()})
            )
            recorded += 1
    return recorded


def _record(
    ws: Workspace, planned: PartPlan, run_id: str, status: str, state: PartLooks
) -> PartRecord:
    """The part as the audit records it: ``decided`` where it stopped early with its gates
    decided, else its run's status; its looks in the detail."""
    last = state.last
    early = last is not None and not last.complete
    shown = "decided" if state.stop == "decided" and early else status
    part = planned.part
    detail: dict[str, Any] = {
        "fingerprint": planned.fingerprint,
        "counts": ws.runs.counts(run_id),
        PartLooks.KEY: state.to_dict(),
    }
    return PartRecord(
        part.position,
        part.name,
        part.kind,
        run_id,
        shown,
        cost_paid(ws.runs.view(run_id)),
        detail,
    )


def _saved_cost(ws: Workspace, gated: list[PartPlan], runs: dict[str, str]) -> Cost | None:
    """What the requests left unbought would cost at the plan's prices, with how many of them
    have none (None: a part not planned)."""
    total = Cost()
    for planned in gated:
        part = planned.part
        if part.name not in runs:
            if planned.estimate is None:
                return None
            total += planned.estimate.cost
            continue
        total += ws.runs.plan(part.probe or "", part.models, params=part.params).cost
    return total
