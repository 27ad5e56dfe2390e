"""What every namespace of the Workspace stands on: the store it holds, how a run is named (its
id or a unique prefix of it), and how probes and models are given.

:class:`~diptych.core.workspace.Workspace` groups its steps by concern, one namespace a module
of this package (``ws.runs``, ``ws.labels``, ``ws.review`` …); each namespace is a
:class:`Namespace` over the one :class:`Kernel` the workspace opened. A front end uses the
Workspace and its namespaces, never these.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from diptych.core.audit.record import get_audit
from diptych.core.capabilities import Model
from diptych.core.errors import RunNotFoundError, UsageError
from diptych.core.probe import Probe
from diptych.core.run_names import runs_named
from diptych.core.runview import RunView
from diptych.core.store import RunRecord, Store

#: Parameters as a mapping or as ``key=value`` strings (as ``-p`` gives them on the CLI).
Params = Mapping[str, Any] | Sequence[str]
#: A model by name, by name with its parameters, or an instance.
ModelSpec = Model | str | tuple[str, Params | None]
ProbeSpec = Probe | str


class Kernel:
    """The store and chromadb server of one workspace, and run lookup: what the Workspace's
    namespaces share."""

    def __init__(self, store: Store, *, chroma_url: str | None = None) -> None:
        self.store = store
        self.chroma_url = chroma_url

    @property
    def path(self) -> Path:
        return self.store.path

    def writing(self, action: str) -> None:
        """Refuse ``action`` on a workspace opened read-only (:class:`ReadOnlyWorkspaceError`)."""
        self.store.require_writable(action)

    def get_run(self, run_id: str) -> RunRecord:
        """The run whose id is ``run_id`` or, failing that, starts with it, with or without
        its probe prefix (the TUI's Runs table prints ``0663f62e`` for ``pst-text-0663f62e``:
        :mod:`diptych.core.run_names`).

        Raises :class:`RunNotFoundError` when none does and :class:`UsageError` listing them
        when several do."""
        # The full id (what every caller but a typing user passes) is one indexed lookup.
        found = self.store.run_with_id(run_id)
        if found is not None:
            return found
        matches = runs_named(self.store.list_runs(), run_id)
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise RunNotFoundError(self._not_a_run(run_id))
        listed = ", ".join(r.id for r in matches)
        raise UsageError(f"'{run_id}' names {len(matches)} runs ({listed}); give more of the id")

    def _not_a_run(self, ref: str) -> str:
        """Why no run is named ``ref``, and what to do: an audit's id (what `audit run`
        prints) is pointed at the audit commands and at its runs."""
        try:
            audit = get_audit(self.store, ref)
        except UsageError:
            audit = None  # a prefix of several audits: no one audit is meant
        if audit is None:
            return f"no run '{ref}' in {self.path}; 'diptych runs' lists the runs there"
        runs = ", ".join(audit.run_ids) or "none yet"
        return (
            f"'{ref}' is a recorded audit, not a run: 'diptych audit gate {audit.id}' decides "
            f"its gates, 'diptych audit list' shows the audits; its runs: {runs} (give one)"
        )

    def view(self, run_id: str) -> RunView:
        """A read-only view of the run's trials, results and labels."""
        return RunView(self.store, self.get_run(run_id), chroma_url=self.chroma_url)


class Namespace:
    """One concern of the Workspace (``ws.runs``, ``ws.labels`` …) over the workspace's
    :class:`Kernel`."""

    def __init__(self, kernel: Kernel) -> None:
        self._kernel = kernel
        self._store = kernel.store


def plugin_params(params: Params | None) -> dict[str, Any] | list[str]:
    """Parameters in the shape the plugin host parses: a dict or ``key=value`` strings."""
    if params is None:
        return {}
    if isinstance(params, Mapping):
        return dict(params)
    return list(params)
