"""Who is reviewing: asked before the Review screen takes a key, so that a name typed at once,
right after the key that opened Review, is stored whole; Escape closes the question only."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from hosts import Host
from steps import loaded, wait_for

from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.review import view
from diptych.tui.review.modals import ReviewerNameModal
from diptych.tui.review.screen import ReviewScreen


@pytest.fixture
def slow_queue(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """The review queue's read held until the event is set: the seconds a large run's queue
    takes to load, during which a user goes on typing."""
    release = threading.Event()
    read = view.load_queue

    def held(*args: Any, **kwargs: Any) -> Any:
        release.wait(60)
        return read(*args, **kwargs)

    monkeypatch.setattr(view, "load_queue", held)
    return release


async def test_a_name_typed_at_once_after_the_review_key_is_stored_whole(
    snapshot_workspace: Path, slow_queue: threading.Event
) -> None:
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(3)(pilot)
        # No pause between the key that opens Review and the name: every letter is the name's.
        await pilot.press("r", *"alice", "enter")
        slow_queue.set()
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the name taken")
        review = app.screen
        assert isinstance(review, ReviewScreen)
        assert review.reviewer == "alice"
        await wait_for(pilot, lambda: review._loaded, "the queue")
    with Workspace.open(snapshot_workspace) as ws:
        assert ws.preferences.last_reviewer() == "alice"


async def test_escape_closes_the_question_only_and_a_label_key_asks_again(
    review_run: tuple[Path, str],
) -> None:
    ws, run_id = review_run
    app = Host(ws, run_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewerNameModal), "the question")
        await pilot.press("escape")
        review = app.screen
        assert review is app.review and review.reviewer is None
        await wait_for(pilot, lambda: review.state.current() is not None, "the queue")
        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewerNameModal), "asked again")
        await pilot.press("m")  # typed into the name: the question is asked once
        assert sum(isinstance(s, ReviewerNameModal) for s in app.screen_stack) == 1
        await pilot.press("i", "a", "enter")
        await wait_for(pilot, lambda: review.reviewer == "mia", "the name taken")


@pytest.mark.parametrize("answer", [(*"alice", "enter"), ("escape",)])
async def test_review_asks_who_reviews_once_in_the_apps_session(
    snapshot_workspace: Path, answer: tuple[str, ...]
) -> None:
    """Answered once (a name, or Escape: only browsing), Review opened again in the same app
    does not ask again (unnamed, a label key still asks: tested above)."""
    app = DiptychApp(snapshot_workspace, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(3)(pilot)
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewerNameModal), "the question")
        await pilot.press(*answer)
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "the answer taken")
        review = app.screen
        assert isinstance(review, ReviewScreen)
        await wait_for(pilot, lambda: review._loaded, "the queue")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, ReviewScreen), "Runs again")
        await pilot.press("r")
        await wait_for(pilot, lambda: isinstance(app.screen, ReviewScreen), "Review again")
        again = app.screen
        assert isinstance(again, ReviewScreen)
        await wait_for(pilot, lambda: again._loaded, "the queue again")
        assert not any(isinstance(s, ReviewerNameModal) for s in app.screen_stack)
        assert again.reviewer == ("alice" if answer[0] == "a" else None)
