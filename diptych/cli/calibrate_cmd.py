"""``diptych calibrate ANNOTATOR``: measure an annotator's errors on PAIRS and keep them.

Runs the ``calibration`` probe (one ``person_annotator`` trial per bundled PAIRS image, cached and
resumable like any run) with the annotator, computes its error profile — coverage and accuracy
per race × gender, sensitivity and specificity with their counts — stores it under the id the
annotator's labels are stored under (so the pst report can correct scores that rely on it), and
prints it with the PAIRS attribution and license.
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

import typer

from diptych.cli.context import state

Subset = Literal["occupations", "status", "potential_crime"]


def register(app: typer.Typer) -> None:
    @app.command("calibrate")
    def calibrate(
        ctx: typer.Context,
        annotator: Annotated[
            str,
            typer.Argument(
                metavar="ANNOTATOR", help="Annotator plugin ('diptych plugins' lists them)."
            ),
        ],
        model: Annotated[
            str | None,
            typer.Option("--model", help="The vision-language model a VLM annotator asks."),
        ] = None,
        annotator_param: Annotated[
            list[str] | None,
            typer.Option("--annotator-param", "-A", help="Annotator parameter key=value."),
        ] = None,
        subset: Annotated[
            Subset | None, typer.Option("--subset", help="PAIRS subset (default: all).")
        ] = None,
        concurrency: Annotated[
            int, typer.Option("--concurrency", min=1, help="Most images in flight at once.")
        ] = 4,
        as_json: Annotated[bool, typer.Option("--json", help="Print the profile as JSON.")] = False,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    ) -> None:
        """Measure an annotator's coverage, accuracy, sensitivity and specificity on the PAIRS
        images of known gender, and store them for the reports of later runs."""
        from diptych.cli.console import SafeConsole as Console
        from diptych.cli.progress import RichReporter
        from diptych.cli.render import print_result
        from diptych.core.workspace import RunOptions

        console = Console(soft_wrap=True, stderr=as_json)
        with state(ctx).open_workspace(create=True) as ws:
            outcome = ws.annotators.calibrate_sync(
                annotator,
                params=annotator_param or [],
                model=model,
                subset=subset,
                options=RunOptions(concurrency=concurrency),
                reporter=RichReporter(console, quiet=quiet or as_json),
            )
        profile, record, counts = outcome.profile, outcome.run, outcome.counts
        name, version = outcome.annotator, outcome.annotator_version
        if as_json:
            typer.echo(json.dumps(profile, indent=2))
        else:
            print_result(console, outcome.result)
            console.print(
                f"calibration {outcome.saved.id} of {name} (version {version}) stored from run "
                f"{record.id}; the pst report uses it to correct scores that rely on {name}"
            )
        if counts["failed"]:
            console.print(
                f"{counts['failed']} images could not be labelled (see 'diptych show "
                f"{record.id}'); they are left out of the profile"
            )
            raise typer.Exit(1)
