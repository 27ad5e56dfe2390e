"""The gates of ``Workspace.audits``: read an audit's gates and figures, resolve baselines,
decide.

A front end calls ``ws.audits.gates``; the verdicts themselves are
:mod:`diptych.core.audit.gates`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from diptych.core.audit import diff as _diff
from diptych.core.audit import record
from diptych.core.audit.gates import GateFigure, GateResult, GateRule, evaluate_gates
from diptych.core.audit.overrides import apply_overrides
from diptych.core.audit.schema import AuditFile, Gate, Gates, load_audit, parse_audit
from diptych.core.audit.sequential import (
    ANYTIME,
    Look,
    PartLooks,
    SequentialSummary,
    Untested,
    anytime_figure,
    capped_parts,
    own_stop,
    with_sequential_notes,
)
from diptych.core.audit.stopped import as_now, bought_on, failed_trials, held_now, part_looks
from diptych.core.errors import DiptychError, InputFileError, UsageError
from diptych.core.figure_names import Declared, stands_for
from diptych.core.metrics.uncertainty.intervals import IntervalRecipe
from diptych.core.report.reproduce import shown_overrides
from diptych.core.workspace import recorded
from diptych.core.workspace.gate_figures import unknown_figure

if TYPE_CHECKING:
    from diptych.core.store import Store
    from diptych.core.workspace.analysis import Analysis


@dataclass
class GateReport:
    """The gates of one recorded audit, decided."""

    audit_id: str
    audit_name: str
    family: str
    confidence: float
    results: list[GateResult]
    #: For an audit bought until its gates were decided: why it stopped and what it bought.
    sequential: SequentialSummary | None = None
    #: Which record an audit file named, where it has several here ("" for one, or an id).
    chosen: str = ""
    #: The parts bought until decided whose looks have spent their share of the level, each
    #: with the requests the rest of its design holds: their next decision is at the whole
    #: design (:func:`~diptych.core.audit.sequential.capped_parts`).
    capped: Mapping[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "audit": self.audit_id,
            "name": self.audit_name,
            "family": self.family,
            "confidence": self.confidence,
            "gates": [r.to_dict() for r in self.results],
            "sequential": self.sequential.to_dict() if self.sequential else None,
        }


def _target(
    store: Store, ref: str | Path, overrides: dict[str, Any] | None = None
) -> tuple[record.AuditRecord, Gates | None, str]:
    """The recorded audit to gate, the gates to apply and which record a file named: an audit
    file's newest record, or a recorded audit's own file; ``overrides`` as ``audit run --set``
    gave them, else as the record kept them (its gates as its run decided them)."""
    path, chosen = Path(ref), ""
    if path.suffix in (".yaml", ".yml") or path.is_file():
        rec, audit, chosen = recorded.newest_of_file(store, path, overrides)
    else:
        rec = recorded.get(store, str(ref))
        audit = parse_audit(rec.file_text, rec.file_path)
    given = overrides if overrides else rec.overridden
    return rec, (apply_overrides(audit, given) if given else audit).gates, chosen


def _previous(store: Store, rec: record.AuditRecord) -> str:
    same = [a for a in record.list_audits(store) if a.name == rec.name]
    earlier = [a for a in same[: [a.id for a in same].index(rec.id)] if a.report]
    if not earlier:
        raise UsageError(
            f"no_regression against 'previous': audit '{rec.name}' has no earlier record with a "
            "report; name a recorded audit or a report JSON in against"
        )
    return earlier[-1].id


def audit_gates(
    analysis: Analysis, store: Store, ref: str | Path, overrides: dict[str, Any] | None = None
) -> GateReport:
    """Decide the gates of an audit file (its newest record here) or of a recorded audit.
    Every figure a gate cannot rest on is one line of the :class:`InputFileError` raised."""
    rec, gates, chosen = _target(store, ref, overrides)
    if gates is None or not gates.checks:
        raise UsageError(f"audit '{rec.name}' states no gates (add a gates: section)")
    if all(g.part in _active_looks(store, rec) for g in gates.checks):
        # Every gate reads its part's looks, recorded with the audit: the report's figures are
        # not what they decide on, so a report moved or deleted since changes no verdict.
        return replace(_decide(analysis, store, rec, gates, rec.id, {}), chosen=chosen)
    name, report, _ = recorded.report_json(store, rec.id)
    return replace(_decide(analysis, store, rec, gates, name, report), chosen=chosen)


def report_gates(
    analysis: Analysis, store: Store, scope: Mapping[str, Any], report: Mapping[str, Any]
) -> GateReport | None:
    """The gates of the audit a report is being written for (``scope``: the audit's id and its
    gates as ``audit run`` read them, overrides applied), decided on the report's own figures
    exactly as ``audit gate`` decides them once the report is recorded; None when the report
    is not an audit's or its audit states no gates."""
    stated = scope.get("gates")
    audit_id = scope.get("audit_id")
    if not stated or not isinstance(audit_id, str):
        return None
    gates = Gates.model_validate(stated)
    if not gates.checks:
        return None
    rec = recorded.get(store, audit_id)
    return _decide(analysis, store, rec, gates, rec.id, report)


