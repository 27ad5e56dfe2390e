"""``diptych runs``, ``show``, ``export`` and ``report``: reading what is stored."""

from __future__ import annotations

import csv
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from rich.console import Console
from rich.table import Table

from diptych.cli.context import state
from diptych.cli.render import print_result
from diptych.core.plugins import get_probe
from diptych.core.report import write_report
from diptych.core.runview import RunView
from diptych.core.store import Store

EXPORT_SCHEMA_VERSION = 1


def export_rows(store: Store, run_id: str) -> Iterator[dict[str, Any]]:
    """One row per trial: its plan, its result and every label its subjects received."""
    view = RunView(store, store.get_run(run_id))
    labels: dict[int, dict[str, dict[str, Any]]] = {}
    for lab in view.labels():
        labels.setdefault(lab.trial_idx, {}).setdefault(lab.position, {})[lab.annotator] = {
            "label": lab.label,
            "confidence": lab.confidence,
            "subject": lab.subject_meta,
        }
    for trial in view.trials:
        result = view.results.get(trial.key)
        yield {
            "schema_version": EXPORT_SCHEMA_VERSION,
            "run_id": view.run.id,
            "trial": trial.idx,
            "model_id": trial.model_id,
            "key": trial.key,
            "capability": trial.capability,
            "sample": trial.sample,
            "meta": trial.meta,
            "payload": trial.payload,
            "status": result.status if result else "pending",
            "output": result.output if result else None,
            "blob": result.blob if result else None,
            "error": result.error if result else None,
            "attempts": result.attempts if result else 0,
            "duration_s": round(result.duration_s, 6) if result else None,
            # Where the answer came from, e.g. DALL-E 3's revised_prompt, a seed, a device.
            "provenance": result.provenance if result else None,
            "labels": labels.get(trial.idx, {}),
        }


def flatten(row: dict[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in row.items():
        if key == "meta":
            flat.update({f"meta.{k}": v for k, v in value.items()})
        elif key == "labels":
            for position, by_annotator in value.items():
                for annotator, lab in by_annotator.items():
                    flat[f"label.{position}.{annotator}"] = lab["label"]
        elif isinstance(value, dict | list):
            flat[key] = json.dumps(value, ensure_ascii=False, sort_keys=True)
        else:
            flat[key] = value
    return flat


def register(app: typer.Typer) -> None:
    @app.command("runs")
    def runs(
        ctx: typer.Context,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """List the runs in the workspace."""
        with state(ctx).open_store() as store:
            if as_json:
                listing = [
                    {
                        "id": r.id,
                        "probe": r.probe,
                        "status": r.status,
                        "trials": r.n_trials,
                        "models": [m["model_id"] for m in r.models],
                        "counts": store.status_counts(r.id),
                        "created_at": r.created_at,
                    }
                    for r in store.list_runs()
                ]
                typer.echo(json.dumps(listing, indent=2))
                return
            table = Table(
                "run",
                "probe",
                "models",
                "status",
                "trials",
                "done",
                "refused",
                "failed",
                "pending",
                "created",
            )
            for run in store.list_runs():
                c = store.status_counts(run.id)
                table.add_row(
                    run.id,
                    run.probe,
                    ", ".join(m["model_id"] for m in run.models),
                    run.status,
                    str(run.n_trials),
                    str(c["done"]),
                    str(c["refused"]),
                    str(c["failed"]),
                    str(c["pending"]),
                    time.strftime("%Y-%m-%d %H:%M", time.localtime(run.created_at)),
                )
            Console().print(table)

    @app.command("show")
    def show(
        ctx: typer.Context,
        run_id: Annotated[str, typer.Argument(help="Run id (a unique prefix will do).")],
    ) -> None:
        """Show a run: parameters, models, outcomes, labels and its headline figures."""
        console = Console()
        with state(ctx).open_store() as store:
            run = store.get_run(run_id)
            counts = store.status_counts(run.id)
            console.print(
                f"[bold]{run.id}[/]  probe {run.probe} v{run.probe_version}  status {run.status}"
            )
            console.print("parameters: " + json.dumps(run.params, sort_keys=True))
            for m in run.models:
                console.print(
                    f"model {m['model_id']}: {m['name']} version {m['version']} "
                    f"params {json.dumps(m['params'], sort_keys=True)}"
                )
            console.print("trials: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
            view = RunView(store, run)
            by_annotator: dict[str, int] = {}
            for lab in view.labels():
                by_annotator[lab.annotator] = by_annotator.get(lab.annotator, 0) + 1
            console.print(
                "labels: " + (", ".join(f"{k} {v}" for k, v in by_annotator.items()) or "none")
            )
            if counts["done"]:
                print_result(console, get_probe(run.probe, run.params).analyze(view), tables=False)

    @app.command("export")
    def export(
        ctx: typer.Context,
        run_id: Annotated[str, typer.Argument(help="Run id (a unique prefix will do).")],
        fmt: Annotated[Literal["csv", "jsonl"], typer.Option("--format")] = "jsonl",
        out: Annotated[
            Path | None, typer.Option("--out", "-o", help="File (default stdout).")
        ] = None,
    ) -> None:
        """Export every trial with its result and labels as CSV or JSON lines."""
        with state(ctx).open_store() as store:
            rows = list(export_rows(store, run_id))
        handle = out.open("w", newline="", encoding="utf-8") if out else sys.stdout
        try:
            if fmt == "jsonl":
                for row in rows:
                    handle.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
            else:
                flat = [flatten(r) for r in rows]
                columns = list(dict.fromkeys(k for r in flat for k in r))
                writer = csv.DictWriter(handle, fieldnames=columns)
                writer.writeheader()
                writer.writerows(flat)
        finally:
            if out:
                handle.close()

    @app.command("report")
    def report(
        ctx: typer.Context,
        run_id: Annotated[str, typer.Argument(help="Run id (a unique prefix will do).")],
        out: Annotated[Path | None, typer.Option("--out", "-o", help="Directory.")] = None,
    ) -> None:
        """Write the run's Markdown report (and report.json) into a directory."""
        with state(ctx).open_store() as store:
            run = store.get_run(run_id)
            probe = get_probe(run.probe, run.params)
            view = RunView(store, run)
            path = write_report(
                view, probe, probe.analyze(view), out or Path(f"diptych-report-{run.id}")
            )
        typer.echo(f"report written to {path}")
