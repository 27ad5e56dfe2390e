"""Ids printed anywhere are taken everywhere: ``diptych runs`` names a run by its id and an agent
session by its id or its row's label ("identities d96780"), and every command that takes a run
resolves what it is given here. ``show`` shows either and ``export`` writes a session's runs; a
command that acts on one run (``report``, ``resume``), given a session, says in one line what does
that for a session."""

from __future__ import annotations

import shlex
from pathlib import Path

from diptych.cli.audit_stop import going_on
from diptych.core.audit.overrides import set_words
from diptych.core.errors import RunNotFoundError, UsageError
from diptych.core.report.formatting import counted
from diptych.core.workspace import RunRecord, Workspace
from diptych.core.workspace.sessions import SessionDetail, session_label


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
            raise missing from None


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


def not_a_run(ws: Workspace, detail: SessionDetail, ref: str, command: str) -> str:
    """Why ``diptych COMMAND REF`` does not take the session ``ref`` names, and the commands
    that do for it what was asked: its findings, its runs, its resumption."""
    # By a name with no space, so that it is pasted as it is: an audit search's hash, as
    # its row's label gives it, else its id.
    label = session_label(detail.session)
    show = f"diptych show {label.split(' ')[-1] if detail.audit is not None else detail.session}"
    runs = counted(len(detail.runs), "run")
    if detail.audit is not None:
        audit_id, part = detail.audit
        head = f"'{ref}' is the {part} search of audit {audit_id}, not a run"
        again, report = _audit_run(ws, audit_id)
        where = f"{report}; " if report else ""  # a command last, unquoted, to paste
        doing = {
            "report": f"its findings are in that audit's report ({where}'{show}' lists them); "
            f"the audit writes it again: {again}",
            "export": f"it has no runs stored; the audit's evidence is exported by: diptych "
            f"export {audit_id} --bundle FILE",
            "resume": f"the audit continues, its search included: {again}",
        }
    else:
        head = f"'{ref}' is agent session {detail.session}, not a run"
        doing = {
            "report": f"'{show}' lists its findings and its {runs}; "
            "'diptych report RUN' reports one of them",
            "export": f"it has no runs stored; '{show}' says why",
            "resume": f"{_agent_again(detail)} resumes it",
        }
    return f"{head}: {doing[command]}"


def _audit_run(ws: Workspace, audit_id: str) -> tuple[str, str]:
    """The command that runs the audit again (:func:`~diptych.cli.audit_stop.going_on`: the
    workspace, its file where the workspace has it, the ``--set`` fields it ran with), and
    where its report is ("" where none is recorded or found)."""
    try:
        audit = ws.audits.get(audit_id)
    except UsageError:
        return "diptych audit run AUDIT_FILE", ""
    file = ws.audits.file(audit) or Path(audit.file_path)
    again = going_on(ws, file, set_words(audit.overridden)[1::2], [])
    try:
        report = ws.audits.report_path(audit)
    except UsageError:
        report = None
    return again, str(report or "")


def _agent_again(detail: SessionDetail) -> str:
    """The agent command that resumes the session: its search's, with ``--session``."""
    kind = str((detail.saved or {}).get("kind") or "")
    if kind == "mitigation" or detail.session.startswith("mit-"):
        how = ["diptych", "agent", "mitigate", "RUN"]
    elif kind == "identities" or detail.session.startswith("id-"):
        how = ["diptych", "agent", "identities"]
    else:
        return (
            f"'diptych agent identities' (or 'mitigate RUN') with the options it started "
            f"with and '--session {detail.session}'"
        )
    command = shlex.join([*how, "--session", detail.session])
    return f"'{command}' with the options it started with"
