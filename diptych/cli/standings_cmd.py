"""``diptych standings [RUN ...]``: every audited model in the workspace side by side on one
figure (the paired STS unless ``--figure`` names another), each with its interval, the pairwise
differences with Holm-corrected tests and a rank with its interval, one table per design; the
papers' published figures beside it as another design; a model measured again against its
predecessor (``--against RUN``, or the same model on another version or build)
(``ws.standings``, :mod:`diptych.core.standings`)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from diptych.cli.context import state
from diptych.core.report.standings_tables import PAIR_COLUMNS, RANK_COLUMNS, standings_text

DEFAULT_FIGURE = "STS paired"


def register(app: typer.Typer) -> None:
    @app.command("standings")
    def standings(
        ctx: typer.Context,
        runs: Annotated[
            list[str] | None,
            typer.Argument(
                metavar="[RUN]...", help="The runs to set side by side (default: every run)."
            ),
        ] = None,
        figure: Annotated[
            str,
            typer.Option("--figure", metavar="NAME", help="The figure to rank, e.g. 'STS single'."),
        ] = DEFAULT_FIGURE,
        against: Annotated[
            str | None,
            typer.Option(
                "--against",
                metavar="RUN",
                help="A run whose models are the predecessors of the others': says whether "
                "each change is distinguishable from noise.",
            ),
        ] = None,
        as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
        n_boot: Annotated[int, typer.Option("--n-boot", min=1, help="Bootstrap resamples.")] = 2000,
        seed: Annotated[int, typer.Option("--seed", min=0, help="Seed of the resampling.")] = 0,
    ) -> None:
        """Rank every audited model on one figure, with intervals and Holm-corrected pairs."""
        with state(ctx).open_workspace() as ws:
            result = ws.standings.table(
                runs or None, figure=figure, against=against, n_boot=n_boot, seed=seed
            )
        if as_json:
            from diptych.core.strict_json import strict_json

            # Strict JSON, as report.json: the bounds of no interval are null, its reason says why.
            typer.echo(strict_json(result.to_dict()))
            return
        _print(result)


def _print(result: object) -> None:
    from rich import box
    from rich.table import Table

    from diptych.cli.console import SafeConsole as Console
    from diptych.core.standings import Standings

    assert isinstance(result, Standings)
    console = Console()
    for design in result.tables:
        text = standings_text(design)
        ranks = Table(title=text.title, title_justify="left", box=box.SIMPLE_HEAD)
        for j, name in enumerate(RANK_COLUMNS):
            words = name in ("model", "run")
            _column(ranks, name, [row[j] for row in text.ranks], words=words)
        for row in text.ranks:
            ranks.add_row(*row)
        console.print(_fitted(ranks, console, text.ranks))
        if text.pairs:
            pairs = Table(title="pairwise differences", title_justify="left", box=box.SIMPLE_HEAD)
            for j, name in enumerate(PAIR_COLUMNS):
                _column(pairs, name, [row[j] for row in text.pairs], words=False)
            for row in text.pairs:
                pairs.add_row(*row)
            console.print(_fitted(pairs, console, text.pairs))
        for line in text.successions:
            console.print(line)
        for line in text.references:
            console.print(f"published: {line}")
        for line in text.notes:
            console.print(line)
        console.print(text.units)
    console.print(result.method)


def _column(table: Any, name: str, values: list[str], *, words: bool) -> None:
    """A column a narrow terminal narrows without cutting a value: a number, an interval or a
    rank is never wrapped nor cut; a model's name or a run's id folds onto more lines, never
    to an ellipsis."""
    if words:
        table.add_column(name, justify="left", overflow="fold", min_width=len(name))
    else:
        table.add_column(name, justify="right", no_wrap=True)


def _fitted(table: Any, console: Any, rows: list[list[str]]) -> Any:
    """The table as it is where it fits the terminal; narrower, its columns one space apart
    (no padding inside them) and a header wider than its values on lines of its own words,
    so that the values keep their widths a while longer."""
    # Measured unbounded: a measure at the terminal's width is clamped to it.
    wide = console.options.update_width(10_000)
    if table.__rich_measure__(console, wide).maximum <= console.width:
        return table
    table.padding = (0, 0)
    table.show_edge = False
    for j, column in enumerate(table.columns):
        widest = max((len(row[j]) for row in rows), default=0)
        if column.no_wrap and len(str(column.header)) > widest:
            column.header = str(column.header).replace(" ", "\n")
    return table
