"""``diptych show SESSION`` of an agent session that has started but stored no run yet (the id
the Agent screen prints as it starts) says what it is, not "no run"."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.started_sessions import started

from diptych.core.workspace import Workspace
from tests.support.cli import call


def test_a_started_session_is_shown_before_its_first_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    store = tmp_path / "ws"
    Workspace.open(store).close()
    started(store, "tui-88e81a05", {"session": "tui-88e81a05", "probe": "pst-text", "rounds": 2})
    code, out = call(capsys, "--store", str(store), "show", "tui-88e81a05")
    assert code == 0, out
    assert out.splitlines() == [
        "agent session tui-88e81a05",
        "kind: identity search",
        "status: not ended: stopped before its end, or its process has not saved it yet",
        "rounds: 2",
        "runs: none stored",
        "'diptych agent identities --session tui-88e81a05' with the options it started with "
        "resumes it; once it ends, 'diptych show tui-88e81a05' lists its findings",
    ]
    code, out = call(capsys, "--store", str(store), "show", "tui-0000")
    assert code == 1 or code == 2, out
    assert "no run 'tui-0000'" in out
