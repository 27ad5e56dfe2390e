"""The question ``diptych resume`` asks before it buys the rest of a decided run, and ``diptych
audit run`` before it runs whole an audit whose parts' gates were decided: the run's gates were
decided on what it bought, so the rest is bought on purpose only, once its trials, requests and
estimated cost are said (as ``u`` and ``ctrl+r`` ask in the terminal app)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer

from diptych.agent.audit_search import plan_placebos
from diptych.audit.again import looked_question, looked_resume
from diptych.audit.not_run import bought_after, not_run_words, parts_not_run
from diptych.audit.plan import AuditPlan, plan_audit
from diptych.cli.audit_stop import going_on
from diptych.cli.console import SafeConsole as Console
from diptych.cli.context import state
from diptych.cli.session_refs import run_named
from diptych.core.audit.overrides import set_words
from diptych.core.audit.run_status import lost_said, rest_to_buy
from diptych.core.errors import UsageError, WorkspaceNotFoundError
from diptych.core.workspace import RunOptions, Workspace


def ask_rest_of_decided(
    ctx: typer.Context, run_id: str, paid_retries: int, *, yes: bool = False
) -> None:
    """Before a decided run is resumed: what the rest of its design buys and its estimated
    cost, then a question on a terminal; elsewhere (a script, CI) nothing is bought without
    ``--yes``. With ``yes`` the same line is said, and nothing asked: what is bought is named
    before it is. A run an audit was buying look by look is asked about the same way, its
    audit and the command that goes on batch by batch named (:func:`looked_resume`). Any
    other run resumes without a question."""
    options = RunOptions(paid_retries=paid_retries)
    with state(ctx).open_workspace(create=False) as ws:
        run = run_named(ws, run_id, "resume")
        looked = looked_question(ws, run.id, options)
        if looked is not None:
            # Resumed alone it is bought whole at once, where its audit buys a batch at a time.
            question = looked
        elif run.status == "decided":
            # Answers its decision read that are gone from the store are asked again first:
            # they were bought, and the look's figures would otherwise rest on fewer trials
            # than it says.
            lost = ws.runs.ask_lost(run.id, options=options)
            if lost:
                Console(soft_wrap=True, stderr=True).print(
                    lost_words(run.id, len(lost)), markup=False
                )
            question = _rest_of(ws, run.id, options)
        else:
            return
    _ask([run.id], [question], yes=yes)


def lost_line(run_id: str, lost: int) -> str:
    """What ``diptych show`` says of a decided run's answers gone from the store: its figures
    rest on fewer trials than its look says until a resume asks them again."""
    them = "it" if lost == 1 else "them"
    return (
        f"{lost_said(lost)}, so its figures rest on fewer trials than its look says: "
        f"'diptych resume {run_id}' asks {them} again (only {them})"
    )


def lost_words(run_id: str, lost: int) -> str:
    """What a resume of a decided run says of the answers its gates read that it asked again."""
    return (
        f"{run_id}: {lost_said(lost)}; asked again, so its figures rest on every trial its look "
        "says"
    )


def price_resume(ctx: typer.Context, run_id: str, paid_retries: int) -> None:
    """``diptych resume RUN --dry-run``: the run's trials, those stored, the requests a resume
    would run and their estimated cost, as ``diptych run --dry-run`` says them; buys nothing.
    A decided run is said to be one first, and that a resume asks before it buys the rest
    (:func:`ask_rest_of_decided`), in one line."""
    from diptych.cli.plan_output import print_estimate

    with state(ctx).open_workspace(create=False) as ws:
        run = run_named(ws, run_id, "resume")
        est = ws.runs.plan_resume(run.id, options=RunOptions(paid_retries=paid_retries))
        at = ws.runs.decided_text(run.id) if run.status == "decided" else ""
        lost = len(ws.runs.lost_answers(run.id))
        looked = looked_resume(ws, run.id)
    console = Console(soft_wrap=True)
    if lost:
        console.print(
            f"{run.id}: {lost_said(lost)}; diptych resume asks them again first, without asking",
            markup=False,
        )
    if at:
        console.print(
            f"{run.id} is {at}; its gates were decided on the trials bought, so diptych resume "
            "asks before it buys the rest (--yes buys it without asking).",
            markup=False,
        )
    if looked is not None:
        console.print(
            f"{looked}. diptych resume buys the whole design, asked first (--yes buys it "
            "without asking).",
            markup=False,
        )
    print_estimate(console, est)


def ask_rest_of_audit(
    ctx: typer.Context,
    file: Path,
    overrides: dict[str, Any],
    *,
    options: Sequence[str] = (),
    yes: bool = False,
) -> None:
    """Before ``diptych audit run FILE`` runs the audit whole: for each part whose run its
    gates decided (:func:`decided_runs`), what buying the rest of its design buys and its
    estimated cost, in the words of ``diptych resume``, and what it buys of every other part it
    would run (an agent search: at least its placebo words' requests, at most its
    ``max_requests``) or that nothing else is left, then the same question (``--yes``
    buys without asking; elsewhere than a terminal nothing is bought without it). Declined,
    nothing of the audit runs, and the answer names its parts not run yet with the command
    that runs them: the workspace, the file, its ``--set`` fields and ``options`` (what
    changes what it does: :func:`~diptych.cli.audit_stop.shaping_options`) repeated. An
    audit with no decided part runs without a question."""
    try:
        with state(ctx).open_workspace(create=False) as ws:
            plan = _plan(ws, file, overrides)
            runs = ws.audits.decided_runs(plan.id)
            questions = [_rest_of(ws, run, RunOptions()) for run in runs]
            waiting = parts_not_run(ws, plan, runs)
            if runs:
                # Every other part "y" buys is named with what it buys, as ctrl+r names them;
                # a search's least is its placebo words', planned by the search's own code.
                questions.append(bought_after(plan_placebos(ws, plan), waiting))
            again = going_on(ws, file, set_words(plan.overrides)[1::2], [*options, "--yes"])
    except WorkspaceNotFoundError:
        return  # nothing stored, nothing decided
    if runs:
        # Declined, the audit stops before its parts: they are named, with what runs them.
        said = not_run_words(waiting, again)
        left = f"; {said}" if said else ""
        _ask(runs, questions, yes=yes, left=left)


def decided_runs(ws: Workspace, file: Path, overrides: dict[str, Any]) -> list[str]:
    """The runs of the audit ``file`` (with ``--set``'s ``overrides``) recorded here whose
    gates stopped them short of their design, with the rest of it to buy
    (:meth:`~diptych.core.workspace.audits.Audits.decided_runs`)."""
    return ws.audits.decided_runs(_plan(ws, file, overrides).id)


def _plan(ws: Workspace, file: Path, overrides: dict[str, Any]) -> AuditPlan:
    return plan_audit(ws, file, overrides=overrides)  # as the audit records them


def _rest_of(ws: Workspace, run_id: str, options: RunOptions) -> str:
    est = ws.runs.plan_resume(run_id, options=options)
    said, lost = ws.runs.decided_text(run_id), len(ws.runs.lost_answers(run_id))
    return rest_to_buy(run_id, said, est.planned - est.cached, est.to_run, est.cost, lost)


def _ask(runs: list[str], questions: list[str], *, yes: bool, left: str = "") -> None:
    """Say ``questions`` and ask; declined, nothing is bought and ``left`` says what the
    audit did not run."""
    console = Console(soft_wrap=True, stderr=True)
    for question in questions:
        console.print(question, markup=False)
    if yes:
        return
    if not sys.stdin.isatty():
        raise UsageError(f"nothing bought: add --yes to buy the rest of {' and '.join(runs)}{left}")
    if not typer.confirm("Buy the rest?", default=False, err=True):
        console.print(f"nothing bought{left}", markup=False)
        raise typer.Exit(0)