def report_scope(
    store: Store, run_ids: list[str], among: list[record.AuditRecord] | None = None
) -> dict[str, Any] | None:
    """The scope of the newest recorded audit (of ``among``, or any) with gates whose runs
    include every one of ``run_ids`` and whose gated parts' runs are all among them."""
    wanted = set(run_ids)
    for rec in reversed(record.list_audits(store) if among is None else among):
        if not wanted or not wanted <= set(rec.run_ids):
            continue
        audit = parse_audit(rec.file_text, rec.file_path)
        if rec.overridden:  # its gates as its run decided them, --set applied
            audit = apply_overrides(audit, rec.overridden)
        if audit.gates is None or not audit.gates.checks:
            continue
        gated = {g.part for g in audit.gates.checks}
        if any((p := rec.part(name)) is None or p.run_id not in wanted for name in gated):
            continue
        looks = _active_looks(store, rec)
        summary = SequentialSummary.of([p for n, p in looks.items() if n in gated])
        summary = summary and summary.with_failed(failed_trials(store, rec, gated))
        # A part bought on since its gates stopped it early is said in its run's status now.
        now = {p.name: p.status for p in as_now(store, rec).parts}
        later = bought_on(store, rec)
        return {
            "audit": rec.name,
            "audit_id": rec.id,
            "file_hash": rec.file_hash,
            "file": rec.file_path,
            "overrides": shown_overrides(rec.overridden),
            "parts": [
                {
                    "name": p.name,
                    "kind": p.kind,
                    "run": p.run_id,
                    "status": now.get(p.name, p.status),
                    "bought_on": p.name in later,
                }
                for p in rec.parts
            ],
            "gates": audit.gates.model_dump(mode="json"),
            "sequential": summary.to_dict() if summary else None,
        }
    return None


def looked_gates(analysis: Analysis, store: Store, audit_id: str, gates: Gates) -> GateReport:
    """The gates of an audit being bought until they are decided, on the looks its parts have
    recorded so far (``audit run --until-decided`` asks after every batch)."""
    rec = recorded.get(store, audit_id)
    return _decide(analysis, store, rec, gates, rec.id, {})


