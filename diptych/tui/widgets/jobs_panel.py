"""A few lines at the foot of a screen: the runs executing now, with their progress."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static

from diptych.tui.formatting import clip
from diptych.tui.progress import Progress, run_progress

if TYPE_CHECKING:
    from diptych.tui.jobs import JobState

BAR_WIDTH = 20
#: The narrowest bar drawn: below it the line wraps rather than cut the run's id.
MIN_BAR = 4


def progress_bar(progress: Progress, width: int = BAR_WIDTH) -> Text:
    filled = min(width, round(width * progress.fraction()))
    bar = Text("━" * filled, style="bold green")
    bar.append("━" * (width - filled), style="dim")
    return bar


#: A run's outcome counts as the store holds them, and its number of trials.
Stored = tuple[Mapping[str, int], int]


def job_line(
    job: JobState, width: int = 78, stored: Stored | None = None, now: float | None = None
) -> Text:
    """``pst-text-1a2b3c4d ━━━━━━━━━━────────── 38/156 · 2.1/s · ETA 0:56 · running``: the
    progress figure of the Runs table and the Run detail, as a bar. A run's id is printed
    whole (it is what a user types to name the run); the bar gives up the room it needs, down
    to ``MIN_BAR``. Only a run not yet given an id, named by its probe and models, is cut.

    Given what the store holds of the run (``stored``) and the moment (``now``) the screen's
    own line for the run is read with, the bar counts as that line does: a resumed run's
    earlier trials are done while it is still planning, and trials stored before the job
    told them are counted."""
    label_width = 24 if width >= 70 else 14
    label = job.label if job.run_id is not None else clip(job.label, label_width)
    counts, n_trials = stored if stored is not None else (None, 0)
    progress = run_progress(counts, n_trials, job, now)
    tail = Text(f" {progress.text()}" if progress.total else " planning…")
    if job.state != "running":
        tail.append(f" · {job.state}…", style="yellow")
    head = label.ljust(label_width) + " "
    room = width - cell_len(head) - tail.cell_len
    if room < MIN_BAR:
        head = label + " "  # the padding that lines the bars up goes before the bar does
        room = width - cell_len(head) - tail.cell_len
    line = Text(head)
    line.append_text(progress_bar(progress, max(MIN_BAR, min(room, BAR_WIDTH))))
    line.append_text(tail)
    if job.state == "running" and job.note:
        line.append(f" · {clip(job.note, 30)}", style="dim")
    return line


class JobsPanel(Static):
    """The active jobs, one line each; hidden when nothing runs."""

    DEFAULT_CSS = """
    JobsPanel {
        height: auto;
        max-height: 5;
        padding: 0 1;
        border-top: solid $primary;
        display: none;
    }
    JobsPanel.-busy {
        display: block;
    }
    """

    _jobs: Sequence[JobState] = ()
    _stored: Mapping[str, Stored] = {}
    _now: float | None = None

    def show_jobs(
        self,
        jobs: Sequence[JobState],
        stored: Mapping[str, Stored] | None = None,
        now: float | None = None,
    ) -> None:
        """``stored``: each run's counts as the store holds them, by run id; ``now``: the
        moment rates are read at (``time.monotonic()``), that of the screen's own lines."""
        self._jobs, self._stored, self._now = list(jobs), dict(stored or {}), now
        self.set_class(bool(jobs), "-busy")
        # Hidden until the first job, the panel has no size yet: its lines are as wide as the
        # screen less the panel's padding.
        width = self.content_size.width or self.screen.size.width - 2
        self.update(Text("\n").join(
            job_line(job, width, self._stored.get(job.run_id or ""), now) for job in jobs
        ))  # fmt: skip

    def on_resize(self) -> None:
        if self._jobs:
            self.show_jobs(self._jobs, self._stored, self._now)
