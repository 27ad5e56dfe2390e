"""``Workspace.analysis``: what a run's results say — its analysis, the comparison of two
runs — and the audit report of runs."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from diptych.core.audit.record import list_audits
from diptych.core.audit.run_status import looks_by_run, status_said
from diptych.core.audit.stopped import stopped_look
from diptych.core.engine import settled
from diptych.core.labels import LabelPolicy
from diptych.core.plugins import get_probe
from diptych.core.probe import ProbeResult
from diptych.core.report import write_audit_report
from diptych.core.workspace.annotators import Annotators
from diptych.core.workspace.base import Kernel, ModelSpec, Namespace
from diptych.core.workspace.batch_view import BatchesRead, BatchView, batches_read
from diptych.core.workspace.findings import Findings
from diptych.core.workspace.look_trials import look_analysis
from diptych.core.workspace.plugins import build_model
from diptych.core.workspace.review import Review

if TYPE_CHECKING:
    from diptych.core.metrics.agreement import AnnotatorAgreement
    from diptych.core.runview import RunView


class Analysis(Namespace):
    """Analysis: a run's tables, figures and numbers with intervals, two runs compared, and
    the report — which reads a run's notes, annotator agreement and the agent findings scored
    on it as well as its results."""

    def __init__(
        self, kernel: Kernel, review: Review, annotators: Annotators, findings: Findings
    ) -> None:
        super().__init__(kernel)
        self._review = review
        self._annotators = annotators
        self._findings = findings
        #: How a report ranks the models of its runs (``ws.standings.table``): handed in by
        #: the workspace, because the standings read this namespace's analyses in turn.
        self.rank: Callable[[Sequence[str]], Any] | None = None
        #: Each figure of a run its gates stopped early, with the interval that holds after
        #: the stop (``decided.stopped_figures``): handed in by the workspace likewise, since
        #: the decided figures are read through this namespace's analyses.
        self.stopped: Callable[[str, Mapping[str, Mapping[str, Any]]], dict[str, Any]] | None = None

    def analyze(
        self,
        run_id: str,
        *,
        label_policy: LabelPolicy | None = None,
        calibration_subset: str | None = None,
        figures: bool = True,
    ) -> ProbeResult:
        """The probe's analysis of the run: tables, figures, flags and numbers with intervals.
        ``label_policy`` (human, automatic, mixed) says whose labels score people where the
        probe uses annotators' labels; None keeps the probe's default. ``calibration_subset``
        names the PAIRS subset an annotator's calibration may have been made on for its error
        rates to correct scores (None: only a calibration over all of PAIRS is used).
        ``figures=False`` leaves the charts out (``figures`` empty) for a caller that reads
        only the numbers and tables, which are those of the full analysis."""
        view = self._kernel.view(run_id)
        view.label_policy = label_policy
        view.calibration_subset = calibration_subset
        view.figures = figures
        return get_probe(view.run.probe, view.run.params).analyze(view)

    def analyze_batches(
        self, run_id: str, seed: int, share: float, *, label_policy: LabelPolicy | None = None
    ) -> tuple[ProbeResult, BatchesRead]:
        """The analysis a look of a sequential audit reads, after the first ``share`` of the
        order ``seed`` fixes was bought: as :meth:`analyze`, with answers stored for requests
        beyond those batches (by an unrelated run) unread (:mod:`.batch_view`); and what it
        read."""
        read = batches_read(self._store, run_id, seed, share)
        if not read.beyond:
            return self.analyze(run_id, label_policy=label_policy), read
        run = self._kernel.get_run(run_id)
        view = BatchView(self._store, run, label_policy=label_policy,
                         chroma_url=self._kernel.chroma_url, hidden=read.beyond)  # fmt: skip
        return get_probe(run.probe, run.params).analyze(view), read

    def compare(
        self,
        run_a: str,
        run_b: str,
        *,
        top: int | None = None,
        n_perm: int = 10_000,
        n_boot: int = 2000,
        seed: int = 0,
    ) -> ProbeResult:
        """How run B differs from run A (the baseline), as run A's probe compares two runs;
        for pst, B − A of every STS both runs have with a 95% bootstrap interval and a
        permutation p-value (PST Table 6), ``top`` narrowing it to A's most biased
        identities. Raises :class:`UsageError` when the probe does not compare runs."""
        view_a, view_b = self._kernel.view(run_a), self._kernel.view(run_b)
        probe = get_probe(view_a.run.probe, view_a.run.params)
        return probe.compare(view_a, view_b, top=top, n_perm=n_perm, n_boot=n_boot, seed=seed)

    def report(
        self,
        run_id: str | Sequence[str],
        out_dir: str | os.PathLike[str] | None = None,
        *,
        result: ProbeResult | None = None,
        label_policy: LabelPolicy | None = None,
        formats: str | Sequence[str] | None = None,
        draft_with: ModelSpec | None = None,
        scope: Mapping[str, Any] | None = None,
        gates: Callable[[Mapping[str, Any], Mapping[str, Any]], Any] | None = None,
        agent_sessions: Sequence[str] = (),
        frameworks: Sequence[str | os.PathLike[str]] = (),
    ) -> Path:
        """Write the audit report of one run or several (``run_id`` a list) into ``out_dir``
        (default ``diptych-report-<first run id>``): ``report.html`` (self-contained),
        ``report.md`` with its figures, ``report.json``, and ``report.pdf`` when ``formats``
        (``"html,md,json,pdf"`` or a list) asks for it. Returns the Markdown file's path, or
        the first file written when Markdown is not among the formats.

        ``result`` is the (first) run's analysis where the caller holds it already (else the
        run is analysed, its labels taken by ``label_policy`` as in :meth:`analyze`).
        ``draft_with`` names a Chat model that drafts the summary and discussion; sentences
        whose numbers or claims of significance the results do not bear out are dropped and
        listed (see :mod:`diptych.core.report.draft`). ``scope`` names what produced the
        report beyond its runs (an audit file: its name, id and hash); ``gates`` decides the
        audit's release gates on the report's figures, for the report to show beside its
        verdict (``Workspace.audits.report_gates``). The agent sessions that scored one of the
        runs are listed with their findings, and so are those named in ``agent_sessions`` (an
        audit's searches, which score runs of their own). ``frameworks`` names an
        organisation's framework files, mapped in the report's appendix after the shipped
        ones (a file that claims a framework is satisfied is refused)."""
        written = self.report_files(
            run_id,
            out_dir,
            result=result,
            label_policy=label_policy,
            formats=formats,
            draft_with=draft_with,
            scope=scope,
            gates=gates,
            agent_sessions=agent_sessions,
            frameworks=frameworks,
        )
        return written.get("md") or next(iter(written.values()))

    def report_files(
        self,
        run_id: str | Sequence[str],
        out_dir: str | os.PathLike[str] | None = None,
        *,
        result: ProbeResult | None = None,
        label_policy: LabelPolicy | None = None,
        formats: str | Sequence[str] | None = None,
        draft_with: ModelSpec | None = None,
        scope: Mapping[str, Any] | None = None,
        gates: Callable[[Mapping[str, Any], Mapping[str, Any]], Any] | None = None,
        agent_sessions: Sequence[str] = (),
        written: str | None = None,
        cwd: Path | None = None,
        frameworks: Sequence[str | os.PathLike[str]] = (),
    ) -> dict[str, Path]:
        """:meth:`report`, returning every file it wrote: the path of each format (``md``,
        ``html``, ``json``, ``pdf``) and, under ``figures``, the directory of the figures and
        images the Markdown and JSON name. ``written`` (the date it says it was written) and
        ``cwd`` (the directory its commands start from) make a report again as it was made,
        for ``ws.evidence.verify`` to compare."""
        ids = [run_id] if isinstance(run_id, str) else list(run_id)
        runs = [self._kernel.get_run(r).id for r in ids]
        out = Path(out_dir) if out_dir is not None else Path(f"diptych-report-{runs[0]}")
        return write_audit_report(
            _ReportSource(self),
            runs,
            out,
            formats=formats,
            result=result,
            label_policy=label_policy,
            draft_with=build_model(draft_with) if draft_with is not None else None,
            scope=dict(scope) if scope is not None else None,
            gates=gates,
            agent_sessions=agent_sessions,
            store=self._kernel.path,
            written=written,
            cwd=cwd,
            frameworks=[Path(f) for f in frameworks],
        )


class _ReportSource:
    """The workspace as the report reads it (:class:`~diptych.core.report.AuditSource`)."""

    def __init__(self, analysis: Analysis) -> None:
        self._analysis = analysis

    def view(self, run_id: str) -> RunView:
        return self._analysis._kernel.view(run_id)

    def status_text(self, run_id: str) -> str:
        store = self._analysis._kernel.store
        run = settled(store, self._analysis._kernel.get_run(run_id))
        return status_said(store, run, looks_by_run(list_audits(store)).get(run.id))

    def stopped(
        self, run_id: str, numbers: Mapping[str, Mapping[str, Any]]
    ) -> dict[str, dict[str, Any]]:
        if self._analysis.stopped is None:
            raise RuntimeError("the workspace hands Analysis its stopped figures before a report")
        return self._analysis.stopped(run_id, numbers)

    def stopped_look(self, run_id: str) -> str:
        return stopped_look(self._analysis._kernel.store, self._analysis._kernel.get_run(run_id).id)

    def at_look(self, view: RunView) -> tuple[bool, ProbeResult | None, RunView]:
        probe = get_probe(view.run.probe, view.run.params)
        return look_analysis(self._analysis._kernel.store, view, probe)

    def notes(self, run_id: str) -> list[dict[str, Any]]:
        return self._analysis._review.notes(run_id)

    def agreement(
        self, run_id: str, *, n_boot: int | None = None, seed: int | None = None
    ) -> AnnotatorAgreement:
        return self._analysis._annotators.agreement(run_id, n_boot=n_boot, seed=seed)

    def compare(
        self,
        run_a: str,
        run_b: str,
        *,
        top: int | None = None,
        n_perm: int = 10_000,
        n_boot: int = 2000,
        seed: int = 0,
    ) -> ProbeResult:
        return self._analysis.compare(
            run_a, run_b, top=top, n_perm=n_perm, n_boot=n_boot, seed=seed
        )

    def agent_findings(
        self, run_ids: Sequence[str] | None = None, *, sessions: Sequence[str] = ()
    ) -> list[dict[str, Any]]:
        return self._analysis._findings.list(run_ids, sessions=sessions)

    def standings(self, run_ids: Sequence[str]) -> Any:
        """Every model of the runs side by side (``ws.standings.table``)."""
        if self._analysis.rank is None:
            raise RuntimeError("the workspace hands Analysis its standings before a report")
        return self._analysis.rank(run_ids)
