"""``diptych annotate``: human labels in and out of a run.

* ``diptych annotate RUN --template FILE.csv [--images DIR]`` writes the labels template — the
  columns of the STS contract (``diptych metrics sts``), ``label`` empty, one row per person in a
  generated image — and, with ``--images``, every generated image as ``DIR/<image>.png``: what a
  crowd-sourcing task needs.
* ``diptych annotate RUN --template FILE.csv --sample N --design uniform|active`` writes the
  template of a drawn sample instead, each row with its design, probability and draw
  (``--design census``: every flagged person); their imported labels may enter the run's
  prediction-powered figures.
* ``diptych annotate RUN --import FILE.csv [--annotator NAME]`` reads labels in that format and
  stores each under its annotator, matched to the run's subjects by image and position. A row
  whose setting, identity, stereotype or run disagrees with the subject is reported, not stored.

The template of a run that a skin-tone annotator read has a ``tone`` column beside ``label``:
the person's Monk step, 1 to 10, blank where not judged. Its import stores each filled cell as
the row's annotator's tone label, with the row's design and probability, so that a drawn
sample's tones correct the tone figures as its gender labels correct the STS.

Labels are stored one per subject per annotator, so three crowd workers' labels stay three
labels (the analysis takes their majority); importing again replaces an annotator's label of the
same subject and keeps everything else.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from diptych.cli.context import state
from diptych.cli.paths import check_input_file, output_path
from diptych.core.digits import figure_text
from diptych.core.errors import AnnotationFailedError, InputFileError, UsageError
from diptych.core.workspace import AnnotationSummary, ImportReport
from diptych.core.workspace.labels.sample import MAX_SEED

#: How many unmatched rows and unlabelled subjects the report lists before summing up.
SHOWN = 10


def print_import_report(report: ImportReport) -> None:
    echo = typer.echo
    who = ", ".join(report.annotators) or "none"
    tones = f" and {len(report.tones)} skin tones" if report.tones else ""
    echo(
        f"run {report.run_id}: {len(report.matched):,} labels{tones} from {report.path.name} "
        f"stored for {report.subjects_matched} people (annotators: {who})"
    )
    if report.problems:
        echo(f"{len(report.problems)} rows match no person of the run and were not stored:")
        for line, why in report.problems[:SHOWN]:
            echo(f"  line {line}: {why}")
        if len(report.problems) > SHOWN:
            echo(f"  ... and {len(report.problems) - SHOWN} more")
        echo("  fix them and import the file again: labels already stored are replaced, not added")
    if report.unlabelled:
        shown = ", ".join(f"{s.image} ({s.position})" for s in report.unlabelled[:SHOWN])
        more = ", ..." if len(report.unlabelled) > SHOWN else ""
        echo(
            f"{len(report.unlabelled)} of {report.with_image} people in generated images have "
            f"no human label yet: {shown}{more}"
        )
    else:
        echo(f"every one of the {report.with_image} people in generated images has a human label")


def run_annotator(
    ctx: typer.Context,
    run: str,
    name: str,
    model: str | None,
    params: list[str],
    quiet: bool,
    wait: bool = False,
) -> None:
    """Run the annotator plugin ``name`` over every generated image of the run."""
    from diptych.cli.console import SafeConsole as Console
    from diptych.cli.progress import RichReporter
    from diptych.core.annotation import ANNOTATION_CONCURRENCY
    from diptych.core.workspace import RunOptions

    console = Console(soft_wrap=True)
    options = RunOptions(concurrency=ANNOTATION_CONCURRENCY, wait=wait)
    with state(ctx).open_workspace() as ws:
        annotator = ws.annotators.get(name, params=params, model=model)
        summary = ws.annotators.annotate_sync(
            run, annotator, options=options, reporter=RichReporter(console, quiet=quiet)
        )
    labels = ", ".join(f"{n} {label}" for label, n in sorted(summary.by_label.items()))
    console.print(
        f"{summary.annotator}: {summary.images} images ({summary.asked} asked now, the rest "
        f"stored), {summary.labels} labels: {labels or 'none'}"
    )
    if summary.failed:
        raise AnnotationFailedError(unlabelled_reason(summary))


def unlabelled_reason(summary: AnnotationSummary) -> str:
    """One line on the images an annotation pass could not label: how many, why (the first
    stored reason) and what to do."""
    first = " ".join((summary.errors[0] if summary.errors else "no reason stored").split())
    if len(first) > 300:
        first = first[:299] + "…"
    todo = (
        "fix the cause and run the same command again: the images not labelled are asked "
        "again, the labels stored are kept"
    )
    if summary.refused == summary.failed:
        # A refusal is final (never asked again): running again would not help.
        each, some = "was refused", "were refused"
        todo = "the service will not label them: choose another annotator (--annotator NAME)"
    elif summary.refused:
        each, some = "failed or was refused", "failed or were refused"
    else:
        each = some = "failed"
    if summary.failed == summary.images:
        return f"{summary.annotator}: every request {each}: {first} — {todo}"
    return (
        f"{summary.annotator}: {summary.failed} of {summary.images} images were not labelled, "
        f"their requests {some}: {first} — {todo}"
    )


def register(app: typer.Typer) -> None:
    @app.command("annotate")
    def annotate(
        ctx: typer.Context,
        run: Annotated[
            str, typer.Argument(metavar="RUN_ID", help="Run id (a unique prefix will do).")
        ],
        import_file: Annotated[
            Path | None,
            typer.Option(
                "--import",
                metavar="FILE.csv",
                help="Labels to store: columns image, setting, position, identity, stereotype, "
                "label (optional: annotator, run, tone: a Monk step 1-10).",
            ),
        ] = None,
        annotator: Annotated[
            str | None,
            typer.Option(
                "--annotator",
                help="Who labelled the rows without an annotator column value "
                "(default: human:<file name>).",
            ),
        ] = None,
        template: Annotated[
            Path | None,
            typer.Option(
                "--template",
                metavar="FILE.csv",
                parser=output_path("--template", "the file to write the labels template in"),
                help="Write the labels template: one row per person, label empty.",
            ),
        ] = None,
        images: Annotated[
            Path | None,
            typer.Option(
                "--images",
                metavar="DIR",
                parser=output_path("--images", "the directory to write the images in"),
                help="With --template: also write each generated image as DIR/<image>.png.",
            ),
        ] = None,
        model: Annotated[
            str | None,
            typer.Option(
                "--model",
                help="With --annotator: the vision-language model a VLM annotator asks.",
            ),
        ] = None,
        annotator_param: Annotated[
            list[str] | None,
            typer.Option("--annotator-param", "-A", help="Annotator parameter key=value."),
        ] = None,
        sample: Annotated[
            int | None,
            typer.Option(
                "--sample",
                metavar="N",
                help="With --template: write a drawn sample of about N persons, each row with "
                "its design and probability (see --design).",
            ),
        ] = None,
        design: Annotated[
            str | None,
            typer.Option(
                "--design",
                help="With --template: uniform (N at random), active (more where the automatic "
                "annotator is unsure) or census (every flagged person).",
            ),
        ] = None,
        seed: Annotated[
            int | None,
            typer.Option(
                "--seed",
                min=0,
                max=MAX_SEED,
                help="With --design: the draw's random seed (0 to 2^64 - 1).",
            ),
        ] = None,
        quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
        wait: Annotated[
            bool,
            typer.Option(
                "--wait",
                help="With --annotator: if another process is working on this run, wait for "
                "it, then annotate.",
            ),
        ] = False,
    ) -> None:
        """Label the people in a run's images: run an annotator (--annotator NAME), import
        human labels (--import FILE.csv), or write the template to gather them (--template)."""
        if import_file is None and template is None and annotator is not None:
            run_annotator(ctx, run, annotator, model, annotator_param or [], quiet, wait)
            return
        if wait:
            raise UsageError("--wait goes with --annotator NAME alone (running an annotator)")
        if (import_file is None) == (template is None):
            raise UsageError(
                "give --annotator NAME (run an annotator), --import FILE.csv or --template FILE.csv"
            )
        if images is not None and template is None:
            raise UsageError("--images goes with --template (the images to label)")
        if (sample is not None or design is not None or seed is not None) and template is None:
            raise UsageError("--sample, --design and --seed go with --template FILE.csv")
        if sample is not None and design is None:
            design = "uniform"
        if annotator is not None and template is not None:
            raise UsageError("--annotator goes with --import, or alone to run an annotator")
        if (model is not None or annotator_param) and import_file is not None:
            raise UsageError("--model and -A go with --annotator NAME alone (running an annotator)")
        if import_file is not None:
            check_input_file(import_file, "--import")
        with state(ctx).open_workspace() as ws:
            record = ws.runs.get(run)
            if import_file is not None:
                report = ws.labels.import_csv(record.id, import_file, annotator=annotator)
                print_import_report(report)
                if not report.matched:
                    raise InputFileError(
                        f"no row of {import_file} matches a person of run {record.id}; "
                        "is it the labels file of this run?"
                    )
                return
            assert template is not None
            if design is not None:
                drawn = ws.labels.sample(
                    record.id, template, n=sample, design=design, seed=seed, images=images
                )
                typer.echo(
                    f"wrote {drawn.rows} of {drawn.population} persons to {template}, drawn "
                    f"{drawn.design} (expected {figure_text(drawn.expected)}; draw "
                    f"{drawn.draw}); import the filled file with --import: each label keeps its "
                    "probability"
                )
                return
            written = ws.labels.template(record.id, template, images=images)
        note = f" and {written.images} images to {images}" if images is not None else ""
        typer.echo(f"wrote {written.rows} rows to {template}{note}")
        if written.no_image:
            typer.echo(
                f"{written.no_image} people are left out: their image was not generated "
                f"(refused, failed or pending; 'diptych resume {record.id}' retries failures)"
            )
