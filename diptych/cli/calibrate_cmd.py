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
from diptych.core.errors import DiptychError, UsageError

Subset = Literal["occupations", "status", "potential_crime"]


def register(app: typer.Typer) -> None:
    @app.command("calibrate")
    def calibrate(
        ctx: typer.Context,
        annotator: Annotated[
            str, typer.Argument(help="Annotator plugin ('diptych plugins' lists them).")
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
        concurrency: Annotated[int, typer.Option(help="Most images in flight at once.")] = 4,
        as_json: Annotated[bool, typer.Option("--json", help="Print the profile as JSON.")] = False,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    ) -> None:
        """Measure an annotator's coverage, accuracy, sensitivity and specificity on the PAIRS
        images of known gender, and store them for the reports of later runs."""
        from rich.console import Console

        from diptych.cli.progress import RichReporter
        from diptych.cli.render import print_result
        from diptych.core.annotation import annotator_id
        from diptych.core.engine import run_probe
        from diptych.core.plugins import get_model, load_plugins
        from diptych.core.runview import RunView
        from diptych.plugins.probes.calibration import (
            Calibration,
            CalibrationParams,
            analyze_calibration,
            calibration_profile,
        )

        registry = load_plugins()
        if annotator not in registry.annotators:
            known = ", ".join(sorted(registry.annotators)) or "none"
            raise UsageError(f"no annotator named '{annotator}' (installed: {known})")
        params = list(annotator_param or [])
        if model is not None:
            if "model" not in registry.annotators[annotator].Params.model_fields:
                raise UsageError(
                    f"annotator '{annotator}' asks no vision-language model, so --model does "
                    "not apply; drop it"
                )
            params.append(f"model={model}")
        instance = get_model(annotator, params)
        name = annotator_id(instance)
        version = instance.version
        # The probe is built directly rather than looked up by name: calibrating must not depend
        # on how the probe is registered.
        probe = Calibration(CalibrationParams(subset=subset))
        console = Console(soft_wrap=True, stderr=as_json)
        with state(ctx).open_store() as store:
            record = run_probe(
                store,
                probe,
                [instance],
                reporter=RichReporter(console, quiet=quiet or as_json),
                concurrency=concurrency,
            )
            view = RunView(store, record)
            counts = store.status_counts(record.id)
            if counts["pending"]:
                raise DiptychError(
                    f"run {record.id} stopped with {counts['pending']} images not yet labelled; "
                    "run the same command again to finish it (nothing is asked twice)"
                )
            profile = calibration_profile(view) | {"annotator": name, "annotator_version": version}
            saved = store.save_calibration(name, version, profile)
            result = analyze_calibration(view)
        if as_json:
            typer.echo(json.dumps(profile, indent=2))
        else:
            print_result(console, result)
            console.print(
                f"calibration {saved.id} of {name} (version {version}) stored from run "
                f"{record.id}; the pst report uses it to correct scores that rely on {name}"
            )
        if counts["failed"]:
            console.print(
                f"{counts['failed']} images could not be labelled (see 'diptych show "
                f"{record.id}'); they are left out of the profile"
            )
            raise typer.Exit(1)
