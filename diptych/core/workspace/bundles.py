"""``Workspace.bundles``: a run's or an audit's evidence carried to another workspace.

:meth:`Bundles.export` writes a bundle (:mod:`diptych.core.evidence.bundle`: the records in
Parquet, the blobs by content hash, the report directory, a manifest of SHA-256 digests);
:meth:`Bundles.import_file` reads one into this workspace, offline, adding only what is missing.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from diptych.core.audit import record
from diptych.core.errors import RunNotFoundError, UsageError
from diptych.core.evidence.bundle import (
    BundleLimits,
    ExportSummary,
    ImportSummary,
    import_bundle,
    write_bundle,
)
from diptych.core.workspace import recorded
from diptych.core.workspace.base import Namespace


class Bundles(Namespace):
    """Evidence bundles out of and into the workspace."""

    def scope(self, ref: str) -> tuple[list[str], list[str], Path | None]:
        """The runs and recorded audits ``ref`` (a run or an audit) takes with it, and the
        recorded report directory of an audit. A run takes the recorded audits it is a part of
        (their records, not their other runs), so that its report keeps their gates and a
        signed report's manifest finds every record it names."""
        try:
            run = self._kernel.get_run(ref)
        except RunNotFoundError:
            run = None
        if run is not None:
            audits = [a.id for a in record.list_audits(self._store) if run.id in a.run_ids]
            return [run.id], audits, None
        audit = record.get_audit(self._store, ref)
        if audit is None:
            raise UsageError(
                f"no run or recorded audit '{ref}' in {self._kernel.path}; 'diptych runs' and "
                "'diptych audit list' show them"
            )
        report = recorded.report_path(self._store, audit)
        if report is not None and report.is_file():
            report = report.parent
        return audit.run_ids, [audit.id], report if report and report.is_dir() else None

    def export(
        self,
        ref: str,
        target: Path,
        *,
        report_dir: Path | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> ExportSummary:
        """Write the bundle of the run or audit ``ref`` to ``target`` (.zip, .tar, .tar.gz),
        with ``report_dir`` (an audit's recorded report directory when not given)."""
        runs, audits, recorded_report = self.scope(ref)
        return write_bundle(
            self._store,
            target,
            runs=runs,
            audits=audits,
            report_dir=report_dir or recorded_report,
            environ=environ,
        )

    def import_file(self, bundle: Path, *, limits: BundleLimits | None = None) -> ImportSummary:
        """Add the records, blobs and report directory of ``bundle`` that this workspace lacks;
        refuse (adding nothing) a bundle damaged, altered, oversized or unsafe, or a record held
        here otherwise."""
        self._kernel.writing("import a bundle")
        return import_bundle(self._store, bundle, limits=limits)
