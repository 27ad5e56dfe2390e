"""The Audit screen, open on an audit decided at its first look, while another process buys its
run on to the end (``diptych resume RUN --yes`` in another shell): the screen reads the store
again as that work lands, and when the screen is shown again (esc, then ``A``), rather than
keep what it read when the audit was opened."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from steps import open_audit, wait_for
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

import diptych.tui.screens.audit.screen as audit_screen
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.audit import AuditScreen
from tests.support.sequential_audits import decided_at_first_look

pytestmark = pytest.mark.usefixtures("scripted_plugin")


@pytest.fixture
def decided(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    """A workspace whose audit (made by ``diptych run --until-decided``) was decided at look 1
    of 4; its run's id."""
    monkeypatch.chdir(tmp_path)
    yield decided_at_first_look(
        capsys, str(tmp_path / ".diptych"), "-M", "latency=0.04", "-M", "max_concurrency=1"
    )


class BuyOn:
    """Buys ``run_id`` on to its end in a thread with a workspace of its own, as ``diptych
    resume`` does in another shell; ``started`` once its first trials are stored."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.started = threading.Event()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._buy, daemon=True)

    def trial_finished(self, model_id: str, status: str, error: str | None) -> None:
        self.started.set()

    def __getattr__(self, name: str) -> Any:  # every other Reporter call is ignored
        return lambda *args, **kwargs: None

    def _buy(self) -> None:
        try:
            with Workspace.open(".diptych") as ws:
                asyncio.run(ws.runs.resume(self.run_id, reporter=self))
        except BaseException as error:  # said by the test, not lost in a thread
            self.error = error


def _words(app: DiptychApp, audit: AuditScreen) -> str:
    summary = " ".join(str(audit.query_one("#summary", Static).render()).split())
    return f"{audit.status} · {summary}"


async def _opened(pilot: Pilot[Any]) -> AuditScreen:
    audit = await open_audit(pilot)
    recorded = audit.query_one("#recorded", OptionList)
    await wait_for(pilot, lambda: recorded.display and recorded.option_count == 1, "the list")
    await pilot.press("enter")
    await wait_for(pilot, lambda: bool(audit.status) and audit.plan is not None, "the audit")
    return audit


def _status_now(run_id: str) -> str:
    with Workspace.open(".diptych") as ws:
        return ws.runs.status_text(run_id)


async def test_the_screen_reads_a_buy_on_another_process_does_as_it_lands(decided: str) -> None:
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        audit = await _opened(pilot)
        before = _words(app, audit)
        assert "decided at look 1 of 4" in before, before
        ((part, _),) = audit.status.items()
        buy = BuyOn(decided)
        buy.thread.start()
        # While it buys: the part's row and the summary say so, within a few reads.
        await wait_for(pilot, buy.started.is_set, "the buy-on's first trials")
        await wait_for(
            pilot,
            lambda: "by another process" in _words(app, audit),
            "the screen to read the buy-on",
            lambda: _words(app, audit),
            timeout=20,
        )
        await asyncio.to_thread(buy.thread.join, 120)
        assert buy.error is None, buy.error
        # Finished: the part as every listing of its run says it, the stored trials counted.
        final = _status_now(decided)
        assert final.startswith("complete"), final

        def read() -> bool:
            words = _words(app, audit)
            return audit.status.get(part) == final and "by another process" not in words

        await wait_for(pilot, read, "the finished buy-on", lambda: _words(app, audit), timeout=20)
        assert audit.plan is not None and audit.plan.to_run == 0, audit.plan
        assert _words(app, audit) != before


async def test_the_screen_shown_again_reads_the_store_as_it_is_now(
    decided: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No reads between: only showing the screen again may read the buy-on.
    monkeypatch.setattr(audit_screen, "REFRESH_EVERY", 3600.0)
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        audit = await _opened(pilot)
        ((part, before),) = audit.status.items()
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, AuditScreen), "the Runs screen")
        buy = BuyOn(decided)
        buy.thread.start()
        await asyncio.to_thread(buy.thread.join, 120)
        assert buy.error is None, buy.error
        final = _status_now(decided)
        assert final != before, final
        assert await open_audit(pilot) is audit
        await wait_for(
            pilot,
            lambda: audit.status.get(part) == final,
            "the part as it is now",
            lambda: _words(app, audit),
            timeout=20,
        )
