"""A started agent session (no run stored yet) is found by a unique start of its id, as a run and
a session with runs are: by ``diptych show``, ``diptych resume`` and ``--session`` of the agent
commands; a start that several sessions share, or none, is refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.agent_cli import use_hashing_memory
from support.started_sessions import started, stopped_mitigation

from diptych.core.workspace import Workspace
from tests.support.cli import call

FIRST, SECOND = "tui-88e81a05", "tui-88f07c11"


def _two_started(store: Path) -> None:
    Workspace.open(store).close()
    for session in (FIRST, SECOND):
        started(store, session, {"session": session, "probe": "pst-text", "rounds": 2})


def test_show_and_resume_take_a_unique_start_of_a_started_sessions_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "400")
    store = tmp_path / "ws"
    _two_started(store)
    code, whole = call(capsys, "--store", str(store), "show", FIRST)
    assert code == 0 and whole.startswith(f"agent session {FIRST}\n"), whole
    code, out = call(capsys, "--store", str(store), "show", "tui-88e8")
    assert (code, out) == (0, whole)
    code, out = call(capsys, "--store", str(store), "resume", "tui-88f")
    assert (code, out) == (
        2,
        f"error: 'tui-88f' is agent session {SECOND}, not a run: 'diptych agent identities "
        f"--session {SECOND}' with the options it started with resumes it\n",
    )
    for command in ("show", "resume"):
        code, out = call(capsys, "--store", str(store), command, "tui-88")
        assert (code, out) == (
            2,
            f"error: 'tui-88' names 2 agent sessions ({FIRST}, {SECOND}); give more of the id\n",
        ), command
        code, out = call(capsys, "--store", str(store), command, "tui-0000")
        assert code == 2 and out.startswith("error: no run 'tui-0000' in "), out
        assert len(out.splitlines()) == 1, out


def test_a_start_shared_with_a_session_that_has_runs_is_refused(
    scripted: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.support.session_ids import TUI_SESSION, sessions_workspace

    store = tmp_path / "ws"
    sessions_workspace(store)
    other = TUI_SESSION[:5] + "0" * (len(TUI_SESSION) - 5)
    assert other != TUI_SESSION
    started(store, other, {"session": other, "probe": "pst-text", "rounds": 2})
    ref = TUI_SESSION[:5]
    code, out = call(capsys, "--store", str(store), "show", ref)
    listed = ", ".join(sorted([TUI_SESSION, other]))
    assert (code, out) == (
        2,
        f"error: '{ref}' names 2 agent sessions ({listed}); give more of the id\n",
    )


def test_agent_session_option_takes_a_unique_start_of_a_started_sessions_id(
    scripted: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_hashing_memory(monkeypatch)
    store = tmp_path / "ws"
    baseline = stopped_mitigation(store, "mit-5e55f0c1")
    started(store, "mit-5e77aaaa", {"session": "mit-5e77aaaa", "baseline": baseline})
    args = ["--store", str(store), "agent", "mitigate", baseline, "--agent-model", "scripted-chat"]
    code, out = call(capsys, *args, "--session", "mit-5e")
    assert (code, out) == (
        2,
        "error: 'mit-5e' names 2 agent sessions (mit-5e55f0c1, mit-5e77aaaa); "
        "give more of the id\n",
    )
    code, out = call(capsys, *args, "--session", "mit-5e55")
    assert code == 0, out
    assert out.splitlines()[0].startswith("session mit-5e55f0c1: 1 round done; "), out
    with Workspace.open(store) as ws:
        assert ws.findings.get("mit-5e55f0c1") is not None
        assert ws.findings.get("mit-5e55") is None
