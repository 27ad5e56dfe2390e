"""How the engine tells a front end what is happening: it never prints or draws itself."""

from __future__ import annotations

from typing import Protocol

from diptych.core.store import RunRecord


class Reporter(Protocol):
    """How the engine tells a user interface what is happening. Every method must be cheap."""

    def run_started(self, run: RunRecord, total: int, cached: int, to_run: int) -> None: ...

    def trial_finished(self, model_id: str, status: str, error: str | None) -> None: ...

    def note(self, text: str) -> None: ...

    def run_finished(self, run: RunRecord, counts: dict[str, int]) -> None: ...


class NullReporter:
    """A reporter that tells nobody (library use, tests)."""

    def run_started(self, run: RunRecord, total: int, cached: int, to_run: int) -> None:
        pass

    def trial_finished(self, model_id: str, status: str, error: str | None) -> None:
        pass

    def note(self, text: str) -> None:
        pass

    def run_finished(self, run: RunRecord, counts: dict[str, int]) -> None:
        pass


def warn(reporter: Reporter, text: str) -> None:
    """Say ``text`` through the reporter's ``warn`` where it has one (a front end shows it even
    when told to be quiet: money or data at risk), else as a note."""
    say = getattr(reporter, "warn", None)
    (say if callable(say) else reporter.note)(text)
