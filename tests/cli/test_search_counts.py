"""One agent search counted one way: ``diptych runs`` (its table and ``--json``), ``diptych
show SESSION`` and an audit plan's search row count the runs it made and those it reused (a
placebo word's included), each run and each trial once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.search_counts import EARLIER, SEARCH, search_workspace


def test_runs_table_json_and_show_count_a_search_once(
    scripted: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    ws = tmp_path / "ws"
    want = search_workspace(ws)
    assert want.runs == 5

    code, out = call(capsys, "--store", str(ws), "runs")
    assert code == 0, out
    lines = out.splitlines()
    [at] = [i for i, line in enumerate(lines) if line.strip().startswith(SEARCH)]
    assert lines[at + 1].strip() == f"({want.runs} runs)", out
    # The wide table's trials column follows the models and status.
    assert f" {want.trials:,} " in lines[at], out

    code, out = call(capsys, "--store", str(ws), "runs", "--json")
    assert code == 0, out
    sessions = {e["id"]: e for e in json.loads(out) if e["kind"] == "session"}
    assert list(sessions) == [EARLIER, SEARCH]
    search = sessions[SEARCH]
    assert search["runs"] == [*want.made, *want.reused]
    assert (search["runs_made"], search["runs_reused"]) == (3, 2)
    assert search["trials"] == want.trials and search["counts"]["done"] == want.done

    code, out = call(capsys, "--store", str(ws), "show", SEARCH)
    assert code == 0, out
    said = " ".join(out.split())
    assert f"{want.runs} runs, 2 of them reused, {want.trials:,} trials" in said, out
    for run in want.reused:
        assert f"{run} pst-text complete" in said and f"{run} " in said

    # An audit plan's "trials stored" of the search (the Audit screen's cell) reads it too.
    with Workspace.open(ws) as opened:
        assert opened.runs.session_trials(SEARCH) == want.finished
