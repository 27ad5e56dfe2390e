"""``Workspace.findings``: what an agent session found, kept in the workspace so the audit
report can show it.

The agent keeps its sessions in its own checkpoints, which the core does not read; when a
session ends the agent saves its outcome here as plain data (one preferences entry per
session), and the report lists it beside the runs the session scored.
"""

from __future__ import annotations

import builtins
import time
from collections.abc import Iterable, Mapping
from typing import Any

from diptych.core.errors import UsageError
from diptych.core.workspace.base import Namespace

#: The preferences key of a session's findings is this prefix and the session id.
FINDINGS_KEY = "agent_findings:"
#: What a saved session must say of itself: what was searched and what was scored.
REQUIRED = ("kind", "findings", "runs")


class Findings(Namespace):
    """Agent sessions' findings, saved when a session ends and read by the report."""

    def save(self, session_id: str, findings: Mapping[str, Any]) -> None:
        """Keep the outcome of agent session ``session_id``: ``kind`` (``identities`` or
        ``mitigation``), ``agent_model``, ``target``, ranked ``findings`` (each with its
        ``search`` and ``heldout`` figures), ``rejected`` (a count) and ``runs`` (the run ids
        it scored). Saving the same session again replaces what it saved before."""
        self._kernel.writing("save an agent session's findings")
        missing = [k for k in REQUIRED if k not in findings]
        if missing:
            raise UsageError(f"agent findings of '{session_id}' lack {', '.join(missing)}")
        value = {**findings, "session": session_id, "saved_at": time.time()}
        self._store.set_preference(FINDINGS_KEY + session_id, value)

    def list(
        self, run_ids: Iterable[str] | None = None, *, sessions: Iterable[str] = ()
    ) -> builtins.list[dict[str, Any]]:
        """Every saved agent session, oldest first; with ``run_ids``, only the sessions that
        scored at least one of those runs, and those named in ``sessions`` (an audit's
        searches, whose runs are the agent's own)."""
        saved = [
            v for v in self._store.preferences_under(FINDINGS_KEY).values() if isinstance(v, dict)
        ]
        if run_ids is None:
            return saved
        wanted, named = set(run_ids), set(sessions)
        return [
            s
            for s in saved
            if s.get("session") in named or wanted.intersection(s.get("runs") or ())
        ]

    def get(self, session_id: str) -> dict[str, Any] | None:
        """What agent session ``session_id`` saved when it ended, or None."""
        value = self._store.preference(FINDINGS_KEY + session_id)
        return value if isinstance(value, dict) else None
