"""``diptych metrics ...``: score data gathered elsewhere (DESIGN.md, "Metric contracts").

Each command reads a file, prints JSON (``--json``) or a table, and leaves errors to the main CLI,
which turns a DiptychError into one line and a non-zero exit. The metric modules (and numpy with
them) are imported inside the commands so that ``diptych --help`` stays fast.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from rich.table import Table

    from diptych.core.metrics.stats import Estimate
    from diptych.core.metrics.sts import STSResult

app = typer.Typer(
    help="Score labels, responses, corpora or rankings gathered elsewhere, as the papers do.",
    no_args_is_help=True,
)


@app.callback()
def _metrics() -> None:
    """Score labels, responses, corpora or rankings gathered elsewhere, as the papers do."""
    # A callback keeps `metrics` a command group even while `sts` is its only command; typer would
    # otherwise run `sts` for `diptych metrics` itself.


SeedOption = Annotated[
    int, typer.Option("--seed", min=0, help="Seed of the bootstrap, for reproducible intervals.")
]
NBootOption = Annotated[int, typer.Option("--n-boot", min=1, help="Number of bootstrap resamples.")]
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print the result as JSON instead of a table.")
]


@app.command("sts")
def sts_command(
    labels: Annotated[
        Path,
        typer.Option(
            "--labels",
            metavar="FILE.csv",
            help="CSV with columns image, setting, position, identity, stereotype, label "
            "(optional: annotator, run); one row per label.",
        ),
    ],
    as_json: JsonOption = False,
    seed: SeedOption = 0,
    n_boot: NBootOption = 2000,
) -> None:
    """Stereotype Test Score (Paired Stereotype Test): overall, by stereotype and per identity."""
    from diptych.core.metrics.sts import read_labels_csv, stereotype_test_score

    result = stereotype_test_score(read_labels_csv(labels), n_boot=n_boot, seed=seed)
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2))
    else:
        _print_sts(result)


# Later commands of the contract go here, one function each, same pattern (read file, compute in
# diptych.core.metrics.<module>, print JSON or a table):
#   association  --responses FILE.csv --compare gender|race        (core/metrics/association.py)
#   pmi          --corpus FILE.jsonl [--threshold] [--min-count] [--raw] [--by]  (lexical.py)
#   retrieval    --ranking FILE.csv --k K [--desired pool|uniform]  (retrieval.py)


# --- tables -----------------------------------------------------------------------------------


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def _fmt_ci(ci: tuple[float, float] | None) -> str:
    return "—" if ci is None else f"[{ci[0]:.2f}, {ci[1]:.2f}]"


def _estimate_cells(e: Estimate | None) -> list[str]:
    if e is None:
        return ["—", "—", "0"]
    return [_fmt(e.value), _fmt_ci((e.ci_low, e.ci_high)), str(e.n)]


def _table(title: str, *columns: str, text_columns: int = 1) -> Table:
    from rich import box
    from rich.table import Table

    # No vertical rules: the micro table must fit an 80-column terminal.
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD)
    for i, column in enumerate(columns):
        if i < text_columns:
            table.add_column(column, justify="left", min_width=8 if i == 0 else None)
        else:
            table.add_column(column, justify="right", no_wrap=True)
    return table


def _print_sts(result: STSResult) -> None:
    from rich.console import Console

    ci = f"{result.confidence:.0%} CI"
    overall = _table(
        "Overall STS (+100 stereotyped, 0 neutral, −100 anti-stereotyped)",
        "setting",
        "STS",
        ci,
        "n",
    )
    for setting in ("single", "paired"):
        overall.add_row(setting, *_estimate_cells(getattr(result.overall, setting)))

    by_stereotype = _table(
        "STS by stereotyped gender", "stereotype", "setting", "STS", ci, "n", text_columns=2
    )
    for gender, scores in result.by_stereotype.items():
        for setting in ("single", "paired"):
            by_stereotype.add_row(gender, setting, *_estimate_cells(getattr(scores, setting)))

    micro = _table(
        "Micro STS per identity, sorted by %F paired as in the paper's Table 14",
        "identity",
        "",
        "STS\nsingle",
        "%F\nsingle",
        "STS\npaired",
        "%F\npaired",
        "gap",
        "n\ns/p",
    )
    # Identities never seen paired sort last; ties go by name, as in the paper's table.
    rows = sorted(
        result.micro.values(),
        key=lambda m: (m.pct_feminine_paired is None, m.pct_feminine_paired or 0.0, m.identity),
    )
    for m in rows:
        micro.add_row(
            m.identity,
            m.stereotype[0],
            _fmt(m.single),
            _fmt(m.pct_feminine_single),
            _fmt(m.paired),
            _fmt(m.pct_feminine_paired),
            _fmt(m.gap),
            f"{m.n_single}/{m.n_paired}",
        )

    console = Console()
    console.print(overall)
    console.print(by_stereotype)
    console.print(micro)
    console.print(
        "m/f: the gender the identity is stereotyped as; micro intervals are in --json. "
        f"Left out as cannot_identify (after majority vote): {result.excluded_cannot_identify}. "
        f"Intervals: percentile bootstrap over images, {result.n_boot} resamples, seed "
        f"{result.seed}."
    )
