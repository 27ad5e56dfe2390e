"""``Workspace.audits``: the audits recorded in the workspace — list them, decide their gates,
diff two — and the record an audit runner keeps of its parts.

Running an audit file is a front end's (:mod:`diptych.audit`), which drives the parts through
the Workspace and records them here; the core imports no front end.
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from diptych.core.audit import diff as _diff
from diptych.core.audit import record
from diptych.core.audit.look_by_look import LookByLook, look_by_look
from diptych.core.audit.schema import Gates
from diptych.core.audit.sequential import PartLooks
from diptych.core.audit.stopped import (
    as_now,
    audit_status_text,
    bought_on,
    decided_runs,
    name_fixed_intervals,
    not_run,
    part_status_text,
    run_looks,
    stopped_look,
    stopped_status,
)
from diptych.core.errors import UsageError
from diptych.core.labels import LabelPolicy
from diptych.core.plugins import get_probe
from diptych.core.probe import ProbeResult
from diptych.core.report.reproduce import NO_AUDIT
from diptych.core.workspace import gates as _gates
from diptych.core.workspace import recorded
from diptych.core.workspace.analysis import Analysis
from diptych.core.workspace.base import Kernel, ModelSpec, Namespace
from diptych.core.workspace.decided import (
    bought_on_numbers,
    decided_numbers,
    fixed_beside,
    stopped_numbers,
    with_decided,
)
from diptych.core.workspace.gates import GateReport
from diptych.core.workspace.look_trials import ALL_TRIALS, look_analysis
from diptych.core.workspace.reads_ahead import StoredReads, reads_ahead


class Audits(Namespace):
    """Recorded audits: every audit file run (or being run) here with its parts, their gates
    decided and two of them compared; and the steps of recording one as it runs."""

    def __init__(self, kernel: Kernel, analysis: Analysis) -> None:
        super().__init__(kernel)
        self._analysis = analysis

    def read(
        self,
        run_id: str,
        *,
        label_policy: LabelPolicy | None = None,
        calibration_subset: str | None = None,
        figures: bool = True,
    ) -> ProbeResult:
        """A run's analysis as every listing of the run shows it (``diptych show``, the terminal
        app's run detail and review line): a figure an audit's gates decided on its looks
        carries the interval the decision used, named (:meth:`decided`); every other figure of a
        design stopped early on its gates the interval that holds after that stop, or its own
        named as not holding (:func:`~diptych.core.workspace.decided.stopped_numbers`); of a
        design read whole after its looks, its own named fixed-design
        (:func:`~diptych.core.workspace.decided.fixed_beside`). ``figures=False`` leaves the
        charts out, as :meth:`Analysis.analyze` does: the numbers are the same."""
        result = self._analysis.analyze(
            run_id, label_policy=label_policy, calibration_subset=calibration_subset,
            figures=figures,
        )  # fmt: skip
        run = self._kernel.get_run(run_id).id
        decided = decided_numbers(self._analysis, self._store, run)
        decided.update(stopped_numbers(self._store, run, result.numbers, decided))
        # Bought on since its stop: each figure as its looks read it, never a second interval.
        decided.update(bought_on_numbers(self._analysis, self._store, run, result.numbers))
        decided.update(fixed_beside(result.numbers, decided))
        if decided:
            result = replace(result, numbers=with_decided(result.numbers, decided))
        result = self._at_look(run_id, result, label_policy, calibration_subset, figures)
        # Its breakdowns' intervals are fixed-design: named as not holding after an early stop.
        return name_fixed_intervals(result, stopped_look(self._store, run))

    def _at_look(
        self,
        run_id: str,
        result: ProbeResult,
        label_policy: LabelPolicy | None,
        calibration_subset: str | None,
        figures: bool = True,
    ) -> ProbeResult:
        """``result`` of a run bought on since its gates stopped it early with its breakdowns
        read on the trials its look read, as its figures are (:func:`look_analysis`); where
        those cannot be rebuilt, a note says its breakdowns read all its trials."""
        view = self._kernel.view(run_id)
        view.label_policy, view.calibration_subset = label_policy, calibration_subset
        view.figures = figures
        since, looked, _ = look_analysis(
            self._store, view, get_probe(view.run.probe, view.run.params)
        )
        if looked is not None:
            return replace(looked, title=result.title, numbers=result.numbers)
        if since:
            return replace(result, notes=[*result.notes, ALL_TRIALS])
        return result

    def decided(self, run_id: str) -> dict[str, dict[str, Any]]:
        """The figures of the run that an audit's gates decided on its looks (``audit run
        --until-decided``), each as the look it was decided at had it with the gate's interval,
        named ("95% anytime-valid interval, look 1 of 10"): what every listing of the run shows
        for those figures in place of the analysis's own fixed-design interval (see
        :mod:`diptych.core.workspace.decided`). Empty for any other run."""
        return decided_numbers(self._analysis, self._store, self._kernel.get_run(run_id).id)

    def list(self) -> builtins.list[record.AuditRecord]:
        """Every audit recorded in the workspace, oldest first, with its parts."""
        return record.list_audits(self._store)

    def run_looks(self, run_id: str) -> PartLooks | None:
        """The looks the run's answers were taken at by every audit that bought it batch by
        batch (:func:`~diptych.core.audit.stopped.run_looks`); None where none did."""
        return run_looks(self._store, run_id)

    def reads_ahead(self, run_id: str, order_seed: int, batches: int) -> StoredReads:
        """What buying the run until decided starts from: its requests stored, and how many
        each look would read (:func:`~diptych.core.workspace.reads_ahead.reads_ahead`)."""
        return reads_ahead(self._store, self._kernel.get_run(run_id).id, order_seed, batches)

    def stopped_look(self, run_id: str) -> str:
        """The look ("look 1 of 4") at which an audit's gates stopped the run's design early:
        a fixed-design interval of its answers (a breakdown's, a comparison's B − A) does not
        hold after it. Empty for any other run."""
        return stopped_look(self._store, self._kernel.get_run(run_id).id)

    def as_now(self, audit: record.AuditRecord) -> record.AuditRecord:
        """``audit`` as a listing shows it: a part whose run was bought on after the audit's
        gates stopped it early, and the audit, in the run's own status ("interrupted"), as
        ``diptych runs`` says it (:func:`~diptych.core.audit.stopped.as_now`)."""
        return as_now(self._store, audit)

    def look_by_look(self, run_id: str) -> LookByLook | None:
        """The audit buying the run look by look whose gates have not decided it yet, and the
        batch it stopped in; None for any other run. A resume of such a run says so, names
        the audit's command that goes on batch by batch, and buys the whole design only when
        asked (:func:`~diptych.core.audit.look_by_look.look_by_look`)."""
        return look_by_look(self._store, self._kernel.get_run(run_id).id)

    def decided_runs(self, audit_id: str) -> builtins.list[str]:
        """The runs of the recorded audit ``audit_id`` its gates stopped short of their design
        that still have the rest of it to buy (none where no audit of that id is recorded):
        what running the audit whole buys on purpose only, asked first by every front end
        (:func:`~diptych.core.audit.stopped.decided_runs`)."""
        found = {a.id: a for a in self.list()}.get(audit_id)
        return decided_runs(self._store, found) if found is not None else []

    def status_text(self, audit: record.AuditRecord) -> str:
        """``audit``'s status in words: an incomplete one with its failed trials and what asks
        them again (:func:`~diptych.core.audit.stopped.audit_status_text`)."""
        return audit_status_text(self._store, audit)

    def not_run(self, audit: record.AuditRecord) -> builtins.list[str]:
        """The parts of ``audit``'s file no run of it has recorded, in the file's order
        (:func:`~diptych.core.audit.stopped.not_run`): its status names them."""
        return not_run(audit)

    def part_status_text(self, part: record.PartRecord) -> str:
        """A part's status in words (``part``: as :meth:`as_now` lists it), as its run's
        (:func:`~diptych.core.audit.stopped.part_status_text`)."""
        return part_status_text(self._store, part)

    def get(self, ref: str) -> record.AuditRecord:
        """The recorded audit whose id starts with ``ref``, else the newest named ``ref``."""
        return recorded.get(self._store, ref)

    def file(self, rec: record.AuditRecord) -> Path | None:
        """The recorded audit's file from here (any directory), or None when it is gone or
        moved: then the audit opens from its recorded text (``plan_audit(ws, rec)``)."""
        return recorded.audit_file(self._store, rec)

    def report_path(self, rec: record.AuditRecord) -> Path | None:
        """Where the recorded audit's report is from here, or None when it has none; a path an
        earlier diptych recorded relative to where the audit ran is found from the current or
        the workspace's directory, else one :class:`UsageError` line says what to do."""
        return recorded.report_path(self._store, rec)

    def gates(
        self, ref: str | os.PathLike[str], overrides: dict[str, Any] | None = None
    ) -> GateReport:
        """Decide the release gates of an audit file (its newest record here) or of a recorded
        audit: pass, fail or inconclusive per gate, Holm-adjusted as one family; ``overrides``
        are ``audit run --set``'s."""
        where = Path(ref) if not isinstance(ref, str) else ref
        return _gates.audit_gates(self._analysis, self._store, where, overrides)

    def report_gates(
        self, scope: Mapping[str, Any], report: Mapping[str, Any]
    ) -> GateReport | None:
        """The gates of the audit a report is being written for (``scope``: its id and gates),
        decided on that report's figures as :meth:`gates` decides them; None without gates."""
        return _gates.report_gates(self._analysis, self._store, scope, report)

    def looked_gates(self, audit_id: str, gates: Gates) -> GateReport:
        """The ``gates`` of an audit being bought until they are decided, on the looks its
        parts have recorded so far: anytime-valid, Holm-adjusted as one family."""
        return _gates.looked_gates(self._analysis, self._store, audit_id, gates)

    def bought_on(self, audit_id: str) -> set[str]:
        """The parts of the recorded audit whose run was bought on since its gates stopped it
        early, by name: a report reads their figures from all their trials, not the look's."""
        return bought_on(self._store, recorded.get(self._store, audit_id))

    def report_scope(
        self, run_ids: builtins.list[str], audit: str | None = None
    ) -> dict[str, Any] | None:
        """What a report of ``run_ids`` says produced it when they are a recorded audit's runs
        (the newest such audit whose gates read only these runs): its name, id, hash, file,
        parts and gates, as ``audit run`` hands them to its own report, so that ``diptych
        report`` of an audit's runs keeps its gates, and the parts of its file no run of it
        recorded (:meth:`not_run`), which the report says it left out as the audit's own does;
        None when no recorded audit fits.

        ``audit`` names the record instead (its id or a unique start of it), so that a printed
        command keeps meaning what it reported after a newer audit records the same runs;
        :data:`NO_AUDIT` for the runs alone. A record that cannot be kept is a UsageError."""
        if audit == NO_AUDIT:
            return None
        among = None if audit is None else [self.get(audit)]
        scope = _gates.report_scope(self._store, run_ids, among)
        if scope is None and among is not None:
            raise UsageError(
                f"audit {among[0].id} has no gates that read only runs "
                f"{', '.join(run_ids)}; --audit {NO_AUDIT} reports the runs alone"
            )
        if scope is None:
            return None
        return {**scope, "not_run": self.not_run(self.get(scope["audit_id"]))}

    def write_report(
        self,
        run_ids: builtins.list[str],
        out_dir: str | os.PathLike[str],
        *,
        label_policy: LabelPolicy | None = None,
        formats: str | builtins.list[str] | None = None,
        draft_with: ModelSpec | None = None,
        frameworks: builtins.list[str | os.PathLike[str]] | None = None,
        audit: str | None = None,
    ) -> dict[str, Path]:
        """The report of ``run_ids`` that ``diptych report`` and the TUI's report write, every
        file written (:meth:`Analysis.report_files`): the runs of a recorded audit are
        reported as that audit's (:meth:`report_scope`, ``audit`` naming the record or
        :data:`NO_AUDIT`), with its title, its gates decided on the report's figures, the
        intervals those gates decided on and the command that buys nothing again; other runs
        are reported as runs alone."""
        scope = self.report_scope(run_ids, audit)
        return self._analysis.report_files(
            run_ids,
            out_dir,
            label_policy=label_policy,
            formats=formats,
            draft_with=draft_with,
            scope=scope,
            gates=self.report_gates if scope else None,
            frameworks=frameworks or [],
        )

    def gate_problems(
        self, source: str | os.PathLike[str], overrides: Mapping[str, Any] | None = None
    ) -> builtins.list[str]:
        """What can be said of an audit file's gates before it runs (with ``audit run
        --set``'s ``overrides``), one line a problem."""
        return _gates.gate_problems(self._store, Path(source), overrides)

    def diff(self, a: str, b: str) -> _diff.AuditDiff:
        """Audit B against audit A (recorded audits or report JSONs): every headline figure
        side by side with B − A and the interval of the difference, its method named."""
        return recorded.diff(self._analysis, self._store, a, b)

    # --- recording an audit as it runs --------------------------------------------------------

    def begin(
        self,
        audit_id: str,
        name: str,
        file_hash: str,
        path: str,
        text: str,
        overrides: Mapping[str, Any] | None = None,
    ) -> record.AuditRecord:
        """Record the audit ``audit_id`` of the file at ``path`` (its ``text`` and sha256) as
        running — a new record, or a recorded one running again, with this run's ``--set``
        ``overrides`` — and return it with the parts it recorded before."""
        self._kernel.writing("run an audit")
        record.begin(self._store, audit_id, name, file_hash, path, text, overrides)
        return self.get(audit_id)

    def save_part(self, audit_id: str, part: record.PartRecord) -> None:
        """Record one part of the audit as it stands (replacing its earlier record)."""
        self._kernel.writing("run an audit")
        record.save_part(self._store, audit_id, part)

    def stopped(self, audit_id: str) -> None:
        """Record an audit this process stopped mid-way (a quit, Ctrl-C, a failed part) as its
        parts' runs are stored (:func:`~diptych.core.audit.stopped.stopped_status`), never left
        ``running``; one another process is running is its own."""
        found = {a.id: a for a in self.list()}.get(audit_id)
        mine = found is not None and found.process in (None, record.this_process())
        if found is not None and mine and found.status == "running":
            record.finish(self._store, audit_id, stopped_status(self._store, found))

    def finish(
        self,
        audit_id: str,
        status: str,
        report: str | None = None,
        since: record.AuditRecord | None = None,
    ) -> None:
        """Record the audit's status after a run, and its report where one was written.

        ``since`` is the record as the run began (:meth:`begin`). A run that asked nothing of
        the runs it had recorded (the report's reproduce command, pasted) wrote a copy of its
        report: the record keeps naming the report it has while that is still there, so that
        reproducing an audit never re-points it; a run that asked something records its own."""
        self._kernel.writing("run an audit")
        if report is not None and since is not None and self._copy(audit_id, since):
            report = None  # kept: record.finish leaves the recorded report as it is
        record.finish(self._store, audit_id, status, report)

    def _copy(self, audit_id: str, since: record.AuditRecord) -> bool:
        """Whether the audit's run since ``since`` reported the same runs as the report it had
        recorded, still in its place, and asked none of their trials anything."""
        try:
            kept = recorded.report_path(self._store, since)
        except UsageError:
            return False  # recorded relative to a directory not found from here
        if kept is None or not kept.exists():
            return False
        runs = self.get(audit_id).run_ids
        if sorted(runs) != sorted(since.run_ids):
            return False
        return not record.asked_since(self._store, runs, since.updated_at)
