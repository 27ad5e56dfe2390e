"""``diptych runs`` at 60 and 80 columns wraps a decided run's status between its parts, never
inside one: "look 1 of 4", "39 of 156 requests" and each count with its noun ("117 saved") stay
on one line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.cli import call
from tests.support.sequential_audits import decided_at_first_look

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def test_a_decided_status_keeps_its_look_and_counts_whole_at_60_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws)
    code, shown = call(capsys, "--store", ws, "show", run_id)
    said = re.search(r"decided at look 1 of 4: (\d+) of (\d+) requests, (\d+) saved",
                     " ".join(shown.split()))  # fmt: skip
    assert said is not None, shown
    bought, planned, saved = said.groups()
    assert int(bought) + int(saved) == int(planned), said[0]

    monkeypatch.setenv("COLUMNS", "60")
    code, table = call(capsys, "--store", ws, "runs")
    assert code == 0, table
    lines = [line for line in table.splitlines() if line.strip()]
    assert max(len(line) for line in lines) <= 60, table
    # Too narrow for its columns side by side, the row is stacked: its status under its name.
    labels = [line.split()[0] for line in lines]
    first, last = labels.index("status"), labels.index("trials")
    start = lines[first].index("decided")
    column = [" ".join(line[start:].split()) for line in lines[first:last]]
    # The whole status is there, in order, once its lines are joined.
    assert " ".join(column) == said[0], table
    for whole in ("look 1 of 4", f"{bought} of {planned} requests", f"{saved} saved"):
        assert any(whole in line for line in column), (whole, table)
    # Its trials' counts too, each with its word.
    trials = " ".join(lines[last].split()[1:])
    assert re.fullmatch(r"\d+: \d+ done, \d+ not bought", trials), table


def test_a_decided_status_keeps_its_phrases_whole_in_the_table_at_80_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = str(tmp_path / "ws")
    run_id = decided_at_first_look(capsys, ws, "-M", "latency=0.01")
    code, shown = call(capsys, "--store", ws, "show", run_id)
    said = re.search(r"decided at look 1 of 4: (\d+) of (\d+) requests, (\d+) saved",
                     " ".join(shown.split()))  # fmt: skip
    assert said is not None, shown
    bought, planned, saved = said.groups()

    monkeypatch.setenv("COLUMNS", "80")
    code, table = call(capsys, "--store", ws, "runs")
    assert code == 0, table
    lines = [line for line in table.splitlines() if line.strip()]
    assert max(len(line) for line in lines) <= 80, table
    # Side by side or stacked (as the columns fit), each phrase of the status is on one line,
    # and no line holds an "of" parted from both its counts.
    for whole in ("look 1 of 4", f"{bought} of {planned} requests,", f"{saved} saved"):
        assert any(whole in line for line in lines), (whole, table)
    assert not any(re.search(r"(^|\s\s)of(\s\s|$)", line) for line in lines), table
