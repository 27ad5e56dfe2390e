"""``diptych run`` and ``diptych resume``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from diptych.cli.context import state
from diptych.cli.progress import RichReporter
from diptych.cli.render import print_result
from diptych.core.engine import Estimate, RetryPolicy, estimate, probe_and_models_of, run_probe
from diptych.core.errors import UsageError
from diptych.core.plugins import get_model, get_probe
from diptych.core.report import write_report
from diptych.core.runview import RunView
from diptych.core.store import RunRecord, Store


def split_model_params(models: list[str], given: list[str]) -> dict[str, list[str]]:
    """``-M key=value`` applies to every model; ``-M name:key=value`` to the one named."""
    scoped: dict[str, list[str]] = {m: [] for m in models}
    for item in given:
        head, sep, rest = item.partition(":")
        if sep and head in scoped and "=" in rest:
            scoped[head].append(rest)
        elif sep and "=" not in head:
            raise UsageError(f"-M {item}: no model '{head}' in this run ({', '.join(models)})")
        else:
            for params in scoped.values():
                params.append(item)
    return scoped


def print_estimate(console: Console, est: Estimate) -> None:
    console.print(f"{est.planned} trials planned, {est.cached} already stored, {est.to_run} to run")
    for model_id, tally in est.per_model.items():
        console.print(
            f"  {model_id}: {int(tally['planned'])} planned, {int(tally['to_run'])} to run, "
            f"${tally['cost']:.2f}"
        )
    unknown = f" ({est.unpriced} with no known price)" if est.unpriced else ""
    console.print(f"estimated cost of the rest: ${est.cost:.2f}{unknown}")


def finish(
    console: Console, store: Store, run: RunRecord, report_dir: Path | None, show: bool
) -> None:
    if not show and report_dir is None:
        return
    probe = get_probe(run.probe, run.params)
    view = RunView(store, store.get_run(run.id))
    result = probe.analyze(view)
    if show:
        print_result(console, result)
    if report_dir is not None:
        path = write_report(view, probe, result, report_dir)
        console.print(f"report written to {path}")


def _execute(ctx: typer.Context, run_fn: Any, quiet: bool) -> tuple[RunRecord, Store, Console]:
    console = Console(soft_wrap=True)
    reporter = RichReporter(console, quiet=quiet)
    store = state(ctx).open_store()
    try:
        run = run_fn(store, reporter)
    except KeyboardInterrupt:
        reporter.stop()
        if reporter.run is not None:
            counts = store.status_counts(reporter.run.id)
            finished = counts["done"] + counts["refused"] + counts["failed"]
            console.print(
                f"interrupted: {finished} of {sum(counts.values())} trials stored; "
                f"resume with: diptych resume {reporter.run.id}"
            )
        raise typer.Exit(130) from None
    return run, store, console


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run(
        ctx: typer.Context,
        probe: Annotated[str, typer.Argument(help="Probe name ('diptych plugins' lists them).")],
        model: Annotated[
            list[str], typer.Option("--model", "-m", help="Model name; repeat for several.")
        ],
        param: Annotated[
            list[str] | None, typer.Option("--param", "-p", help="Probe parameter key=value.")
        ] = None,
        model_param: Annotated[
            list[str] | None,
            typer.Option(
                "--model-param", "-M", help="Model parameter key=value or name:key=value."
            ),
        ] = None,
        concurrency: Annotated[int, typer.Option(help="Most trials in flight at once.")] = 16,
        max_attempts: Annotated[
            int, typer.Option(help="Attempts per trial on transient faults.")
        ] = 6,
        timeout: Annotated[
            float | None, typer.Option(help="Seconds per call before retrying.")
        ] = None,
        new: Annotated[
            bool, typer.Option("--new", help="Start a new run even if one matches.")
        ] = False,
        report: Annotated[
            Path | None, typer.Option("--report", help="Write the report into this directory.")
        ] = None,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
        dry_run: Annotated[
            bool,
            typer.Option(
                "--dry-run", help="Show trials planned, stored and the cost; run nothing."
            ),
        ] = False,
        max_cost: Annotated[
            float | None,
            typer.Option("--max-cost", help="Stop before the estimated spend exceeds this (USD)."),
        ] = None,
    ) -> None:
        """Run a probe against one or more models (re-running resumes and reuses results)."""
        probe_obj = get_probe(probe, param or [])
        scoped = split_model_params(model, model_param or [])
        models = [get_model(name, scoped[name]) for name in model]
        retry = RetryPolicy(max_attempts=max_attempts, timeout=timeout)
        if dry_run:
            with state(ctx).open_store() as store:
                print_estimate(Console(soft_wrap=True), estimate(store, probe_obj, models))
            return

        def go(store: Store, reporter: RichReporter) -> RunRecord:
            return run_probe(
                store,
                probe_obj,
                models,
                reporter=reporter,
                retry=retry,
                concurrency=concurrency,
                new=new,
                max_cost=max_cost,
            )

        record, store, console = _execute(ctx, go, quiet)
        with store:
            finish(console, store, record, report, show=True)
        if record.status != "complete":
            raise typer.Exit(1)

    @app.command("resume")
    def resume(
        ctx: typer.Context,
        run_id: Annotated[str, typer.Argument(help="Run id (a unique prefix will do).")],
        concurrency: Annotated[int, typer.Option(help="Most trials in flight at once.")] = 16,
        max_attempts: Annotated[
            int, typer.Option(help="Attempts per trial on transient faults.")
        ] = 6,
        timeout: Annotated[
            float | None, typer.Option(help="Seconds per call before retrying.")
        ] = None,
        report: Annotated[
            Path | None, typer.Option("--report", help="Write the report into this directory.")
        ] = None,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
        max_cost: Annotated[
            float | None,
            typer.Option("--max-cost", help="Stop before the estimated spend exceeds this (USD)."),
        ] = None,
    ) -> None:
        """Finish a run that was interrupted or killed, without redoing finished trials."""
        retry = RetryPolicy(max_attempts=max_attempts, timeout=timeout)

        def go(store: Store, reporter: RichReporter) -> RunRecord:
            record = store.get_run(run_id)
            probe_obj, models = probe_and_models_of(record)
            return run_probe(
                store,
                probe_obj,
                models,
                reporter=reporter,
                retry=retry,
                concurrency=concurrency,
                run_id=record.id,
                max_cost=max_cost,
            )

        record, store, console = _execute(ctx, go, quiet)
        with store:
            finish(console, store, record, report, show=True)
        if record.status != "complete":
            raise typer.Exit(1)