def _decide(
    analysis: Analysis,
    store: Store,
    rec: record.AuditRecord,
    gates: Gates,
    name: str,
    report: Mapping[str, Any],
) -> GateReport:
    """The gates decided: on the report's figures, or — for a part bought until its gates were
    decided (``audit run --until-decided``) — on the anytime-valid interval of its looks."""
    figures = _diff.report_figures(report)
    rules: list[GateRule] = []
    tested: dict[tuple[str, str, str], GateFigure] = {}
    problems: list[str] = []
    diffs: dict[str, _diff.AuditDiff] = {}
    sequential = _active_looks(store, rec)
    looks_of: dict[str, list[Look]] = {}
    for gate in gates.checks:
        rules.append(
            GateRule(
                gate.label,
                gate.part,
                gate.figure,
                gate.rule,
                gate.limit,
                gate.on_inconclusive,
                limit_high=gate.limit_high,
            )  # fmt: skip
        )
        part_looks = sequential.get(gate.part)
        if part_looks is None:
            fig = _gate_figure(analysis, store, rec, gate, name, figures, diffs)
        else:
            fig = _looked_figure(analysis, store, rec, gate, name, part_looks.looks)
            looks_of[gate.label] = part_looks.looks
        if isinstance(fig, str):
            problems.append(fig)
            continue
        tested[(gate.part, gate.figure, gate.rule)] = fig
    if problems:
        raise InputFileError("\n".join(problems))
    results = evaluate_gates(rules, tested, confidence=gates.confidence, family=gates.family)
    if looks_of:
        results = with_sequential_notes(results, looks_of)
    gated = {n: p for n, p in sequential.items() if n in {g.part for g in gates.checks}}
    # A part bought on since its gates stopped it: what it holds now beside its looks.
    summary = SequentialSummary.of(list(gated.values()))
    if summary is not None:  # this file's gates on the joined looks say why they stopped
        own = [PartLooks.of(p.detail) for p in rec.parts if p.name in gated]
        summary = replace(summary, stop=own_stop(list(gated.values()), own, results))
    summary = held_now(store, summary, rec, gated)
    summary = summary and summary.with_failed(failed_trials(store, rec, set(gated)))
    capped = capped_parts(gated, results, tested)
    return GateReport(
        name, rec.name, gates.family, gates.confidence, results, summary, capped=capped
    )


def _active_looks(store: Store, rec: record.AuditRecord) -> dict[str, PartLooks]:
    """The parts whose gates read their run's looks, by name: those this record took
    (:func:`~diptych.core.audit.stopped.part_looks`), which hold every look taken of the run
    before them, since its answers were peeked at each; never the looks another audit took
    after, which would rewrite what this one decided."""
    out = {}
    for part in rec.parts:
        looks = part_looks(store, part) if part.run_id else None
        if looks is not None:
            out[part.name] = looks
    return out


def _gate_figure(
    analysis: Analysis,
    store: Store,
    rec: record.AuditRecord,
    gate: Gate,
    name: str,
    figures: _diff.Figures,
    diffs: dict[str, _diff.AuditDiff],
    *,
    bootstrap: bool = True,
) -> GateFigure | str:
    """What one gate tests among ``figures``, or the line that says why it cannot."""
    key = (gate.part, gate.figure)
    if key not in figures:
        return unknown_figure(gate.label, key, figures, f"audit {rec.id}")
    if gate.no_regression is None:
        fig = GateFigure.from_number(figures[key])
    else:
        against = gate.no_regression.against
        base = _previous(store, rec) if against == "previous" else against
        if base not in diffs:
            diffs[base] = _against(analysis, store, base, rec, name, figures, bootstrap=bootstrap)
        fig = _difference(diffs[base], key)
    return f"gate '{gate.label}': {fig}" if isinstance(fig, str) else fig


