"""What the app says when a run's job ends is read as a report's text is: counts with their
thousands separators ("1,346 trials left")."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from diptych.tui.app import DiptychApp
from diptych.tui.messages import JobEnded
from tests.support.surfaces.text import printed_problems


def _said_when_ended(message: JobEnded, stop_reason: str) -> list[str]:
    said: list[str] = []
    job = SimpleNamespace(label="pst-text-18101709", state="running", error=None, run_id=None,
                          stop_reason=stop_reason)  # fmt: skip
    app: Any = SimpleNamespace(
        jobs={1: job}, paused=set(), _jobs_changed=lambda: None,
        notify=lambda text, **_: said.append(text),
    )  # fmt: skip
    DiptychApp._job_ended(app, message)
    return said


def test_a_stopped_runs_trials_left_carry_separators() -> None:
    for reason in ("pause", "stop"):
        message = JobEnded(1, "pst-text-18101709", "stopped", counts={"pending": 1346})
        (said,) = _said_when_ended(message, reason)
        assert "1,346 trials left" in said, said
        assert printed_problems(said) == [], said


async def test_a_run_ended_as_the_app_quits_is_said_nowhere(tmp_path: Path) -> None:
    """A run that ends while the app is quitting (its screens gone) is not said: the notice
    raised "No screens on stack" in the middle of the quit."""
    app = DiptychApp(tmp_path / "ws", refresh_interval=3600)
    async with app.run_test(size=(80, 24)):
        pass
    assert not app.screen_stack
    app.notify("pst-text-18101709 complete: 12 done")  # nothing to say it on, nothing raised
