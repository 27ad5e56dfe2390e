"""What ``diptych audit`` and ``diptych run --gate`` print about buying: the plan (trials, stored,
to run, cost, and the expected half-width of each part's figures), each gate's expected cost to a
decision before an audit is bought until decided, each look as its intervals narrow, and why the
buying stopped.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from diptych.agent.audit_search import plan_placebos
from diptych.audit import AuditPlan, plan_audit
from diptych.audit.forecast import decided_on_stored, expected_costs
from diptych.audit.placebo_plan import (
    placebo_cell,
    placebo_lines,
    search_requests_cell,
    search_stored_cell,
)
from diptych.audit.sequential import SequentialOutcome
from diptych.cli.console import SafeConsole as Console
from diptych.cli.precision import print_precision
from diptych.cli.table_fit import fit_columns
from diptych.core.audit import AuditFile
from diptych.core.audit.schema import Budget
from diptych.core.audit.sequential import STOP_TEXT, bought_words, look_at, rest_note
from diptych.core.cost import Cost, answered
from diptych.core.digits import percent_text
from diptych.core.errors import UsageError
from diptych.core.report.formatting import counted, dollars, figure_text, fmt, plan_counts

if TYPE_CHECKING:
    from diptych.core.audit.expected_spend import ExpectedSpend
    from diptych.core.workspace import Estimate


def money(value: float | None) -> str:
    """An amount of US dollars as printed (:func:`~diptych.core.cost.cost_text`: what has no
    price says so); a dash for none."""
    return "—" if value is None else dollars(value)


#: The cost column's width: a long cost ("not priced (computed on this machine)") wraps in its
#: cell instead of pushing the models sideways.
COST_WIDTH = 22


def plan_table(plan: AuditPlan) -> Any:
    """The plan's parts as a table: counts through the one formatter (thousands separators),
    the cost wrapped in its own column."""
    from rich.table import Table

    table = Table(box=None, pad_edge=False, padding=(0, 1), header_style="")
    # A narrow terminal folds a long part or probe name before it cuts a count or a model.
    for name in ("part", "kind", "probe"):
        table.add_column(name, overflow="fold")
    for name in ("trials", "stored", "requests"):
        table.add_column(name, justify="right")
    table.add_column("cost", min_width=10, max_width=COST_WIDTH)
    table.add_column("models", min_width=10, overflow="fold")
    for p in plan.parts:
        e = p.estimate
        models = ", ".join(m for m, _ in p.part.models)
        if p.part.annotators:
            models += f"; labels: {', '.join(a.name for a in p.part.annotators)}"
        if e is None:
            s = p.part.search
            assert s is not None
            placebo = p.placebo
            table.add_row(
                p.part.name, "search", p.part.probe or "", placebo_cell(placebo),
                search_stored_cell(placebo, p.session_trials),
                search_requests_cell(placebo) if placebo else "", "≤ budget",
                f"{s.kind}: {counted(s.rounds, 'round')} × {s.per_round}, agent {s.agent_model}",
            )  # fmt: skip
            continue
        table.add_row(
            p.part.name, p.part.kind, p.part.probe or "", fmt(e.planned), fmt(e.cached),
            fmt(e.to_run), money(e.cost), models,
        )  # fmt: skip
    return table


def print_plan(plan: AuditPlan) -> None:
    typer.echo(f"audit {plan.audit.name} ({plan.id}), file sha256 {plan.file_hash[:16]}…")
    console = Console(soft_wrap=True)
    # At 80 columns the plan's cells wrap between words: its models and costs stay readable.
    console.print(fit_columns(plan_table(plan), console), markup=False)
    typer.echo(
        f"total: {plan_counts(plan.planned, plan.cached, plan.to_run)}, "
        f"estimated {money(plan.cost)}; {budget_words(plan.audit.budget)}"
    )
    for p in plan.parts:
        for line in placebo_lines(p.part.name, p.placebo) if p.placebo else []:
            console.print(line, markup=False)
    for p in plan.parts:
        if p.estimate is not None and p.estimate.precision and p.estimate.precision.figures:
            console.print(f"part {p.part.name}:")
            print_precision(console, p.estimate.precision, indent="  ")


def budget_words(budget: Budget) -> str:
    """The file's budget as the plan's total line says it: "budget $5.00 and at most 1,000
    requests to run (budget.max_requests)", "budget —" when it sets none."""
    said = [money(budget.max_cost)] if budget.max_cost is not None else []
    if budget.max_requests is not None:
        limit = counted(budget.max_requests, "request")
        said.append(f"at most {limit} to run (budget.max_requests)")
    return "budget " + (" and ".join(said) or money(None))


