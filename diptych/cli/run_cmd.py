"""``diptych run`` and ``diptych resume``."""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from diptych.cli.console import SafeConsole as Console
from diptych.cli.context import state
from diptych.cli.decided_resume import ask_rest_of_decided, price_resume
from diptych.cli.options import (
    ConcurrencyOption,
    ExecutorOption,
    MaxAttemptsOption,
    MaxCostOption,
    MaxRetryWaitOption,
    PaidRetriesOption,
    QuietOption,
    RayAddressOption,
    ReportOption,
    RetryMaybePaidOption,
    TimeoutOption,
    WaitOption,
    WatchOption,
    figure_value,
    ray_address_given,
)
from diptych.cli.paths import files_written, prepare_output_dir, writing
from diptych.cli.precision import few_units_warning, half_width, print_precision
from diptych.cli.progress import RichReporter
from diptych.cli.render import print_result
from diptych.cli.run_words import probe_flags, split_model_params
from diptych.cli.signals import settle_stopped
from diptych.core.audit.sequential import DEFAULT_BATCHES
from diptych.core.errors import UsageError
from diptych.core.plugins import observation_of
from diptych.core.report.formatting import tally
from diptych.core.workspace import (
    RetryPolicy,
    RunLeasedError,
    RunOptions,
    RunRecord,
    Workspace,
)


def resume_command(ws: Workspace, run_id: str) -> str:
    """The command that resumes the run, to paste as it is: the workspace is named by its
    absolute path, so it works from any directory and whatever ``$DIPTYCH_STORE`` says, and
    normalised as a user would type it (``/tmp/a/ws``, never ``/tmp/a/run/../ws``; links kept,
    as the user named them)."""
    return shlex.join(["diptych", "--store", os.path.abspath(ws.path), "resume", run_id])


def watch(ctx: typer.Context, refused: RunLeasedError, poll: float = 1.0) -> NoReturn:
    """Follow the run another process holds until that process stops; exit 0 when the run is
    complete then, 1 otherwise."""
    console = Console(soft_wrap=True)
    console.print(f"watching run {refused.run_id}, held by {refused.holder.describe()}")
    with state(ctx).open_workspace(create=False) as ws:
        last = None
        while ws.runs.lease(refused.run_id) is not None:
            counts = ws.runs.counts(refused.run_id)
            if counts != last:
                stored = sum(v for k, v in counts.items() if k != "pending")
                console.print(f"{stored} of {sum(counts.values())} trials stored")
                last = counts
            time.sleep(poll)
        run = ws.runs.get(refused.run_id)
        counts = ws.runs.counts(run.id)
    console.print(f"run {run.id} {run.status}: " + tally(counts))
    raise typer.Exit(0 if run.status == "complete" else 1)


def finish(
    console: Console, ws: Workspace, run: RunRecord, report_dir: Path | None, show: bool
) -> None:
    if not show and report_dir is None:
        return
    if show:
        # As every listing shows it: a figure of a design its gates looked at named.
        print_result(console, ws.audits.read(run.id), observation=observation_of(run.probe))
    if report_dir is not None:
        with writing(report_dir):
            # The report diptych report writes: a recorded audit's run as that audit's.
            written = ws.audits.write_report([run.id], report_dir)
        console.print(files_written(written), markup=False)


def print_interrupted(console: Console, ws: Workspace, reporter: RichReporter) -> None:
    """After Ctrl-C (or SIGTERM): the run the reporter last started, recorded as stopped,
    with what it holds and the command that finishes it."""
    reporter.stop()
    if reporter.run is not None:
        settle_stopped(ws, reporter.run.id)
        counts = ws.runs.counts(reporter.run.id)
        finished = counts["done"] + counts["refused"] + counts["failed"]
        console.print(
            f"interrupted: {finished:,} of {sum(counts.values()):,} trials stored; "
            f"resume with: {resume_command(ws, reporter.run.id)}"
        )