def _looked_figure(
    analysis: Analysis,
    store: Store,
    rec: record.AuditRecord,
    gate: Gate,
    name: str,
    looks: list[Look],
) -> GateFigure | str:
    """One gate's anytime-valid figure over its part's looks. A look that gave the figure no
    interval (too few units yet) tests nothing and spends nothing, the latest one too: the gate
    is then undecided, never an error, so an audit bought until decided always continues. Only
    a figure the latest look does not name at all is an error (a misspelt gate). B − A of
    ``no_regression`` is read at each look from the two figures' intervals (audit diff's normal
    method): a look keeps numbers, not the data a bootstrap resamples."""
    found: list[tuple[Look, GateFigure | None]] = []
    named = False
    for i, look in enumerate(looks):
        figures = {(gate.part, f): dict(n) for f, n in look.numbers.items()}
        named = named or (gate.part, gate.figure) in figures
        fig = _gate_figure(analysis, store, rec, gate, name, figures, {}, bootstrap=False)
        if isinstance(fig, str):
            if i == len(looks) - 1 and not named and not _will_publish(rec, gate):
                return fig
            found.append((look, None))
            continue
        found.append((look, fig))
    combined = anytime_figure(found)
    if combined is None:
        number = looks[-1].numbers.get(gate.figure) or {}
        value = number.get("value")
        shown = float(value) if isinstance(value, int | float) else math.nan
        return GateFigure(
            shown, math.inf, 0.0, f"{ANYTIME}; no look has given the figure an interval yet",
            recipe=Untested(),
        )  # fmt: skip
    return combined


def _will_publish(rec: record.AuditRecord, gate: Gate) -> bool:
    """Whether the gate's part's probe declares the figure (it may be missing from the first
    looks, before anything it is made of has been bought: a story whose persons are all
    "they")."""
    try:
        declared = _declared_figures(parse_audit(rec.file_text, rec.file_path))
    except (DiptychError, ValueError):
        return False
    return declared is not None and _declared_name(declared, (gate.part, gate.figure)) is not None


def _against(
    analysis: Analysis,
    store: Store,
    base: str,
    rec: record.AuditRecord,
    name: str,
    figures: _diff.Figures,
    *,
    bootstrap: bool = True,
) -> _diff.AuditDiff:
    """``audit diff`` of the baseline against this audit's figures (``figures``: the report
    being written, or the recorded one): bootstrapped per part where both are recorded (and
    ``bootstrap``)."""
    name_a, report_a, rec_a = recorded.report_json(store, base)
    boot: dict[tuple[str, str], tuple[float, float, float]] = {}
    if rec_a is not None and bootstrap:
        for part_a in rec_a.parts:
            part_b = rec.part(part_a.name)
            if part_a.run_id and part_b is not None and part_b.run_id:
                boot.update(
                    recorded._bootstrapped(analysis, part_a.name, part_a.run_id, part_b.run_id)
                )
    return _diff.diff_figures(
        _diff.report_figures(report_a), figures, name_a=name_a, name_b=name, bootstrapped=boot
    )


def _difference(d: _diff.AuditDiff, key: tuple[str, str]) -> GateFigure | str:
    row = next((r for r in d.rows if (r.part, r.figure) == key), None)
    if row is None:
        return f"the baseline {d.a} has no figure '{key[1]}' in part '{key[0]}'"
    if row.difference is None or row.ci_low is None or row.ci_high is None:
        return "B − A has no interval (a figure of one audit has none)"
    se = (row.ci_high - row.ci_low) / (2 * _diff.Z95)
    method = {
        "bootstrap": "B − A by the bootstrap of audit diff, its 95% interval each side scaled by "
        "the normal quantile",
        "normal": "B − A by audit diff's normal approximation",
    }.get(row.method, row.method)
    # The interval audit diff prints, exactly at 95% (an asymmetric one too), each side
    # scaled by the normal quantile at the gate's level.
    printed = IntervalRecipe("printed", row.difference, printed=(row.ci_low, row.ci_high, 0.95))
    return GateFigure(row.difference, se, float("inf"), method, recipe=printed)


def _declared_figures(audit: AuditFile) -> dict[tuple[str, str | None], Any] | None:
    """The figures each part's probe declares it can publish (``Probe.figure_names``, some
    with a placeholder such as ``<model>``), keyed like a report's and each holding its
    declared name (which says whether the figure carries an interval), with ``(part, None)``
    marking a part whose names are known; None when no part's probe declares them."""
    from diptych.core.plugins import get_probe

    out: dict[tuple[str, str | None], Any] = {}
    for part in audit.probes:
        try:
            names = get_probe(part.probe, part.params).figure_names(len(part.models))
        # An unknown probe or bad parameters are audit check's own errors, reported there.
        except (DiptychError, ValueError):
            continue
        if names is not None:
            out[(part.part_name, None)] = {}
            out.update({(part.part_name, n): n for n in names})
    return out or None