def print_look(batch: int, batches: int, report: Any) -> None:
    """One look of an audit bought until decided: each gate's interval as it narrows, named
    (anytime-valid at a look), so that it is not taken for a fixed-design one of all the
    design's trials. Where the looks' share of the level is spent, a line says that the rest of
    the design is bought at once, and why: no look short of it can decide."""
    from diptych.cli.verdict_formats import interval_text, verdict_text
    from diptych.core.report.gates import interval_kind

    at = look_at(batch, batches, report)
    for r in report.results:
        typer.echo(
            f"{at}  {verdict_text(r):<26} {r.label}: {_number(r.value)}, "
            f"{interval_text(r)} ({interval_kind(r.method)})"
        )
    rest, _ = rest_note(report)
    if rest:
        typer.echo(f"{at}: {rest}")


def _number(value: float | None) -> str:
    return figure_text(value)


def says_counts(*lines: str) -> bool:
    """Whether a status line above already named the requests bought and saved ("decided at
    look 1 of 4: 36 of 144 requests, 108 saved"): :func:`print_stop` then says only why it
    stopped, so each count is said once."""
    return any(re.search(r"\d of [\d,]+ requests", line) for line in lines)


def print_stop(
    bought: SequentialOutcome,
    skipped: list[str],
    asked: float | None = None,
    reused: list[str] | None = None,
    counted: bool = False,
    asked_said: bool = True,
) -> None:
    """Why an audit bought until decided stopped, what its gated designs have bought and what
    it saved; with ``asked`` (what this command asked, :attr:`AuditOutcome.asked`), the
    requests it found stored are said read from the store, never bought by it
    (:func:`~diptych.core.audit.sequential.bought_words`). With ``counted`` (the line above
    named the requests bought and saved, as ``diptych audit list`` says them), only why it
    stopped, in which looks, and any money saved: each thing said once. The parts no gate
    reads are said ``reused`` where they were complete before (in the report), else not run.
    Where no line above said what this command asked (``asked_said`` false: a gated ``diptych
    run``), a ``counted`` stop says whether its requests were bought or read from the store."""
    summary = bought.summary
    if summary is not None and summary.planned:
        saved = summary.saved  # less what was bought on since the stop
        # Only what has a price is money saved: a model computed here, or a service with no
        # price, saves requests and says so, not "$0.00".
        saved_cost = bought.saved_cost
        since = (
            f"bought on since: {summary.bought_now:,} of {summary.planned:,} requests stored; "
            if summary.bought_now is not None
            else ""
        )
        dollars = (
            f" and about {money(saved_cost)} at the plan's prices"
            if saved_cost is not None and saved_cost.priced
            else ""
        )
        held = bought_words(summary.bought, summary.planned, asked, summary.read_in)
        if counted:
            money_saved = f"; saved{dollars.removeprefix(' and')}" if dollars else ""
            now = answered(asked) if isinstance(asked, Cost) and not asked_said else None
            stored = (
                ", read from the store, nothing bought"
                if now == 0
                else f", {now:,} of them bought now, the rest read from the store"
                if now is not None and now < summary.bought
                else ""
            )
            typer.echo(f"stopped: {STOP_TEXT[bought.stop]} {summary.read_in}{stored}{money_saved}")
        else:
            typer.echo(
                f"stopped: {STOP_TEXT[bought.stop]}; {held}; {since}saved {saved:,} requests "
                f"({percent_text(saved / summary.planned)}){dollars}"
            )
    if reused:
        typer.echo(f"reused (complete before, in the report): {', '.join(reused)}")
    if skipped:
        typer.echo(
            f"not run (no gate reads them): {', '.join(skipped)}; run without --until-decided "
            "to run them"
        )


