"""``diptych plugins``: what is installed and what each plugin registers.

``diptych plugins new`` and ``diptych plugins check``, the plugin author's commands, are in
:mod:`diptych.cli.plugins_author_cmd`.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich import box
from rich.table import Table

from diptych.cli import plugins_author_cmd
from diptych.cli.console import SafeConsole as Console
from diptych.core.plugins import PluginInfo
from diptych.core.workspace import Workspace


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

    plugins_author_cmd.register(plugins_app)
    app.add_typer(plugins_app, name="plugins")
