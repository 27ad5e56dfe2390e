"""``diptych runs``, ``show``, ``export`` and ``report``: reading what is stored."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich import box
from rich.table import Table

from diptych.cli.console import SafeConsole as Console
from diptych.cli.context import state
from diptych.cli.paths import check_output_file, prepare_output_dir, writing
from diptych.cli.render import print_result
from diptych.core.builds import mixed_builds_note

# Kept importable from here for callers that read a run's rows (the rows are the core's).
from diptych.core.workspace import EXPORT_SCHEMA_VERSION, RunSummary, export_rows

#: Whose labels score people (probes that use annotators' labels, e.g. pst).
LabelPolicyOption = Annotated[
    Literal["human", "automatic", "mixed"] | None,
    typer.Option(
        "--label-policy",
        help="human: human majority only; automatic: one automatic annotator's labels only; "
        "mixed: human majority where there is one, else an automatic label (the default).",
    ),
]

#: Which PAIRS calibration may correct an automatic annotator's scores.
CalibrationSubsetOption = Annotated[
    Literal["occupations", "status", "potential_crime"] | None,
    typer.Option(
        "--calibration-subset",
        help="Correct with an annotator's calibration made on this PAIRS subset alone "
        "(default: only a calibration over all of PAIRS is used).",
    ),
]

__all__ = ["EXPORT_SCHEMA_VERSION", "export_rows", "register", "runs_table"]

RunIdArgument = Annotated[
    str, typer.Argument(metavar="RUN_ID", help="Run id (a unique prefix will do).")
]


def runs_table(summaries: list[RunSummary], width: int) -> Table:
    """The runs as a table that fits ``width`` columns without cutting a run id, the one thing
    a user copies from it: ids never wrap; on a narrow terminal the outcome counts share one
    column and the creation time is left out, and other cells wrap between words."""
    wide = width >= 120
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    widest = max((len(s.run.id) for s in summaries), default=3)
    table.add_column("run", no_wrap=True, min_width=widest)
    for name in ("probe", "models", "status"):
        table.add_column(name, overflow="fold")
    outcomes = ("done", "refused", "failed", "pending")
    if wide:
        for name in ("trials", *outcomes):
            table.add_column(name, justify="right")
        table.add_column("created", no_wrap=True)
    else:
        table.add_column("trials", overflow="fold")
    for summary in summaries:
        run, c = summary.run, summary.counts
        cells = [run.id, run.probe, ", ".join(m["model_id"] for m in run.models), run.status]
        if wide:
            cells += [str(run.n_trials), *(str(c[k]) for k in outcomes)]
            cells.append(time.strftime("%Y-%m-%d %H:%M", time.localtime(run.created_at)))
        else:
            counted = ", ".join(f"{c[k]} {k}" for k in outcomes if c[k])
            cells.append(f"{run.n_trials}: {counted}" if counted else str(run.n_trials))
        table.add_row(*cells)
    return table


def register(app: typer.Typer) -> None:
    @app.command("runs")
    def runs(
        ctx: typer.Context,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """List the runs in the workspace."""
        with state(ctx).open_workspace() as ws:
            summaries = ws.runs.list()
        if as_json:
            listing = [
                {
                    "id": r.run.id,
                    "probe": r.run.probe,
                    "status": r.run.status,
                    "trials": r.run.n_trials,
                    "models": [m["model_id"] for m in r.run.models],
                    "counts": r.counts,
                    "created_at": r.run.created_at,
                }
                for r in summaries
            ]
            typer.echo(json.dumps(listing, indent=2))
            return
        console = Console()
        console.print(runs_table(summaries, console.width))

    @app.command("show")
    def show(
        ctx: typer.Context,
        run_id: RunIdArgument,
        label_policy: LabelPolicyOption = None,
        calibration_subset: CalibrationSubsetOption = None,
    ) -> None:
        """Show a run: parameters, models, outcomes, labels and its headline figures."""
        console = Console()
        with state(ctx).open_workspace() as ws:
            detail = ws.runs.show(run_id)
            run, counts = detail.run, detail.counts
            console.print(
                f"[bold]{run.id}[/]  probe {run.probe} v{run.probe_version}  status {run.status}"
            )
            holder = ws.runs.lease(run.id)
            if holder is not None:
                console.print(f"being run by {holder.describe()}")
            elif run.status == "stale":
                console.print(
                    f"its process stopped before the end: 'diptych resume {run.id}' takes it over"
                )
            console.print("parameters: " + json.dumps(run.params, sort_keys=True))
            for m in run.models:
                console.print(
                    f"model {m['model_id']}: {m['name']} version {m['version']} "
                    f"params {json.dumps(m['params'], sort_keys=True)}"
                )
            for model_id, builds in detail.builds.items():
                for i, build in enumerate(builds):
                    said = f"build of {model_id}: " if i == 0 else "  then: "
                    console.print(said + build, markup=False, soft_wrap=True)
            note = mixed_builds_note(detail.builds)
            if note is not None:
                console.print(note, style="yellow", markup=False)
            console.print("trials: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
            console.print(
                "labels: " + (", ".join(f"{k} {v}" for k, v in detail.labels.items()) or "none")
            )
            if counts["done"]:
                result = ws.analysis.analyze(
                    run.id, label_policy=label_policy, calibration_subset=calibration_subset
                )
                print_result(console, result, tables=False)

    @app.command("export")
    def export(
        ctx: typer.Context,
        run_id: RunIdArgument,
        fmt: Annotated[Literal["csv", "jsonl"], typer.Option("--format")] = "jsonl",
        out: Annotated[
            Path | None, typer.Option("--out", "-o", help="File (default stdout).")
        ] = None,
    ) -> None:
        """Export every trial with its result and labels as CSV or JSON lines."""
        if out is not None:
            check_output_file(out, "--out")
        with state(ctx).open_workspace() as ws:
            if out is None:
                ws.runs.export(run_id, fmt, sys.stdout)
                return
            run = ws.runs.get(run_id)
            with writing(out):
                ws.runs.export(run.id, fmt, out)

    @app.command("report")
    def report(
        ctx: typer.Context,
        run_ids: Annotated[
            list[str],
            typer.Argument(
                metavar="RUN_ID...",
                help="Runs of the audit (unique prefixes will do); several make one report.",
            ),
        ],
        out: Annotated[Path | None, typer.Option("--out", "-o", help="Directory.")] = None,
        label_policy: LabelPolicyOption = None,
        formats: Annotated[
            str,
            typer.Option(
                "--format",
                "-f",
                help="Formats, comma-separated: html, md, json, pdf (pdf needs Chromium).",
            ),
        ] = "html,md,json",
        draft_with: Annotated[
            str | None,
            typer.Option(
                "--draft-with",
                metavar="MODEL",
                help="A chat model that drafts the summary and discussion; sentences the "
                "results do not bear out are dropped and listed.",
            ),
        ] = None,
    ) -> None:
        """Write the audit report of one or more runs (HTML, Markdown, JSON, PDF) into a
        directory."""
        with state(ctx).open_workspace() as ws:
            runs = [ws.runs.get(r).id for r in run_ids]
            target = out or Path(f"diptych-report-{runs[0]}")
            prepare_output_dir(target, "--out")
            with writing(target):
                path = ws.analysis.report(
                    runs,
                    target,
                    label_policy=label_policy,
                    formats=formats,
                    draft_with=draft_with,
                )
        typer.echo(f"report written to {path}")
