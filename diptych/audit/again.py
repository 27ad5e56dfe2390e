"""What goes on with a stopped audit or agent session, as a command to paste: ``diptych audit
run`` going on with an audit (the CLI's stop line and its refusals say it), and the one line that
says, given a session where a run was asked for (``diptych resume SESSION``, ``u`` on the Runs
screen's session row), what does that for a session."""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path

from diptych.core.audit.overrides import set_words
from diptych.core.audit.run_status import remaining
from diptych.core.errors import UsageError
from diptych.core.report.formatting import counted
from diptych.core.workspace import RunOptions, Workspace
from diptych.core.workspace.sessions import SessionDetail, session_label


def going_on(ws: Workspace, file: Path, sets: Sequence[str], options: Sequence[str]) -> str:
    """The command that goes on with the audit, to paste as it is: the workspace and the file
    by their absolute paths, its ``--set`` fields and the ``options`` that shape what it buys
    (``--until-decided --batches 4``, ``--max-cost``) as given."""
    words = ["diptych", "--store", os.path.abspath(ws.path), "audit", "run"]
    words.append(os.path.abspath(file))
    for given in sets:
        words += ["--set", given]
    return shlex.join([*words, *options])


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
        # The session named once: by its id, or by what was given and then its id.
        what = "an agent session" if ref == detail.session else f"agent session {detail.session}"
        head = f"'{ref}' is {what}, not a run"
        # An ended session has nothing left to resume: what shows it, instead.
        ended = detail.status.removeprefix("ended")
        resume = (
            f"{agent_again(detail)} resumes it"
            if detail.saved is None
            else f"it has ended{f' ({ended[2:]})' if ended else ''}, so there is nothing to "
            f"resume; '{show}' lists its findings and its {runs}"
        )
        doing = {
            "report": f"'{show}' lists its findings and its {runs}; "
            "'diptych report RUN' reports one of them",
            "export": f"it has no runs stored; '{show}' says why",
            "resume": resume,
        }
    return f"{head}: {doing[command]}"


def _audit_run(ws: Workspace, audit_id: str) -> tuple[str, str]:
    """The command that runs the audit again (:func:`going_on`: the
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


def agent_again(detail: SessionDetail) -> str:
    """The agent command that resumes the session: its search's, with ``--session``."""
    kind = str((detail.saved or detail.started or {}).get("kind") or "")
    if not kind and detail.started is not None:
        kind = "mitigation" if "baseline" in detail.started else "identities"
    if kind == "mitigation" or detail.session.startswith("mit-"):
        # Its baseline run, as it started: the command resumes it pasted as it is.
        baseline = (detail.saved or detail.started or {}).get("baseline")
        if not isinstance(baseline, str) or not baseline:
            return (
                "'diptych agent mitigate' with the baseline run and the options it started with "
                f"and '--session {detail.session}'"
            )
        how = ["diptych", "agent", "mitigate", baseline]
    elif kind == "identities" or detail.session.startswith("id-"):
        how = ["diptych", "agent", "identities"]
    else:
        return (
            f"'diptych agent identities' (or 'mitigate RUN') with the options it started "
            f"with and '--session {detail.session}'"
        )
    command = shlex.join([*how, "--session", detail.session])
    return f"'{command}' with the options it started with"


def looked_resume(ws: Workspace, run_id: str) -> str | None:
    """What resuming ``run_id`` alone skips, where an audit was buying it look by look and
    stopped before its gates were decided (:meth:`~diptych.core.workspace.audits.Audits.
    look_by_look`): the audit, the batch it stopped in and the command that goes on batch by
    batch, deciding after each. None for any other run. ``diptych resume`` and the terminal
    app's ``u`` say it and buy the whole design only when asked."""
    found = ws.audits.look_by_look(run_id)
    if found is None:
        return None
    audit = found.audit
    of = f" of {found.batches:,}" if found.batches is not None else ""
    batches = ["--batches", str(found.batches)] if found.batches is not None else []
    file = ws.audits.file(audit)
    if file is not None:
        sets = set_words(audit.overridden)[1::2]
        command = going_on(ws, file, sets, ["--until-decided", *batches])
    else:
        # Built on the command line (diptych run --gate), or its file gone: no file to name.
        command = "the command that started it again, with --until-decided"
    return (
        f"{run_id} is bought look by look by audit {audit.name} ({audit.id}), stopped in batch "
        f"{found.batch:,}{of} before its gates were decided: the audit goes on batch by batch, "
        f"deciding after each: {command}"
    )


def looked_question(ws: Workspace, run_id: str, options: RunOptions | None = None) -> str | None:
    """The question before ``run_id`` is resumed alone where an audit was buying it look by
    look (:func:`looked_resume`): its audit, the command that goes on batch by batch, and what
    resuming it alone buys (the whole design's remaining requests and estimated cost). None for
    any other run. ``diptych resume`` and the terminal app's ``u`` ask it in these words."""
    looked = looked_resume(ws, run_id)
    if looked is None:
        return None
    est = ws.runs.plan_resume(run_id, options=options or RunOptions())
    rest = remaining(est.planned - est.cached, est.to_run, est.cost)
    return f"{looked}. Resuming it alone buys the whole design: {rest}."
