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
from diptych.core.workspace.sessions import (
    SessionDetail,
    session_names,
    sessions_named,
    several_sessions,
)

__all__ = ["exported_runs", "named", "not_a_run", "run_named", "session_to_resume"]


def named(ws: Workspace, ref: str) -> RunRecord | SessionDetail:
    """The run ``ref`` names (its id, or a unique start of it) or, failing that, the agent
    session (:meth:`~diptych.core.workspace.runs.Runs.session`), one started with no run
    stored yet among them, by its id or a unique start of it. Where neither is, the run's
    :class:`RunNotFoundError` is raised: it says why no run is (an audit's id is pointed at
    the audit commands); where ``ref`` starts several sessions' ids, a :class:`UsageError`
    lists them."""
    try:
        return ws.runs.get(ref)
    except RunNotFoundError as missing:
        try:
            found: SessionDetail | None = ws.runs.session(ref)
        except RunNotFoundError:
            found = None
        if found is not None and ref in session_names(found.session):
            return found
        # The started sessions it names: one by its whole id is the one meant; else each it
        # starts, beside a session found by its start, is one more it names.
        starting = sessions_named(_started_ids(ws), ref)
        whole = [s for s in starting if ref in session_names(s)]
        if found is not None and not whole:
            if starting:
                raise several_sessions(ref, sorted([found.session, *starting])) from None
            return found
        if len(starting) > 1:
            raise several_sessions(ref, starting) from None
        started = started_session(ws, starting[0]) if starting else None
        if started is None:
            raise missing from None
        return started


def _started_ids(ws: Workspace) -> list[str]:
    """The ids of the sessions with a checkpoint that stored no run and saved nothing yet."""
    from diptych.agent.checkpoint import checkpointed_sessions

    ids = checkpointed_sessions(ws.path)
    if not ids:
        return []
    known = {r.session for r in ws.runs.list() if r.session is not None}
    known |= {str(s.get("session")) for s in ws.findings.list() if s.get("session")}
    return [s for s in ids if s not in known]


def session_to_resume(ws: Workspace, given: str) -> str:
    """The session ``--session GIVEN`` resumes: the one of that id, else the one whose id
    starts with it, as ``diptych show`` takes it; where none does, ``GIVEN`` names a new one.
    A start of several sessions' ids is refused in one line."""
    from diptych.agent.checkpoint import checkpointed_sessions

    ids = checkpointed_sessions(ws.path)
    if given in ids:
        return given
    starting = [s for s in ids if s.startswith(given)]
    if len(starting) > 1:
        raise several_sessions(given, starting)
    return starting[0] if starting else given


def started_session(ws: Workspace, ref: str) -> SessionDetail | None:
    """The agent session of id ``ref`` that has started but stored no run and saved nothing
    yet (the id the Agent screen prints as it starts), from its checkpoint; None when no
    session has that id."""
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
