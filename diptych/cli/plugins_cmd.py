"""``diptych plugins``: what is installed and what each plugin registers."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from diptych.core.plugins import load_plugins


def register(app: typer.Typer) -> None:
    @app.command("plugins")
    def plugins(
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """List each plugin, its version and the probes, models and annotators it registers."""
        registry = load_plugins()
        rows = [
            {
                "name": info.name,
                "package": info.distribution,
                "version": info.version,
                "probes": info.probes,
                "models": info.models,
                "annotators": info.annotators,
                "error": info.error,
            }
            for info in registry.plugins
        ]
        if as_json:
            typer.echo(json.dumps(rows, indent=2))
            return
        table = Table("plugin", "package", "version", "probes", "models", "annotators")
        for info in registry.plugins:
            if info.error:
                table.add_row(
                    info.name,
                    info.distribution,
                    info.version,
                    f"[red]not loaded: {info.error}[/]",
                    "",
                    "",
                )
                continue
            table.add_row(
                info.name,
                info.distribution,
                info.version,
                ", ".join(info.probes),
                ", ".join(info.models),
                ", ".join(info.annotators),
            )
        Console().print(table)
        describe = Table("kind", "name", "description", show_header=True)
        for name, probe in sorted(registry.probes.items()):
            describe.add_row("probe", name, probe.description())
        for name, model in sorted(registry.models.items()):
            describe.add_row(
                "model",
                name,
                (model.__doc__ or "").strip().splitlines()[0] if model.__doc__ else "",
            )
        for name, model in sorted(registry.annotators.items()):
            describe.add_row(
                "annotator",
                name,
                (model.__doc__ or "").strip().splitlines()[0] if model.__doc__ else "",
            )
        Console().print(describe)
