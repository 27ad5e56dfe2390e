"""The question ``diptych resume`` asks before it buys the rest of a decided run: the run's
gates were decided on what it bought, so the rest is bought on purpose only, once its trials,
requests and estimated cost are said (as ``u`` asks in the terminal app)."""

from __future__ import annotations

import sys

import typer

from diptych.cli.console import SafeConsole as Console
from diptych.cli.context import state
from diptych.core.audit.run_status import decided_at, rest_to_buy
from diptych.core.errors import UsageError
from diptych.core.workspace import RunOptions


def ask_rest_of_decided(
    ctx: typer.Context, run_id: str, paid_retries: int, *, yes: bool = False
) -> None:
    """Before a decided run is resumed: what the rest of its design buys and its estimated
    cost, then a question on a terminal; elsewhere (a script, CI) nothing is bought without
    ``--yes``. With ``yes`` the same line is said, and nothing asked: what is bought is named
    before it is. Any other run resumes without a question."""
    with state(ctx).open_workspace(create=False) as ws:
        run = ws.runs.get(run_id)
        if run.status != "decided":
            return
        est = ws.runs.plan_resume(run.id, options=RunOptions(paid_retries=paid_retries))
        at = decided_at(ws.runs.status_text(run.id))
    console = Console(soft_wrap=True, stderr=True)
    console.print(rest_to_buy(run.id, at, est.planned - est.cached, est.to_run, est.cost),
                  markup=False)  # fmt: skip
    if yes:
        return
    if not sys.stdin.isatty():
        raise UsageError(f"nothing bought: add --yes to buy the rest of {run.id}")
    if not typer.confirm("Buy the rest?", default=False, err=True):
        console.print("nothing bought", markup=False)
        raise typer.Exit(0)
