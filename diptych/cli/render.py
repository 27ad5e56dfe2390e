"""Print a ProbeResult in the terminal."""

from __future__ import annotations

from rich.table import Table

from diptych.cli.console import SafeConsole as Console
from diptych.core.probe import ProbeResult
from diptych.core.report.formatting import (
    HEADLINE_COLUMNS,
    figure_text,
    floor_notes,
    fmt,
    marked_interval,
    observations,
    resampled_count,
)
from diptych.core.report.missing_intervals import marked_rows
from diptych.core.report.quick_look import QUICK_LOOK, quick_look


def print_result(
    console: Console,
    result: ProbeResult,
    *,
    max_rows: int = 60,
    tables: bool = True,
    observation: str = "observation",
) -> None:
    """The result's headline figures, tables and notes; ``observation`` is what one of its
    probe's observations is (the ``n`` column counts them: "1,600 prompts")."""
    console.print(f"[bold]{result.title}[/]")
    if result.summary:
        console.print(result.summary)
    if result.numbers:
        headline = Table(*HEADLINE_COLUMNS, title="Headline figures")
        # An interval is one value, never wrapped inside itself ("[−23.0," over "63.2]") when
        # the columns are narrowed to fit: its column keeps the widest interval's width.
        drawn = [marked_interval(num) for num in result.numbers.values()]
        headline.columns[2].min_width = max(
            (len(cell) for cell in drawn if cell.startswith("[")), default=None
        )
        for name, num in result.numbers.items():
            bounds = marked_interval(num)  # † where it fell to its floor, said under the table
            # n counts observations, the interval resamples units: each said with its noun.
            n = observations(num, observation) or fmt(num.get("n"))
            headline.add_row(name, figure_text(num.get("value")), bounds, n, resampled_count(num))
        console.print(headline)
        for line in floor_notes(result.numbers):
            console.print(line, markup=False)
        for line in quick_look_lines(result.numbers):
            console.print(line, markup=False)
    for table in result.tables if tables else []:
        headers = table.terminal_columns or {c: c for c in table.columns}
        keep = [table.columns.index(c) for c in headers]
        shown = Table(title=table.title)
        for i in keep:
            shown.add_column(headers[table.columns[i]], no_wrap=True)
        # A missing interval marked "—*", and why said under the table in the report's words:
        # of the columns printed only.
        rows, why = marked_rows(table, keep)
        for row in rows[:max_rows]:
            shown.add_row(*(fmt(row[i]) for i in keep))
        console.print(shown)
        if why:
            console.print(why, markup=False)
        if table.interval_name:
            console.print(f"intervals: {table.interval_name}", markup=False)
        if len(table.rows) > max_rows:
            console.print(f"[dim]… {len(table.rows) - max_rows} more rows in the report[/]")
    for note in result.notes:
        console.print(f"[dim]note: {note}[/]")


def quick_look_lines(numbers: dict[str, dict]) -> list[str]:
    """Under the headline figures, each figure with an interval on too few units a side: its
    value and interval, said to be a quick look, why, and what a finding needs (the report's
    verdict says it in the same words)."""
    lines = []
    for name, num in numbers.items():
        why = quick_look(num) if isinstance(num, dict) else ""
        if why and not num.get("interval_name"):
            shown = f"{figure_text(num.get('value'))} {marked_interval(num)}"
            lines.append(f"{name} {shown} is a {QUICK_LOOK}: {why}.")
    return lines
