"""``diptych agreement RUN``: how far the annotators of a run agree.

Every annotator against every other (Cohen's κ on the persons both labelled), Fleiss' κ among the
people (PST Table 1's measure), Krippendorff's α over all annotators, and each automatic
annotator against the human majority (κ, accuracy, coverage; PST Table 12's comparison). The
numbers are ``ws.annotators.agreement``'s, with the resamples and seed of the report's agreement
tables unless given, so that both print one interval; numpy is imported only when the command runs.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from diptych.cli.context import state


def register(app: typer.Typer) -> None:
    @app.command("agreement")
    def agreement(
        ctx: typer.Context,
        run_id: Annotated[
            str, typer.Argument(metavar="RUN_ID", help="Run id (a unique prefix will do).")
        ],
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
        n_boot: Annotated[
            int | None,
            typer.Option(
                "--n-boot",
                min=1,
                show_default=False,
                help=(
                    "Bootstrap resamples (over the run's trials: images, draws); the report's "
                    "and Run detail's number unless given."
                ),
            ),
        ] = None,
        seed: Annotated[
            int | None,
            typer.Option(
                "--seed",
                min=0,
                show_default=False,
                help="Seed of the bootstrap; the report's and Run detail's unless given.",
            ),
        ] = None,
    ) -> None:
        """Agreement among a run's annotators: Cohen's κ per pair, Fleiss' κ among people,
        Krippendorff's α, and each automatic annotator against the human majority."""
        from diptych.cli.console import SafeConsole as Console
        from diptych.cli.render import print_result
        from diptych.core.metrics.agreement import agreement_report_tables
        from diptych.core.probe import ProbeResult

        with state(ctx).open_workspace() as ws:
            run = ws.runs.get(run_id)
            report = ws.annotators.agreement(run.id, n_boot=n_boot, seed=seed)
        if as_json:
            typer.echo(json.dumps({"run": run.id, **report.to_dict()}, indent=2))
            return
        print_result(
            Console(soft_wrap=True),
            ProbeResult(
                title=f"Annotator agreement, run {run.id}",
                summary=(
                    f"{report.subjects:,} labelled persons. Annotators 'human:*' are people, "
                    "'self' is the model's own answer, the others are automatic."
                ),
                tables=agreement_report_tables(report),
                notes=report.notes,
            ),
        )
