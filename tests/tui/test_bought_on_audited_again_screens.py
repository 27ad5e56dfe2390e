"""A run its gates decided at look 1, bought on since and then audited again (decided again on the
same looks) reads as ``diptych runs`` says it at 80×24 and 60×20: its Runs row's status is
"decided, bought on", whole (never "decided" alone beside a share past its look, nor "bought on"
alone, as if no gate had decided it), the line under the table and its Run detail's header say
where it was decided and what it holds now, in ``diptych show``'s words, and the Audit
screen's part row says the same words, its gates' note that it was bought on since; the part's
card names its requests as the ones still to run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from steps import (
    SIZES,
    cell,
    loaded,
    open_audit,
    open_recorded_audit,
    resume_question,
    settle,
    shown,
    surface,
    wait_for,
)
from textual.widgets import DataTable, OptionList, Static

from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from diptych.tui.screens.runs.detail import RunDetailScreen
from diptych.tui.widgets.fit_table import FitTable
from tests.support.stopped_runs import bought_on_and_audited_again

pytestmark = [pytest.mark.surface, pytest.mark.usefixtures("scripted_plugin")]


@pytest.fixture
def audited_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, Any]]:
    """The workspace, its run decided, bought on and audited again: the run as listed, its
    audit, and its requests with an outcome of all its design's."""
    monkeypatch.chdir(tmp_path)
    ws = tmp_path / ".diptych"
    run_id, _ = bought_on_and_audited_again(capsys, str(ws), "-M", "latency=0.01")
    with Workspace.open(ws) as opened:
        (listed,) = opened.runs.list()
        (audit,) = opened.audits.list()
    with open_store(ws) as store:
        answered, planned = store.requests_answered(run_id)
    assert listed.run.status == "decided" and listed.state == "decided, bought on"
    yield {"run": listed, "audit": audit, "answered": answered, "planned": planned}


def _text(widget: Any) -> str:
    return " ".join(str(widget.render()).split())


@pytest.mark.parametrize("size", SIZES)
async def test_a_decided_run_bought_on_reads_as_runs_says(
    audited_again: dict[str, Any], size: tuple[int, int]
) -> None:
    listed = audited_again["run"]
    run_id, words = listed.run.id, listed.said
    answered, planned = audited_again["answered"], audited_again["planned"]
    assert words == (
        f"decided at look 1 of 4, bought on since: {answered} of {planned} requests stored, "
        f"{planned - answered} not bought"
    )
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        await loaded(1)(pilot)
        app.screen.query_one("#runs", DataTable).focus()
        await settle(pilot)
        # Its row: no longer at the look that decided it, and drawn whole.
        assert cell(app, run_id, "status") == "decided, bought on"
        column = app.screen.query_one("#runs", DataTable).columns["status"]
        assert column.width >= len("decided, bought on"), (column.width, shown(app))
        selected = app.screen.query_one("#selected", Static)
        await wait_for(
            pilot, lambda: words in _text(selected), "the run's line", lambda: shown(app)
        )
        assert await surface(pilot, leave=("enter", "escape", "A", "n", "u", "p", "c")) == [], (
            shown(app)
        )
        app.screen.query_one("#runs", DataTable).focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RunDetailScreen), "the Run detail")
        detail = app.screen
        summary = detail.query_one("#summary")
        await wait_for(pilot, lambda: words in _text(summary), "the detail", lambda: shown(app))
        # Its header says it in ``diptych show``'s words, never "bought on" alone.
        run = listed.run
        head = f"{run_id} · {run.probe} v{run.probe_version} · {words} "
        assert _text(summary).startswith(head), _text(summary)
        assert _text(summary).count("bought on") == 1, _text(summary)
        assert f"not bought {listed.counts['pending']:,}" in _text(summary).replace("\u00a0", " ")
        # Its figures as the look read them, one interval each, the value since beside it.
        await wait_for(pilot, lambda: bool(detail.query("#section-numbers")), "the figures")
        table = detail.query_one("#section-numbers", FitTable)
        look = "95% anytime-valid, look 1 of 4;" if size[0] < 80 else "interval, look 1 of 4;"
        for _, cells in table.source:
            if cells[2].startswith("["):
                assert cells[2].count("[") == 1 and look in cells[2], cells
                assert cells[2].endswith(" stored since)"), cells


@pytest.mark.parametrize("size", SIZES)
async def test_its_audit_says_it_was_bought_on_since(
    audited_again: dict[str, Any], size: tuple[int, int]
) -> None:
    listed, audit = audited_again["run"], audited_again["audit"]
    (part,) = audit.parts
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=size) as pilot:
        screen = await open_audit(pilot)
        recorded = screen.query_one("#recorded", OptionList)
        await wait_for(pilot, lambda: recorded.display and recorded.option_count == 1, "the list")
        line = str(recorded.get_option_at_index(0).prompt)
        # In the words of ``diptych audit list``'s status column: the look that decided it, and
        # what the run holds now.
        # How many the stopped buy-on answered depends on when its Ctrl-C landed: the store says.
        answered, planned = audited_again["answered"], audited_again["planned"]
        said = (
            f"decided at look 1 of 4, bought on since: {answered:,} of {planned:,} requests "
            f"stored, {planned - answered:,} not bought"
        )
        assert f" · {said} · (command line)" in line, line
        await pilot.press("enter")
        await wait_for(pilot, lambda: bool(screen.gates) and part.name in screen.status, "gates")
        await settle(pilot)
        assert screen.status == {part.name: listed.said}, screen.status
        assert "; it was bought on since (" in " ".join(screen.gates_note.split())
        # The part's requests are named as the ones a run of the file would still ask.
        parts = screen.query_one("#parts", FitTable)
        assert "requests to run" in parts.headers and "trials stored" in parts.headers
        assert await surface(pilot, leave=("ctrl+r", "ctrl+g", "ctrl+o", "escape")) == [], shown(
            app
        )


async def test_ctrl_r_asks_before_it_buys_past_the_gated_stop(
    audited_again: dict[str, Any],
) -> None:
    """ctrl+r on the audit whose run was bought on since its gates stopped it asks, as ``u``
    on the Runs screen asks of its run, before it buys the rest; ``n`` buys nothing."""

    from diptych.tui.workers import rest_of_decided_run

    run_id = audited_again["run"].run.id
    ws = Path(".diptych")
    with Workspace.open(ws) as opened:
        before = opened.runs.counts(run_id)
    # Its one part is the decided run: nothing else of the audit is left to run after it.
    asked = " ".join(rest_of_decided_run(ws, run_id).split())
    asked += " Nothing else of the audit is left to run."
    app = DiptychApp(ws, refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_recorded_audit(pilot)
        text = await resume_question(pilot)
        assert text == asked and "decided at look 1 of 4" in text, text
        await pilot.press("n")
        await settle(pilot)
        assert "nothing bought" in str(screen.query_one("#summary", Static).render()), shown(app)
    with Workspace.open(ws) as opened:
        assert opened.runs.counts(run_id) == before
