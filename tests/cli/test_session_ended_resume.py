"""``diptych resume`` given an agent session that has ended says there is nothing to resume and
what shows it, naming the session once: not the command that would resume it."""

from __future__ import annotations

from pathlib import Path

import pytest

from diptych.core.workspace import Workspace
from tests.support.cli import call
from tests.support.session_ids import TUI_SESSION, sessions_workspace


def test_an_ended_session_has_nothing_to_resume(
    scripted: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # one line is one line, unwrapped
    store = tmp_path / "ws"
    made = sessions_workspace(store)
    with Workspace.open(store) as ws:
        saved = {"kind": "identities", "findings": [], "runs": made[TUI_SESSION]}
        ws.findings.save(TUI_SESSION, {**saved, "stop_reason": "rounds done"})
    code, out = call(capsys, "--store", str(store), "resume", TUI_SESSION)
    assert code == 2, out
    assert out == (
        f"error: '{TUI_SESSION}' is an agent session, not a run: it has ended (rounds done), "
        f"so there is nothing to resume; 'diptych show {TUI_SESSION}' lists its findings and "
        "its 2 runs\n"
    ), out
