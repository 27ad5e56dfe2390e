"""A rich progress bar that implements the engine's Reporter protocol; where the output is no
terminal (a log file, a pipe, CI), a plain line now and then instead, since a bar is drawn
only where a terminal redraws it."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable

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
from diptych.core.audit.run_status import outcome_words
from diptych.core.report.formatting import SHARED_REQUESTS, counted, plan_counts, tally
from diptych.core.workspace import RunRecord

#: Without a terminal, a line each time another tenth of the requests is done, and at least
#: this often (seconds) while they run: a log shows a slow run is alive.
PLAIN_EVERY_SECONDS = 30.0


def elapsed_words(seconds: float) -> str:
    """Time taken as a log line says it: "45 s", "3 min", "1 h 5 min"."""
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes = int(seconds // 60)
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


class PlainProgress:
    """Progress as plain lines where no terminal redraws a bar: "pst-text-18101709: 820 of
    1,640 requests, 3 min", at each tenth done and when ``every`` seconds passed since the
    last line."""

    def __init__(
        self,
        console: Console,
        run_id: str,
        total: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        every: float = PLAIN_EVERY_SECONDS,
    ) -> None:
        self.console, self.run_id, self.total = console, run_id, total
        self.clock, self.every = clock, every
        self.done = 0
        self.started = self.last = clock()
        self.tenths = 0

    def advance(self) -> None:
        self.done += 1
        now = self.clock()
        tenths = self.done * 10 // self.total if self.total else 10
        if tenths > self.tenths or now - self.last >= self.every:
            self.tenths = max(self.tenths, tenths)
            self.last = now
            self.console.print(
                f"{self.run_id}: {self.done:,} of {counted(self.total, 'request')}, "
                f"{elapsed_words(now - self.started)}",
                markup=False,
                highlight=False,
            )


class RichReporter:
    def __init__(
        self,
        console: Console,
        *,
        quiet: bool = False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console = console
        self.quiet = quiet
        self.counts: Counter[str] = Counter()
        self.run: RunRecord | None = None
        self.progress: Progress | None = None
        self.task: TaskID | None = None
        self.plain: PlainProgress | None = None
        self.clock = clock
        self.errors_shown = 0

    def run_started(self, run: RunRecord, total: int, cached: int, to_run: int) -> None:
        self.run = run
        said = plan_counts(total, cached, to_run)
        if to_run < total - cached:
            # Fewer requests than trials left: the progress below counts requests, the run's
            # end and every listing count trials, so the two are told apart here.
            said += f" ({SHARED_REQUESTS})"
        self.console.print(f"run [bold]{run.id}[/]: " + escape(said))
        if self.quiet or to_run == 0:
            return
        if not self.console.is_terminal:
            self.plain = PlainProgress(self.console, run.id, to_run, clock=self.clock)
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
        if self.plain is not None:
            self.plain.advance()

    def note(self, text: str) -> None:
        if not self.quiet:
            self.console.print(f"[dim]{text}[/]")

    def warn(self, text: str) -> None:
        """A note about money or data at risk: shown even with ``--quiet``."""
        self.console.print(f"[yellow]{escape(text)}[/]")

    def stop(self) -> None:
        self.plain = None
        if self.progress is not None:
            self.progress.stop()
            self.progress = None

    def run_finished(self, run: RunRecord, counts: dict[str, int]) -> None:
        self.stop()
        if run.status == "partial":
            # A batch of a sequential audit, bought in full: the rest waits for its next look.
            left = counts.get("pending", 0)
            bought = tally(counts, leave_out=("pending",))
            asked = counted(sum(counts.values()) - left, "trial")
            self.console.print(
                f"run [bold]{run.id}[/] partial: its batch bought, {asked} ({bought}); "
                f"{counted(left, 'trial')} wait for the gates' next look"
            )
            return
        # The trials by outcome, named as trials: the progress above counted requests.
        summary = tally(outcome_words(run.status, counts))
        trials = counted(sum(counts.values()), "trial")
        self.console.print(f"run [bold]{run.id}[/] {run.status}: {trials} ({summary})")