def _execute(
    ctx: typer.Context,
    run_fn: Callable[[Workspace, RichReporter], RunRecord],
    quiet: bool,
    *,
    create: bool,
) -> tuple[RunRecord, Workspace, Console]:
    console = Console(soft_wrap=True)
    reporter = RichReporter(console, quiet=quiet)
    ws = state(ctx).open_workspace(create=create)
    try:
        run = run_fn(ws, reporter)
    except KeyboardInterrupt:
        print_interrupted(console, ws, reporter)
        ws.close()
        raise typer.Exit(130) from None
    except BaseException:
        ws.close()
        raise
    return run, ws, console


def _run_options(
    *,
    concurrency: int,
    max_attempts: int,
    timeout: float | None,
    retry_maybe_paid: bool,
    max_retry_wait: float,
    max_cost: float | None,
    paid_retries: int,
    wait: bool,
    executor: str,
    ray_address: str | None,
    new: bool = False,
    same_build: bool = False,
) -> RunOptions:
    """The options ``run`` and ``resume`` both take, as the Workspace reads them."""
    retry = RetryPolicy(
        max_attempts=max_attempts,
        timeout=timeout,
        retry_maybe_paid=retry_maybe_paid,
        max_retry_wait=max_retry_wait,
    )
    return RunOptions(
        concurrency=concurrency, retry=retry, max_cost=max_cost, paid_retries=paid_retries,
        new=new, wait=wait, executor=executor, ray_address=ray_address, same_build=same_build,
    )  # fmt: skip


def _run_to_the_end(
    ctx: typer.Context,
    go: Callable[[Workspace, RichReporter], RunRecord],
    *,
    quiet: bool,
    create: bool,
    report: Path | None,
    watch_run: bool,
) -> None:
    """Run ``go`` (or, with ``--watch``, follow the process that holds the run), then show the
    result and write the report; exit 1 when the run did not complete."""
    try:
        record, ws, console = _execute(ctx, go, quiet, create=create)
    except RunLeasedError as refused:
        if not watch_run:
            raise
        watch(ctx, refused)
    with ws:
        finish(console, ws, record, report, show=True)
    if record.status != "complete":
        raise typer.Exit(1)


def _gated(
    ctx: typer.Context,
    probe: Any,
    models: list[Any],
    gates: list[str],
    options: RunOptions,
    *,
    report: Path | None,
    quiet: bool,
    dry_run: bool,
    until_decided: bool,
    batches: int,
    assume: float | None,
) -> None:
    """``diptych run`` with ``--gate`` rules: a one-part audit (:mod:`diptych.cli.gates`)."""
    from diptych.cli.gates import gated_audit, run_gated
    from diptych.core.workspace.gates import declared_gate_problems

    audit = gated_audit(probe, models, gates)
    # A gate on a figure the probe never publishes is refused before anything is bought.
    if problems := declared_gate_problems(audit):
        raise UsageError("; ".join(problems))
    if dry_run:
        from diptych.cli.plan_output import print_expected_costs

        with state(ctx).workspace_to_plan() as ws:
            print_expected_costs(ws, audit, until_decided=until_decided, batches=batches,
                                 assume=assume)  # fmt: skip
        return
    console = Console(soft_wrap=True, stderr=True)
    reporter = RichReporter(console, quiet=quiet)
    with state(ctx).open_workspace(create=True) as ws:
        try:
            code = run_gated(ws, audit, options, reporter=reporter, report=report,
                             until_decided=until_decided, batches=batches)  # fmt: skip
        except KeyboardInterrupt:
            print_interrupted(Console(soft_wrap=True), ws, reporter)
            code = 130
    raise typer.Exit(code)