def print_expected_costs(
    ws: Any,
    source: Path | AuditFile,
    *,
    until_decided: bool,
    batches: int,
    assume: float | None,
    overrides: dict[str, Any] | None = None,
) -> None:
    """Print the audit's plan and, with ``until_decided``, each gate's expected cost to a
    decision (``--dry-run --until-decided``); ``overrides`` are ``--set``'s fields."""
    plan = plan_placebos(ws, plan_audit(ws, source, precision=until_decided, overrides=overrides))
    ref = source if isinstance(source, Path) else plan.audit.name
    # Worked out before the plan is printed, so that an --assume refused is the one line said.
    costs = expected_costs(ws, plan, ref, assume=assume, batches=batches) if until_decided else []
    print_plan(plan)
    if not until_decided:
        return
    if not costs:
        raise UsageError(
            "--until-decided stops when the gates are decided, and this audit states none "
            "(add a gates: section)"
        )
    decided = decided_on_stored(ws, ref, costs)
    if decided is not None:
        held = decided.bought if decided.bought_now is None else decided.bought_now
        typer.echo(
            f"decided at {decided.at} on the {counted(held, 'request')} stored: "
            "--until-decided buys nothing more"
        )
        return
    typer.echo(f"until decided, in {batches} batches (each gate alone at its Holm level):")
    for cost in costs:
        if cost.requests <= cost.stored:
            # Every request stored: buying until decided saves nothing, and a share of nothing
            # would read as a forecast.
            whole = f"'s {cost.requests:,} requests are" if cost.requests else " is"
            typer.echo(f"  {cost.label}: nothing to buy, the whole design{whole} stored")
            continue
        stored = f", {cost.stored:,} stored" if cost.stored else ""
        priced = getattr(cost.cost, "priced", 1)
        typer.echo(
            f"  {cost.label}: the whole design {cost.requests:,} requests{stored}, "
            + (f"{money(cost.cost)} to buy" if priced else money(cost.cost))
        )
        if not cost.expected:
            typer.echo(f"    {cost.note}")
        for said, spend in cost.expected:
            # The simulated share is what this command buys: the stored requests were read at
            # no cost, so the price is that share of the rest's, at the rest's mean price.
            beyond = spend.share * cost.requests
            left = cost.requests - cost.stored
            share = min(beyond / left, 1.0) if left else 0.0
            price = cost.cost.share(share) if isinstance(cost.cost, Cost) else cost.cost * share
            # Counted as what is paid: the requests still to buy, not the design from zero.
            more = round(beyond)
            about = f"about {counted(more, 'request')}" if more or not cost.stored else "none"
            if cost.stored:
                about += f" beyond the {cost.stored:,} stored"
            typer.echo(
                f"    if the figure is {figure_text(spend.truth)} ({said}): expected "
                f"{percent_text(spend.share)} ± {percent_text(spend.mc_error)} of the design, "
                f"{about}" + (f", {money(price)}" if priced else "") + "; " + decided_words(spend)
            )


def decided_words(spend: ExpectedSpend) -> str:
    """How often the simulated audits decided, and which way: "decided (fail) in 100.0% of
    200 simulated audits"; both ways, "decided in 60.0% (pass 40.0%, fail 20.0%) of …"; where
    none was decided before the complete design, "…, all at the whole design"."""
    audits = f"of {spend.replicates} simulated audits"
    if spend.decided and not spend.early:
        audits += ", all at the whole design"
    if not spend.decided:
        return f"decided in {percent_text(0.0)} {audits}"
    if not spend.failed or not spend.passed:
        way = "fail" if spend.failed else "pass"
        return f"decided ({way}) in {percent_text(spend.decided)} {audits}"
    ways = f"pass {percent_text(spend.passed)}, fail {percent_text(spend.failed)}"
    return f"decided in {percent_text(spend.decided)} ({ways}) {audits}"


def print_estimate(console: Console, est: Estimate) -> None:
    console.print(plan_counts(est.planned, est.cached, est.to_run))
    for model_id, per in est.per_model.items():
        # In the total line's units: trials planned, requests to run.
        console.print(
            f"  {model_id}: {counted(int(per['planned']), 'trial')} planned, "
            f"{counted(int(per['to_run']), 'request')} to run, " + dollars(per["cost"])
        )
    # What has no price is said in the amount itself ("$1.20 + 300 requests not priced").
    console.print(f"estimated cost of the rest: {dollars(est.cost)}")
    if est.paid_failed:
        console.print(
            f"{est.paid_failed} answers paid for but unusable are left as failed "
            "(--paid-retries N buys N of them again)"
        )
    if est.paid_retries_left and est.to_run:
        console.print(
            f"up to {est.paid_retries_left:,} paid retries of unusable answers: at most "
            f"{dollars(est.paid_retry_cost)} more"
        )
