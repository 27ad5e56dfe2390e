"""The Workspace: the one road from a front end (CLI, TUI, agent, audits) into the core.

Its steps are grouped by concern into namespaces, one module of this package each, in the
manner of ``client.chat.completions``:

* ``ws.runs`` (:mod:`.runs`) — the stored runs, and running probes on models;
* ``ws.labels`` (:mod:`.labels`) — a reviewer's labels, labels files in and out;
* ``ws.review`` (:mod:`.review`) — notes on people and the run's review flags;
* ``ws.measurement`` (:mod:`.measurement`) — a run's measurement draw (the active review queue);
* ``ws.annotators`` (:mod:`.annotators`) — annotation passes, calibration, agreement;
* ``ws.analysis`` (:mod:`.analysis`) — a run's analysis, two runs compared, the report;
* ``ws.standings`` (:mod:`.standings`) — every audited model side by side, ranked;
* ``ws.audits`` (:mod:`.audits`) — recorded audits, their gates and diffs;
* ``ws.findings`` (:mod:`.findings`) — what agent sessions found;
* ``ws.evidence`` (:mod:`.evidence`) — a report's signed manifest, and its verification;
* ``ws.lists`` (:mod:`.lists`) — the identity pairs and interventions accepted here;
* ``ws.preferences`` (:mod:`.preferences`) — what a front end remembers;
* ``ws.bundles`` (:mod:`.bundles`) — evidence bundles out of and into the workspace;
* ``Workspace.plugins`` (:mod:`.plugins`) — the installed plugins, probes and models built.

Opening and closing a workspace, and what belongs to the workspace as a whole, are here.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from diptych.core.errors import StoreDamagedError
from diptych.core.store import Store, default_store_path
from diptych.core.store.connection import DB_NAME, damaged, damaged_store_error
from diptych.core.vectors import check_server_url, open_collection
from diptych.core.workspace.analysis import Analysis
from diptych.core.workspace.annotators import Annotators
from diptych.core.workspace.audits import Audits
from diptych.core.workspace.base import Kernel, ModelSpec, Params, ProbeSpec
from diptych.core.workspace.bundles import Bundles
from diptych.core.workspace.decided import stopped_figures
from diptych.core.workspace.evidence import Evidence
from diptych.core.workspace.findings import Findings
from diptych.core.workspace.labels import Labels
from diptych.core.workspace.lists import Lists
from diptych.core.workspace.measurement import Measurement
from diptych.core.workspace.plugins import Plugins
from diptych.core.workspace.preferences import Preferences
from diptych.core.workspace.review import Review
from diptych.core.workspace.runs import Runs
from diptych.core.workspace.standings import Standings

if TYPE_CHECKING:
    from types import TracebackType

    from chromadb.api.models.Collection import Collection

__all__ = ["CHROMA_ENV", "ModelSpec", "Params", "ProbeSpec", "Workspace", "damage_of"]

#: The environment variable naming a chromadb server for every workspace opened without one.
CHROMA_ENV = "DIPTYCH_CHROMA"


class Workspace:
    """One audit workspace — its store of runs, results and labels — and every step a front
    end takes on it, grouped by concern: ``runs`` (plan, run, resume, read, export),
    ``labels``, ``review``, ``annotators`` (annotate, calibrate, agreement), ``analysis``
    (analyse, compare, report), ``audits``, ``findings``, ``lists``, ``preferences``, and
    ``plugins``.

    Open one with :meth:`open` and close it when done (it is a context manager)::

        with Workspace.open() as ws:
            record = ws.runs.run_sync("pst-text", ["smollm2"])
            print(ws.analysis.analyze(record.id).summary)

    A workspace is cheap to open and, like the SQLite connection under it, belongs to one
    thread: a worker thread opens its own. Every method that takes a ``run_id`` accepts a
    unique prefix of it. Probes and models are named (with parameters as a mapping or as
    ``key=value`` strings) or given as instances.
    """

    #: The installed plugins (usable on the class: no workspace needs to be open).
    plugins: ClassVar[Plugins] = Plugins()
    #: The stored runs, and running probes on models.
    runs: Runs
    #: A reviewer's labels of a run's people; labels files in and out.
    labels: Labels
    #: A reviewer's notes and the run's review flags.
    review: Review
    #: A run's measurement draw: the active review queue and the figure it measures.
    measurement: Measurement
    #: Annotation passes, an annotator's calibration, annotator agreement.
    annotators: Annotators
    #: A run's analysis, two runs compared, the audit report.
    analysis: Analysis
    #: Every audited model side by side on one figure, ranked with intervals.
    standings: Standings
    #: The audits recorded in the workspace, their gates and diffs.
    audits: Audits
    #: What agent sessions found.
    findings: Findings
    #: The identity pairs and interventions an auditor accepted, the proposals rejected.
    lists: Lists
    #: What a front end remembers (the last reviewer, the last run asked for).
    preferences: Preferences
    #: A report's manifest and SSH signature, and its verification against the records.
    evidence: Evidence
    #: Evidence bundles: a run's or an audit's records carried to another workspace.
    bundles: Bundles

    def __init__(self, store: Store, *, chroma_url: str | None = None) -> None:
        kernel = Kernel(store, chroma_url=chroma_url)
        self._kernel = kernel
        self.runs = Runs(kernel)
        self.review = Review(kernel)
        self.labels = Labels(kernel, self.review)
        self.measurement = Measurement(kernel, self.labels)
        self.annotators = Annotators(kernel, self.runs)
        self.findings = Findings(kernel)
        self.analysis = Analysis(kernel, self.review, self.annotators, self.findings)
        self.audits = Audits(kernel, self.analysis)
        self.standings = Standings(kernel, self.analysis)
        self.analysis.rank = self.standings.table
        self.analysis.stopped = lambda run_id, numbers: stopped_figures(
            self.analysis, kernel.store, run_id, numbers
        )
        self.lists = Lists(kernel)
        self.preferences = Preferences(kernel)
        self.evidence = Evidence(kernel, self.analysis, self.audits)
        self.bundles = Bundles(kernel)

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

    @staticmethod
    def default_path() -> Path:
        """Where a workspace is when none is named: ``$DIPTYCH_STORE``, else ``.diptych`` here."""
        return default_store_path()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()
        found = None if error is None else damage_of(error, self.path)
        if found is not None:
            # A page that does not read back surfaces in whichever query reaches it first.
            raise found from error

    def close(self) -> None:
        """Close the store; the Workspace cannot be used after."""
        self._kernel.store.close()

    @property
    def path(self) -> Path:
        """The workspace directory."""
        return self._kernel.path

    @property
    def read_only(self) -> bool:
        """Whether the workspace was opened for reading only."""
        return self._kernel.store.read_only

    def require_writable(self, action: str) -> None:
        """Refuse ``action`` (e.g. "run an audit") with :class:`ReadOnlyWorkspaceError` when
        the workspace was opened for reading only."""
        self._kernel.writing(action)

    @property
    def chroma_url(self) -> str | None:
        """The chromadb server holding the workspace's collections (None: the embedded one)."""
        return self._kernel.chroma_url

    def collection(self, name: str, *, metadata: Mapping[str, Any] | None = None) -> Collection:
        """The workspace's chromadb collection ``name`` (created on first use), on the server
        of :attr:`chroma_url` or in ``<workspace>/chroma/``."""
        return open_collection(self.path, name, url=self._kernel.chroma_url, metadata=metadata)

    def blob_path(self, sha: str) -> Path:
        """Where a stored image or long text lies on disk."""
        return self._kernel.store.blob_path(sha)


def damage_of(
    error: BaseException, path: str | os.PathLike[str] | None = None
) -> StoreDamagedError | None:
    """The one-line error naming the damaged database of the workspace at ``path`` (default:
    ``$DIPTYCH_STORE`` else ``./.diptych``) when ``error`` is SQLite finding it damaged; None
    for any other error."""
    if not damaged(error):
        return None
    assert isinstance(error, sqlite3.DatabaseError)
    return damaged_store_error(Path(path or default_store_path()) / DB_NAME, error)
