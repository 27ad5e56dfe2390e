"""Ids printed anywhere are taken everywhere: ``diptych runs`` names a run by its id and an agent
session by its id or its row's label ("identities d96780"), and every command that takes a run
resolves what it is given here. ``show`` shows either and ``export`` writes a session's runs; a
command that acts on one run (``report``, ``resume``), given a session, says in one line what does
that for a session."""

from __future__ import annotations

from diptych.audit.again import not_a_run
from diptych.core.errors import RunNotFoundError, UsageError
from diptych.core.workspace import RunRecord, Workspace
from diptych.core.workspace.search_runs import SearchRuns
from diptych.core.workspace.sessions import SessionDetail

__all__ = ["exported_runs", "named", "not_a_run", "run_named"]


def named(ws: Workspace, ref: str) -> RunRecord | SessionDetail:
    """The run ``ref`` names (its id, or a unique start of it) or, failing that, the agent
    session (:meth:`~diptych.core.workspace.runs.Runs.session`). Where neither is, the run's
    :class:`RunNotFoundError` is raised: it says why no run is (an audit's id is pointed at
    the audit commands)."""
    try:
        return ws.runs.get(ref)
    except RunNotFoundError as missing:
        try:
            return ws.runs.session(ref)
        except RunNotFoundError:
            started = started_session(ws, ref)
            if started is None:
                raise missing from None
            return started


def started_session(ws: Workspace, ref: str) -> SessionDetail | None:
    """The agent session ``ref`` names exactly that has started but stored no run and saved
    nothing yet (the id the Agent screen prints as it starts), from its checkpoint; None when
    no session has that id."""
    from diptych.agent.checkpoint import stored_state

    state = stored_state(ws.path, ref)
    settings = (state or {}).get("settings")
    if not isinstance(settings, dict):
        return None
    return SessionDetail(ref, SearchRuns(ref, (), 0), None, started=settings)


def run_named(ws: Workspace, ref: str, command: str) -> RunRecord:
    """The run ``ref`` names for ``diptych COMMAND``; given an agent session's id instead, a
    :class:`UsageError` whose one line says what does ``command``'s work for a session."""
    found = named(ws, ref)
    if isinstance(found, SessionDetail):
        raise UsageError(not_a_run(ws, found, ref, command))
    return found


def exported_runs(ws: Workspace, ref: str) -> tuple[list[str], str]:
    """The runs ``diptych export REF`` writes and whose they are in words: the run ``ref``
    names ("run pst-text-0663f62e"), or every run of the agent session it names ("the 32 runs
    of session …"); a session with none stored is refused in one line."""
    found = named(ws, ref)
    if not isinstance(found, SessionDetail):
        return [found.id], f"run {found.id}"
    if not found.runs:
        raise UsageError(not_a_run(ws, found, ref, "export"))
    ids = [summary.run.id for summary in found.runs]
    runs = "run" if len(ids) == 1 else f"{len(ids):,} runs"
    return ids, f"the {runs} of session {found.session}"
