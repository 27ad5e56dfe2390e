"""``diptych plugins new`` and ``diptych plugins check``: the plugin author's commands.

``new`` writes an installable probe, model or annotator package (:mod:`diptych.scaffold`) that
passes its own tests right after ``pip install -e DIR``; ``check`` runs diptych's plugin
contract (:mod:`diptych.testing.contract`) over one installed plugin and prints one line per
failed expectation.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

import typer

Kind = Literal["probe", "model", "annotator"]


def register(app: typer.Typer) -> None:
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
                "--dir", metavar="DIR", help="Where the package goes (default ./diptych-NAME)."
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
