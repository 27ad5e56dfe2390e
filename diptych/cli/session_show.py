"""``diptych show`` of an agent session: a listing names a session's row by its id or a short
label ("identities d96780"), and ``show`` takes either, as it takes a run's id."""

from __future__ import annotations

from rich.console import Console

from diptych.audit.again import agent_again
from diptych.core.report.formatting import counted
from diptych.core.workspace.sessions import SessionDetail, session_label


def print_session(console: Console, detail: SessionDetail) -> None:
    """Print the agent session ``diptych show`` was given (its id or its row's label, found by
    :func:`~diptych.cli.session_refs.named`)."""
    for line in session_lines(detail):
        console.print(line, markup=False, overflow="fold")


def session_lines(detail: SessionDetail) -> list[str]:
    """The session's kind, status, proposals and findings, and its runs by the ids ``show``
    takes."""
    label = session_label(detail.session)
    named = f" ({label})" if label != detail.session else ""
    lines = [
        f"agent session {detail.session}{named}",
        f"kind: {detail.kind}",
        f"status: {detail.status}",
    ]
    if detail.tally:
        lines.append(f"proposals: {detail.tally}")
    if detail.started is not None:
        # Known from its start alone: what it was asked to do and what goes on with it.
        lines.append(f"rounds: {detail.started.get('rounds', '?')}")
        again = agent_again(detail)
        return [*lines, "runs: none stored", f"{again} resumes it; once it ends, "
                f"'diptych show {detail.session}' lists its findings"]  # fmt: skip
    if not detail.runs:
        return [*lines, "runs: none stored"]
    search = detail.search
    # Counted as its row in 'diptych runs' and on the Runs screen counts it.
    reused = f", {search.reused:,} of them reused" if search.reused else ""
    lines.append(
        f"{counted(len(search.runs), 'run')}{reused}, {counted(search.trials, 'trial')} "
        "('diptych show RUN' shows one):"
    )
    for i, summary in enumerate(search.runs):
        run = summary.run
        stored = "  reused" if i >= search.made else ""
        lines.append(
            f"  {run.id}  {run.probe}  {summary.said}  {counted(run.n_trials, 'trial')}{stored}"
        )
    return lines
