"""A run its gates decided at look 1, then another run asking some of the same requests bought
whole: the requests the other run bought answer trials of the decided run too, yet nothing was
bought for the decided run. ``diptych runs``, ``diptych show`` and the Runs screen's row say it
is decided at its look, with what stopping saved, never "bought on since", in agreement with its
trials (its done count the look's, the rest not bought)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from steps import cell, loaded, settle
from textual.widgets import DataTable

from diptych.core.store import open_store
from diptych.core.workspace import Workspace
from diptych.tui.app import DiptychApp
from tests.support.cli import call
from tests.support.sequential_audits import MASC, decided_at_first_look, design
from tests.support.stopped_runs import last_look

pytestmark = [pytest.mark.surface, pytest.mark.usefixtures("scripted_plugin")]


@pytest.fixture
def shared(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[str, str]:
    """The decided run, another run sharing its requests bought whole; what the CLI says of it
    is checked here (the run's id and its status in words returned)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "260")
    ws = str(tmp_path / ".diptych")
    run_id = decided_at_first_look(capsys, ws)
    look = last_look(ws)
    with Workspace.open(ws) as opened:
        done_at_look = opened.runs.counts(run_id)["done"]
    # Another design asking the same prompts of the same model (fewer feminine identities),
    # bought whole: it answers many of the decided run's requests.
    fewer = ["-p", "masculine=" + ",".join(MASC), "-p", "feminine=nurse,editor"]
    code, out = call(capsys, "--store", ws, "run", *design(lists=fewer))
    assert code == 0, out
    with open_store(Path(ws)) as store:
        answered, planned = store.requests_answered(run_id)
    # The premise: the store answers more of its requests than its look read.
    assert answered > look.bought and planned == look.planned

    saved = look.planned - look.bought
    words = f"decided at look 1 of 4: {look.bought:,} of {look.planned:,} requests, {saved:,} saved"
    code, out = call(capsys, "--store", ws, "runs", "--json")
    listed = {r["id"]: r for r in json.loads(out)}[run_id]
    assert listed["status"] == "decided", listed
    assert listed["counts"]["done"] == done_at_look, listed
    code, out = call(capsys, "--store", ws, "runs")
    assert "bought on" not in out, out
    code, out = call(capsys, "--store", ws, "show", run_id)
    assert code == 0, out
    flat = " ".join(out.split())
    assert "bought on" not in flat and words in flat, out
    assert re.search(rf"done {done_at_look:,}\b", flat), out

    with Workspace.open(ws) as opened:
        (row,) = [r for r in opened.runs.list() if r.run.id == run_id]
    assert (row.state, row.said) == ("decided", words)
    return run_id, words


async def test_a_run_sharing_its_requests_buys_nothing_for_a_decided_run(
    shared: tuple[str, str],
) -> None:
    run_id, words = shared
    app = DiptychApp(Path(".diptych"), refresh_interval=3600)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(2)(pilot)
        app.screen.query_one("#runs", DataTable).focus()
        await settle(pilot)
        assert cell(app, run_id, "status") == "decided"
