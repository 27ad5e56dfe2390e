"""``diptych plugins``: what is installed and what each plugin registers, and the plugin
author's commands.

``new`` writes an installable probe, model or annotator package (:mod:`diptych.scaffold`) that
passes its own tests right after ``pip install -e DIR``; ``check`` runs diptych's plugin
contract (:mod:`diptych.testing.contract`) over one installed plugin and prints one line per
failed expectation.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Literal

import typer
from rich import box
from rich.table import Table

from diptych.cli.console import SafeConsole as Console
from diptych.cli.paths import output_path
from diptych.core.plugins import PluginInfo
from diptych.core.workspace import Workspace

Kind = Literal["probe", "model", "annotator"]


def _table(*columns: str, names: tuple[str, ...] = ()) -> Table:
    """A table whose first column and the ``names`` columns hold names, which never wrap or end
    in "…" (a name is what a user types next); the others wrap between words to fit 80 columns."""
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    for i, column in enumerate(columns):
        table.add_column(column, no_wrap=i == 0 or column in names, overflow="fold")
    return table


def _registers(info: PluginInfo) -> str:
    kinds = (("probe", info.probes), ("model", info.models), ("annotator", info.annotators))
    return "; ".join(f"{kind}s {', '.join(names)}" for kind, names in kinds if names)


def register(app: typer.Typer) -> None:
    plugins_app = typer.Typer(
        invoke_without_command=True,
        help="List the installed plugins; scaffold and check your own.",
    )

    @plugins_app.callback()
    def plugins(
        ctx: typer.Context,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    ) -> None:
        """List each plugin, its version and the probes, models and annotators it registers;
        'diptych plugins new' scaffolds a plugin package and 'diptych plugins check' checks
        one against the plugin contract."""
        if ctx.invoked_subcommand is not None:
            return
        # The installed plugins are the environment's, not a workspace's: nothing is opened.
        registry = Workspace.plugins.registry()
        rows = [
            {
                "name": info.name,
                "package": info.distribution,
                "version": info.version,
                "api": info.api,
                "probes": info.probes,
                "models": info.models,
                "annotators": info.annotators,
                "error": info.error,
                "warning": info.warning,
            }
            for info in registry.plugins
        ]
        if as_json:
            typer.echo(json.dumps(rows, indent=2))
            return
        table = _table("plugin", "version", "package", "registers", names=("package",))
        for info in registry.plugins:
            registers = f"[red]not loaded: {info.error}[/]" if info.error else _registers(info)
            if info.warning:
                registers += f" [yellow](written for plugin API {info.api or 1})[/]"
            table.add_row(info.name, info.version, info.distribution, registers)
        Console().print(table)
        describe = _table("name", "kind", "description")
        for name, probe in sorted(registry.probes.items()):
            describe.add_row(name, "probe", probe.description())
        for name, model in sorted(registry.models.items()):
            describe.add_row(
                name,
                "model",
                (model.__doc__ or "").strip().splitlines()[0] if model.__doc__ else "",
            )
        for name, model in sorted(registry.annotators.items()):
            describe.add_row(
                name,
                "annotator",
                (model.__doc__ or "").strip().splitlines()[0] if model.__doc__ else "",
            )
        Console().print(describe)

    _register_author_commands(plugins_app)
    app.add_typer(plugins_app, name="plugins")


def _register_author_commands(app: typer.Typer) -> None:
    """``new`` and ``check``, under ``diptych plugins``."""

    @app.command("new")
    def new(
        kind: Annotated[Kind, typer.Argument(metavar="KIND", help="probe, model or annotator.")],
        name: Annotated[
            str,
            typer.Argument(
                metavar="NAME", help="The plugin's name: lower-case words joined by hyphens."
            ),
        ],
        directory: Annotated[
            Path | None,
            typer.Option(
                "--dir",
                metavar="DIR",
                parser=output_path("--dir", "the directory the package goes in"),
                help="Where the package goes (default ./diptych-NAME).",
            ),
        ] = None,
    ) -> None:
        """Scaffold a plugin package: pyproject with the diptych entry point, the plugin module
        with every method it needs, tests on diptych's fixtures, a README and a GitHub Actions
        workflow. It passes its tests right after 'pip install -e DIR'."""
        from diptych.scaffold import render, scaffold

        target, names = scaffold(kind, name, directory)
        typer.echo(f"wrote {names.kind} plugin {names.dist} into {target}:")
        for relative in sorted(render(kind, name)):
            typer.echo(f"  {relative}")
        typer.echo(
            f"next: pip install -e '{target}[test]' && pytest {target} && "
            f"diptych plugins check {names.plugin}"
        )

    @app.command("check")
    def check(
        name: Annotated[
            str,
            typer.Argument(
                help="A plugin (its entry-point or package name) or one probe, model or annotator."
            ),
        ],
    ) -> None:
        """Check an installed plugin against diptych's plugin contract: one line per failed
        expectation, exit 1 when any fails."""
        from diptych.testing.contract import check_plugin

        found = check_plugin(name)
        for note in found.notes:
            typer.echo(f"note: {note}", err=True)
        for failure in found.failures:
            typer.echo(failure)
        what = ", ".join(found.classes) or "nothing"
        package = f" ({found.package})" if found.package else ""
        summary = (
            f"plugin '{found.plugin}'{package}: {what}: {found.checked} expectations checked, "
            f"{len(found.failures)} failed"
        )
        typer.echo(summary, err=bool(found.failures))
        if found.failures:
            raise typer.Exit(1)