def _declared_name(
    declared: Mapping[tuple[str, str | None], Any], key: tuple[str, str]
) -> str | None:
    """The part's declared name that holds the gate's figure, by name or by a placeholder."""
    if key in declared:
        return declared[key]
    return next(
        (name for part, name in declared if part == key[0] and name and stands_for(name, key[1])),
        None,
    )


def _no_interval(name: str) -> str | None:
    """Why a gate cannot rest on a declared figure, in the words a recorded run's number gets
    from :meth:`GateFigure.from_number`; None when it will carry an interval."""
    if not isinstance(name, Declared) or name.interval:
        return None
    return f"the figure has no interval ({name.what})"


def gate_problems(
    store: Store, source: str | Path, overrides: Mapping[str, Any] | None = None
) -> list[str]:
    """What ``audit check`` can say of a file's gates before it runs (``overrides``: ``--set``'s
    fields, applied as a run applies them): against the newest record of the same audit that
    has a report, every gate's figure must exist and carry an interval, and a named baseline
    must be readable and hold the figure."""
    audit, _ = load_audit(source)
    if overrides:
        audit = apply_overrides(audit, dict(overrides))
    if audit.gates is None:
        return []
    rec = record.get_audit(store, audit.name)
    problems: list[str] = []
    figures: dict[tuple[str, str | None], Any] | None = None
    if rec is not None and rec.report:
        try:
            recorded_figures = _diff.report_figures(recorded.report_json(store, rec.id)[1])
            figures = {(p, f): n for (p, f), n in recorded_figures.items()}
        except (UsageError, InputFileError):
            figures = None
    if figures is None:
        figures = _declared_figures(audit)
    for gate in audit.gates.checks:
        key = (gate.part, gate.figure)
        if figures is not None and (gate.part, None) in figures:
            # No run recorded yet: the names the part's probe declares, each saying whether
            # its figure will carry an interval.
            name = _declared_name(figures, key)
            if name is None:
                problems.append(unknown_figure(gate.label, key, figures, "the audit's probes"))
            elif (reason := _no_interval(name)) is not None:
                problems.append(f"gate '{gate.label}': {reason}")
        elif figures is not None:
            if key not in figures:
                where = f"the last run ({rec.id if rec else '?'})"
                problems.append(unknown_figure(gate.label, key, figures, where))
            else:
                fig = GateFigure.from_number(figures[key])
                if isinstance(fig, str):
                    problems.append(f"gate '{gate.label}': {fig}")
        if gate.no_regression is not None and gate.no_regression.against != "previous":
            against = gate.no_regression.against
            try:
                base = _diff.report_figures(recorded.report_json(store, against)[1])
            except (UsageError, InputFileError) as exc:
                problems.append(f"gate '{gate.label}': baseline: {exc}")
                continue
            if key not in base:
                problems.append(unknown_figure(gate.label, key, base, f"baseline {against}"))
    return problems


def declared_gate_problems(audit: AuditFile) -> list[str]:
    """What can be said of ``audit``'s gates from its probes' declared figure names alone,
    before anything is bought: a figure no part declares (with the nearest names), or one
    published without an interval. Parts whose probe declares no names are not checked."""
    figures = _declared_figures(audit)
    if audit.gates is None or figures is None:
        return []
    problems: list[str] = []
    for gate in audit.gates.checks:
        key = (gate.part, gate.figure)
        if (gate.part, None) not in figures:
            continue
        name = _declared_name(figures, key)
        if name is None:
            problems.append(unknown_figure(gate.label, key, figures, "the audit's probes"))
        elif (reason := _no_interval(name)) is not None:
            problems.append(f"gate '{gate.label}': {reason}")
    return problems
