"""The Workspace: the one road from a front end (CLI, TUI, agent) into the core.

The class is composed of the steps of this package, one module per concern: reading runs
(:mod:`.reading`), running probes (:mod:`.running`), human review (:mod:`.review`), annotators
(:mod:`.annotators`), analysis and reports (:mod:`.analysis`), what the workspace keeps for its
front ends (:mod:`.preferences`), what agent sessions found (:mod:`.findings`), over the store
and plugins they share (:mod:`.base`). Opening a workspace and its audit files are here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from diptych.core.audit import (
    AuditDiff,
    AuditFile,
    AuditOutcome,
    AuditPlan,
    AuditRecord,
    PartEvent,
    SearchRunner,
)
from diptych.core.engine import Reporter, RunOptions
from diptych.core.store import Store, default_store_path
from diptych.core.vectors import check_server_url
from diptych.core.workspace import audits as _audits
from diptych.core.workspace import gates as _gates
from diptych.core.workspace.analysis import AnalysisSteps
from diptych.core.workspace.base import ModelSpec, Params, ProbeSpec
from diptych.core.workspace.gates import GateReport
from diptych.core.workspace.preferences import PreferenceSteps
from diptych.core.workspace.reading import ReadingSteps

__all__ = ["CHROMA_ENV", "ModelSpec", "Params", "ProbeSpec", "Workspace"]

#: The environment variable naming a chromadb server for every workspace opened without one.
CHROMA_ENV = "DIPTYCH_CHROMA"


class Workspace(PreferenceSteps, AnalysisSteps, ReadingSteps):
    """One audit workspace — its store of runs, results and labels — and every step a front
    end takes on it: plan, run, resume, analyse, report, annotate, import and save labels,
    review flags, compare, calibrate, agreement, keep agent sessions' findings.

    Open one with :meth:`open` and close it when done (it is a context manager)::

        with Workspace.open() as ws:
            record = ws.run_sync("pst-text", ["smollm2"])
            print(ws.analyze(record.id).summary)

    A workspace is cheap to open and, like the SQLite connection under it, belongs to one
    thread: a worker thread opens its own. Every method that takes a ``run_id`` accepts a
    unique prefix of it. Probes and models are named (with parameters as a mapping or as
    ``key=value`` strings) or given as instances.
    """

    # --- opening ------------------------------------------------------------------------------

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str] | None = None,
        *,
        create: bool = True,
        read_only: bool | None = None,
        chroma_url: str | None = None,
    ) -> Workspace:
        """Open the workspace at ``path``; without one, ``$DIPTYCH_STORE`` else ``./.diptych``.

        With ``create=False`` a directory that holds no workspace is an error
        (:class:`WorkspaceNotFoundError`) rather than a new, empty workspace. ``read_only=True``
        never writes; the default opens read-only exactly when this process may not write the
        workspace (an archived audit), and then every step that would store something raises
        :class:`ReadOnlyWorkspaceError`. Raises :class:`StoreError` when the workspace cannot
        be used.

        ``chroma_url`` (else ``$DIPTYCH_CHROMA``) names a chromadb server (``chroma run``) that
        keeps the embedding index and the agent's memory instead of ``<workspace>/chroma/``
        (:class:`UsageError` when it is no ``http(s)://host[:port]``)."""
        where = Path(path) if path is not None else default_store_path()
        chroma_url = chroma_url or os.environ.get(CHROMA_ENV) or None
        if chroma_url is not None:
            check_server_url(chroma_url)
        return cls(Store(where, create=create, read_only=read_only), chroma_url=chroma_url)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- audits as files (diptych.core.workspace.audits) --------------------------------------

    def audit_plan(self, source: str | os.PathLike[str] | AuditFile) -> AuditPlan:
        """What running the audit file would do, part by part (trials, stored, price); stores
        nothing. A malformed file raises :class:`InputFileError` naming fields and lines."""
        return _audits.plan(self, source if isinstance(source, AuditFile) else Path(source))

    async def run_audit(
        self,
        source: str | os.PathLike[str],
        *,
        options: RunOptions | None = None,
        reporter: Reporter | None = None,
        on_part: PartEvent | None = None,
        searches: SearchRunner | None = None,
        out_dir: str | os.PathLike[str] | None = None,
        overrides: Mapping[str, Any] | None = None,
    ) -> AuditOutcome:
        """Run (or continue) every part of the audit file under one budget, record it with
        the file's hash and write its report. ``searches`` runs agent searches (a front end
        brings the agent); ``overrides`` replaces dotted fields (``models.m.params.base_url``)."""
        self._writing("run an audit")
        return await _audits.run(
            self,
            self._store,
            Path(source),
            options=options,
            reporter=reporter,
            on_part=on_part,
            searches=searches,
            out_dir=Path(out_dir) if out_dir is not None else None,
            overrides=dict(overrides or {}),
        )

    def audits(self) -> list[AuditRecord]:
        """Every audit recorded in the workspace, oldest first, with its parts."""
        return _audits.audits(self._store)

    def audit(self, ref: str) -> AuditRecord:
        """The recorded audit whose id starts with ``ref``, else the newest named ``ref``."""
        return _audits.get(self._store, ref)

    def audit_gates(
        self, ref: str | os.PathLike[str], overrides: dict[str, Any] | None = None
    ) -> GateReport:
        """Decide the release gates of an audit file (its newest record here) or of a recorded
        audit: pass, fail or inconclusive per gate, Holm-adjusted as one family; ``overrides``
        are ``audit run --set``'s."""
        where = Path(ref) if not isinstance(ref, str) else ref
        return _gates.audit_gates(self, self._store, where, overrides)

    def audit_gate_problems(self, source: str | os.PathLike[str]) -> list[str]:
        """What can be said of an audit file's gates before it runs, one line a problem."""
        return _gates.gate_problems(self, self._store, Path(source))

    def audit_diff(self, a: str, b: str) -> AuditDiff:
        """Audit B against audit A (recorded audits or report JSONs): every headline figure
        side by side with B − A and the interval of the difference, its method named."""
        return _audits.diff(self, self._store, a, b)
