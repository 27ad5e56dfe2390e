"""``diptych audit run`` on a full disk says where the workspace is and what to do, keeps what
it stored, and the same command run again once there is room finishes the audit.

The disk fills for real as SQLite sees it: every connection the command opens is capped at the
pages it holds (``max_page_count``), so its writes fail with SQLITE_FULL as on a full disk."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from diptych.core.store import connection
from diptych.core.workspace import Workspace
from diptych.testing.drills.kills import integrity
from tests.support.cli import call
from tests.support.sequential_audits import FEM, FIGURE, MASC, planted_audit

pytestmark = pytest.mark.usefixtures("scripted_plugin")


def _said(ws: Path) -> str:
    return (
        f"error: the disk holding the workspace {ws} is full (database or disk is full): free "
        "some space there, then run the same command again; it resumes from what was stored"
    )


def test_a_full_disk_stops_the_audit_in_one_line_and_the_rerun_finishes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    gates = [{"part": "pst-text", "figure": FIGURE, "below": 95}]
    file = planted_audit(tmp_path / "a.yaml", gates, MASC, FEM, name="hx", seed=2)
    ws = tmp_path / "ws"
    args = ["--store", str(ws), "audit", "run", str(file), "--out", str(tmp_path / "rep"),
            "--quiet"]  # fmt: skip
    code, out = call(capsys, "--store", str(ws), "audit", "run", str(file), "--dry-run")
    assert code == 0, out
    opened = connection.Connection._open_writable

    def full(self: connection.Connection) -> sqlite3.Connection:
        db = opened(self)
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")
        return db

    monkeypatch.setattr(connection.Connection, "_open_writable", full)
    code, out = call(capsys, *args)
    assert code == 1, out
    assert out.strip().splitlines()[-1] == _said(ws)
    assert "Traceback" not in out and not (tmp_path / "rep" / "report.json").exists()
    monkeypatch.setattr(connection.Connection, "_open_writable", opened)
    assert integrity(ws) == "ok"
    code, out = call(capsys, *args)
    assert code == 0, out
    with Workspace.open(ws) as w:
        (summary,) = w.runs.list()
        assert summary.run.status == "complete"
    assert (tmp_path / "rep" / "report.json").is_file()


def test_a_new_workspace_on_a_full_disk_is_not_called_a_foreign_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Setting up the database found no room: said as a full disk, not as "not a diptych
    workspace; choose another", which sent the user away from a workspace that was fine."""

    def no_room(self: connection.Connection) -> sqlite3.Connection:
        error = sqlite3.OperationalError("database or disk is full")
        error.sqlite_errorcode = sqlite3.SQLITE_FULL  # type: ignore[attr-defined]
        raise error

    monkeypatch.setattr(connection.Connection, "_open_writable", no_room)
    ws = tmp_path / "ws"
    code, out = call(capsys, "--store", str(ws), "run", "pst-text", "-m", "scripted-likelihood",
                     "--quiet")  # fmt: skip
    assert code == 1, out
    assert out.strip().splitlines() == [_said(ws)]
