"""A run's dates come from its own record: a run that reuses answers another run stored before
it began says it started when it did, finished no earlier, and how many answers it reused and
when they were stored."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from diptych.core.report.run_dates import run_dates, when
from diptych.core.store import open_store
from diptych.core.store.records import ResultRecord
from diptych.core.workspace import Workspace
from tests.support.surfaces.subject import date_order_problems

MASC = ["carpenter", "farmer", "guard", "mover"]
FEM = ["nurse", "editor", "secretary", "librarian"]
HOUR = 3600.0


@pytest.mark.usefixtures("scripted")
def test_a_run_reusing_earlier_answers_never_finishes_before_it_started(tmp_path: Path) -> None:
    store = tmp_path / "ws"
    model = [("scripted-likelihood", {})]
    with Workspace.open(store) as ws:
        first = ws.runs.run_sync(
            "pst-text", model, params={"masculine": MASC[:3], "feminine": FEM[:3]}
        )
    # The first run's answers stored an hour ago, as another session would have left them.
    with open_store(store) as db:
        with db.transaction() as sql:
            sql.execute(
                "UPDATE results SET started_at = started_at - ?, finished_at = finished_at - ?",
                (HOUR, HOUR),
            )
            stored = sql.execute(
                "SELECT MIN(finished_at), MAX(finished_at) FROM results"
            ).fetchone()
            earlier = {row[0] for row in sql.execute("SELECT key FROM trials")}
    with Workspace.open(store) as ws:
        second = ws.runs.run_sync("pst-text", model, params={"masculine": MASC, "feminine": FEM})
        keys = {t.key for t in ws.runs.view(second.id).trials}
        reused = len(keys & earlier)
        assert 0 < reused < len(keys), "the second run reuses some of the first run's answers"
        out = tmp_path / "rep"
        ws.analysis.report([second.id], out, formats=["md", "html", "json"])
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert data["run"] == second.id and first.id != second.id
    assert data["started"] == when(second.created_at) <= data["finished"]
    assert date_order_problems(data) == []
    at = when(stored[0]) if when(stored[0]) == when(stored[1]) else f"{when(stored[0])} to"
    said = f"{reused:,} answers reused, stored by an earlier run at {at}"
    assert data["reused"].startswith(said)
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert f"{data['started']} – {data['finished']} ({said}" in markdown
    page = re.sub(r"<[^>]+>", "", (out / "report.html").read_text(encoding="utf-8"))
    assert said in page
    assert f"{data['started']} to {data['finished']}" in data["verdict"]["scope"]


@pytest.mark.usefixtures("scripted")
def test_a_run_whose_answers_were_all_reused_finishes_when_it_started(tmp_path: Path) -> None:
    store = tmp_path / "ws"
    params = {"masculine": MASC[:2], "feminine": FEM[:2]}
    with Workspace.open(store) as ws:
        run = ws.runs.run_sync("pst-text", [("scripted-likelihood", {})], params=params)
    with open_store(store) as db:
        with db.transaction() as sql:
            # Every answer stored an hour before the run was recorded, as a run of the same
            # trials made later finds them all.
            sql.execute("UPDATE results SET finished_at = finished_at - ?", (HOUR,))
            sql.execute("UPDATE runs SET created_at = ?", (time.time(),))
    out = tmp_path / "rep"
    with Workspace.open(store) as ws:
        ws.analysis.report([run.id], out, formats=["json"])
    data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert data["started"] == data["finished"]
    assert "answers reused, stored by an earlier run at" in data["reused"]


def test_answers_stored_after_a_run_ended_are_a_later_runs() -> None:
    def stored(at: float) -> ResultRecord:
        return ResultRecord("k", "m", "1", "c", "done", None, None, None, 1, at, at, {})

    # Recorded at 100, ended at 200: one answer reused (50), one its own (150), one a later
    # run stored for a trial it left unanswered (300).
    dates = run_dates(100.0, [stored(50.0), stored(150.0), stored(300.0)], until=200.0)
    assert (dates.started, dates.finished, dates.reused) == (100.0, 150.0, 1)
    # While it runs, every answer since it started is its own.
    assert run_dates(100.0, [stored(150.0), stored(300.0)]).finished == 300.0
    assert run_dates(100.0, [stored(50.0)], until=200.0).finished == 100.0
    assert run_dates(100.0, []).finished is None


def test_the_check_finds_a_run_that_finished_before_it_started() -> None:
    backwards = {"run": "r", "started": "2026-11-30 08:24", "finished": "2026-11-30 08:09"}
    assert date_order_problems({"runs": [backwards]}) == [
        "run r started 2026-11-30 08:24 and finished 2026-11-30 08:09"
    ]
    assert date_order_problems(backwards) != []
    assert date_order_problems({"runs": [{**backwards, "finished": "—"}]}) == []