def register(app: typer.Typer) -> None:
    # Options the command does not know are the probe's own parameters (see probe_flags).
    @app.command("run", context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
    def run(
        ctx: typer.Context,
        probe: Annotated[
            str,
            typer.Argument(metavar="PROBE", help="Probe name ('diptych plugins' lists them)."),
        ],
        model: Annotated[
            list[str] | None,
            typer.Option(
                "--model",
                "-m",
                help="Model name (NAME:CHECKPOINT sets its checkpoint); repeat for several.",
            ),
        ] = None,
        param: Annotated[
            list[str] | None,
            typer.Option(
                "--param", "-p", help="Probe parameter key=value (or --key VALUE after the rest)."
            ),
        ] = None,
        model_param: Annotated[
            list[str] | None,
            typer.Option(
                "--model-param", "-M", help="Model parameter key=value or name:key=value."
            ),
        ] = None,
        concurrency: ConcurrencyOption = 16,
        max_attempts: MaxAttemptsOption = 6,
        retry_maybe_paid: RetryMaybePaidOption = False,
        timeout: TimeoutOption = None,
        max_retry_wait: MaxRetryWaitOption = 300.0,
        paid_retries: PaidRetriesOption = 0,
        new: Annotated[
            bool, typer.Option("--new", help="Start a new run even if one matches.")
        ] = False,
        report: ReportOption = None,
        quiet: QuietOption = False,
        dry_run: Annotated[
            bool,
            typer.Option(
                "--dry-run",
                help="Show trials planned, stored and the cost, and the expected half-width "
                "of each headline figure's interval; run nothing.",
            ),
        ] = False,
        target_width: Annotated[
            float | None,
            typer.Option(
                "--target-width",
                callback=half_width,
                metavar="W",
                help="With --dry-run: the smallest design whose intervals are expected to be "
                "at most ±W (on each figure's scale, e.g. STS points).",
            ),
        ] = None,
        max_cost: MaxCostOption = None,
        wait: WaitOption = False,
        watch_run: WatchOption = False,
        executor: ExecutorOption = "local",
        ray_address: RayAddressOption = None,
        gate: Annotated[
            list[str] | None,
            typer.Option(
                "--gate",
                metavar="'FIGURE RULE LIMIT'",
                help="A release gate on a figure of the run, e.g. 'STS paired (expected from "
                "P(he), P(she)) below 25' (rules: below, not_above, above, not_below, within "
                "LOW HIGH); exit 0 pass, 1 fail, 3 inconclusive. Repeat for several.",
            ),
        ] = None,
        until_decided: Annotated[
            bool,
            typer.Option(
                "--until-decided",
                help="With --gate: buy the design in batches, in a random order, and stop once "
                "every gate is decided on anytime-valid intervals.",
            ),
        ] = False,
        batches: Annotated[
            int | None,
            typer.Option(
                "--batches", min=2, metavar="N", help="With --until-decided: batches (default 10)."
            ),
        ] = None,
        assume: Annotated[
            float | None,
            typer.Option(
                "--assume",
                metavar="VALUE",
                callback=figure_value,
                help="With --dry-run --until-decided: the value each gated figure is assumed "
                "to take (default: the plan's assumption).",
            ),
        ] = None,
    ) -> None:
        """Run a probe against one or more models (re-running resumes and reuses results).

        Probe parameters are given as -p key=value or as --key VALUE after the other options."""
        ray_address_given(executor, ray_address)
        own = [o for p in ctx.command.params for o in getattr(p, "opts", [])]
        given = [*(param or []), *probe_flags(probe, ctx.args, own)]
        if not model:
            raise UsageError("Missing option '--model' / '-m': name the model(s) to run")
        # Built before the workspace is opened: a misspelt name or parameter touches nothing.
        if report is not None and not dry_run:
            prepare_output_dir(report, "--report")
        probe_obj = Workspace.plugins.probe(probe, given)
        scoped = split_model_params(model, model_param or [])
        models = [Workspace.plugins.model((name, scoped[name])) for name in model]
        options = _run_options(
            concurrency=concurrency, max_attempts=max_attempts, timeout=timeout,
            retry_maybe_paid=retry_maybe_paid, max_retry_wait=max_retry_wait, max_cost=max_cost,
            paid_retries=paid_retries, wait=wait, executor=executor, ray_address=ray_address,
            new=new,
        )  # fmt: skip
        if target_width is not None and not dry_run:
            raise UsageError("--target-width plans a design: give it with --dry-run")
        if (until_decided or assume is not None) and not gate:
            raise UsageError("--until-decided stops when gates are decided: give --gate rules")
        if until_decided and new:
            raise UsageError("--until-decided continues one run batch by batch: drop --new")
        if batches is not None and not until_decided:
            raise UsageError("--batches sets the batches of --until-decided: give both, or neither")
        batches = batches or DEFAULT_BATCHES
        if gate:
            _gated(
                ctx,
                probe_obj,
                models,
                gate,
                options,
                report=report,
                quiet=quiet,
                dry_run=dry_run,
                until_decided=until_decided,
                batches=batches,
                assume=assume,
            )
            return
        if dry_run:
            with state(ctx).workspace_to_plan() as ws:
                estimate = ws.runs.plan(
                    probe_obj, models, options=options, precision=True, target_width=target_width
                )
                console = Console(soft_wrap=True)
                from diptych.cli.plan_output import print_estimate

                print_estimate(console, estimate)
                print_precision(console, estimate.precision)
            return

        def go(ws: Workspace, reporter: RichReporter) -> RunRecord:
            # Said before anything is bought, as --dry-run says it, but only once the workspace
            # is known to take the run: a refused run says its one error and nothing else. The
            # design is the bound probe's (one that builds on an earlier run chooses here).
            ws.require_writable("run a probe")
            if (warning := few_units_warning(ws.runs.bound(probe_obj))) is not None:
                typer.echo(warning, err=True)
            from diptych.audit.sequential import read_whole

            record = ws.runs.run_sync(probe_obj, models, options=options, reporter=reporter)
            # The same design as a decided run buys its rest: bought whole, its last look.
            read_whole(ws, record.id)
            return record

        _run_to_the_end(ctx, go, quiet=quiet, create=True, report=report, watch_run=watch_run)

    @app.command("resume")
    def resume(
        ctx: typer.Context,
        run_id: Annotated[
            str, typer.Argument(metavar="RUN_ID", help="Run id (a unique prefix will do).")
        ],
        concurrency: ConcurrencyOption = 16,
        max_attempts: MaxAttemptsOption = 6,
        retry_maybe_paid: RetryMaybePaidOption = False,
        timeout: TimeoutOption = None,
        max_retry_wait: MaxRetryWaitOption = 300.0,
        paid_retries: PaidRetriesOption = 0,
        report: ReportOption = None,
        quiet: QuietOption = False,
        max_cost: MaxCostOption = None,
        wait: WaitOption = False,
        watch_run: WatchOption = False,
        executor: ExecutorOption = "local",
        ray_address: RayAddressOption = None,
        same_build: Annotated[
            bool,
            typer.Option(
                "--same-build",
                help="Refuse to continue on another backend build (e.g. llama.cpp compiled "
                "for other CPU features) than the one the stored results came from; without "
                "it such a resume warns in one line and mixes the builds.",
            ),
        ] = False,
        yes: Annotated[
            bool,
            typer.Option(
                "--yes",
                "-y",
                help="Buy the rest of a decided run without asking (its gates were decided, "
                "so the rest is bought on purpose only).",
            ),
        ] = False,
        dry_run: Annotated[
            bool,
            typer.Option(
                "--dry-run",
                help="Show the run's trials, those stored, the requests to run and their "
                "estimated cost; buy nothing.",
            ),
        ] = False,
    ) -> None:
        """Finish a run that was interrupted or killed, without redoing finished trials."""
        ray_address_given(executor, ray_address)
        if dry_run:
            price_resume(ctx, run_id, paid_retries)
            return
        if report is not None:
            prepare_output_dir(report, "--report")
        ask_rest_of_decided(ctx, run_id, paid_retries, yes=yes)
        options = _run_options(
            concurrency=concurrency, max_attempts=max_attempts, timeout=timeout,
            retry_maybe_paid=retry_maybe_paid, max_retry_wait=max_retry_wait, max_cost=max_cost,
            paid_retries=paid_retries, wait=wait, executor=executor, ray_address=ray_address,
            same_build=same_build,
        )  # fmt: skip

        def go(ws: Workspace, reporter: RichReporter) -> RunRecord:
            from diptych.audit.sequential import read_whole

            record = ws.runs.resume_sync(run_id, options=options, reporter=reporter)
            read_whole(ws, record.id)  # a decided run bought whole: its last look
            return record

        _run_to_the_end(ctx, go, quiet=quiet, create=False, report=report, watch_run=watch_run)
