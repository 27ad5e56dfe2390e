"""A rich progress bar that implements the engine's Reporter protocol."""

from __future__ import annotations

from collections import Counter

from rich.markup import escape
from rich.progress import (
    BarColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from diptych.cli.console import SafeConsole as Console
from diptych.core.report.formatting import counted, plan_counts, tally
from diptych.core.workspace import RunRecord


class RichReporter:
    def __init__(self, console: Console, *, quiet: bool = False) -> None:
        self.console = console
        self.quiet = quiet
        self.counts: Counter[str] = Counter()
        self.run: RunRecord | None = None
        self.progress: Progress | None = None
        self.task: TaskID | None = None
        self.errors_shown = 0

    def run_started(self, run: RunRecord, total: int, cached: int, to_run: int) -> None:
        self.run = run
        self.console.print(f"run [bold]{run.id}[/]: " + escape(plan_counts(total, cached, to_run)))
        if self.quiet or to_run == 0:
            return
        self.progress = Progress(
            TextColumn("[progress.description]{task.description}"),
            BarColumn(),
            # Done of total as every count prints, with thousands separators ("1,640/1,640").
            TextColumn("{task.completed:,.0f}/{task.total:,.0f}"),
            TextColumn("{task.fields[outcomes]}"),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
        )
        self.progress.start()
        self.task = self.progress.add_task(run.probe, total=to_run, outcomes="")

    def trial_finished(self, model_id: str, status: str, error: str | None) -> None:
        self.counts[status] += 1
        if status == "failed" and self.errors_shown < 3:
            self.errors_shown += 1
            self.console.print(f"[yellow]{model_id}: trial failed: {error}[/]")
        if self.progress is not None and self.task is not None:
            outcomes = " ".join(f"{k} {v:,}" for k, v in sorted(self.counts.items()))
            self.progress.update(self.task, advance=1, outcomes=outcomes)

    def note(self, text: str) -> None:
        if not self.quiet:
            self.console.print(f"[dim]{text}[/]")

    def warn(self, text: str) -> None:
        """A note about money or data at risk: shown even with ``--quiet``."""
        self.console.print(f"[yellow]{escape(text)}[/]")

    def stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None

    def run_finished(self, run: RunRecord, counts: dict[str, int]) -> None:
        self.stop()
        if run.status == "partial":
            # A batch of a sequential audit, bought in full: the rest waits for its next look.
            left = counts.get("pending", 0)
            bought = tally(counts, leave_out=("pending",))
            self.console.print(
                f"run [bold]{run.id}[/] partial: its batch bought ({bought}); "
                f"{counted(left, 'trial')} wait for the gates' next look"
            )
            return
        summary = tally(counts)
        self.console.print(f"run [bold]{run.id}[/] {run.status}: {summary}")
